"""Showing an operation while it runs: live counts on a terminal, event lines elsewhere.

Progress goes to stderr so that ``-f json`` output on stdout stays parseable.

The counts cover the whole tree: a nested stack's resources join both the numerator and
the denominator as soon as the stack appears (its resource rows are written when it is
created), and what is running is shown by its path from the top (``web.0.port``). When a
resource fails while others still run, that is said at once: the operation only ends when
the running ones finish, which may take a while.

What it costs stays proportional to the events, whatever the size of the stack: the
counts are kept as events arrive (not recounted per event); the live view is redrawn at
most eight times a second; event lines (not a terminal) are collected and written once
per turn of the event loop, so a group commit of a thousand events is one write, not a
thousand (each line still appears as soon as the engine yields, in order).
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import islice
from types import TracebackType
from typing import TYPE_CHECKING

from stoker.cli.detach import started_callback
from stoker.engine import Action, EventRecord, StackRecord, Status

if TYPE_CHECKING:  # Rich is imported for the live view only: event lines need none of it
    from rich.console import Console
    from rich.live import Live
    from rich.text import Text

    from stoker.engine import StackEngine

STACK_TYPE = "OS::Heat::Stack"
_RUNNING_SHOWN = 3  # paths of running resources listed under the counts
_SECOND = timedelta(seconds=1)
_REDRAW_S = 1 / 8  # the live view is redrawn at most this often (as rich refreshes it)
#: ``CREATE_COMPLETE`` per (action, status), made once: an enum's ``.value`` is a
#: descriptor call, and an event line needed two of them
_LABELS = {
    (action, status): f"{action.value}_{status.value}" for action in Action for status in Status
}


@dataclass(frozen=True, slots=True)
class StackInfo:
    """What progress needs to know of a stack it sees events from."""

    parent_id: str | None
    parent_resource: str | None
    resources: int


#: looks a stack up by id (in the store); None when it cannot be found
StackLookup = Callable[[str], StackInfo | None]


def event_line(event: EventRecord, name: str | None = None, stamp: str | None = None) -> str:
    """``2026-11-21T10:00:00Z [web]: CREATE_COMPLETE  state changed``, as Heat's CLI
    (``name``: the resource's path from the top, for a nested one; ``stamp``: the time
    as `time_stamp` writes it, when the caller has it already)."""
    if stamp is None:
        stamp = time_stamp(event.time)
    label = _LABELS[event.action, event.status]
    return f"{stamp} [{name or event.resource_name}]: {label}  {event.reason}"


def time_stamp(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


class Progress:
    """A listener for engine events; use as a context manager around the operation.

    ``total`` is the number of resources of the top stack; ``lookup`` finds nested stacks
    (their parent and size) when their first event arrives.
    """

    def __init__(
        self,
        total: int,
        *,
        live: bool | None = None,
        lookup: StackLookup | None = None,
    ):
        self.total = total
        self._console: Console | None = None
        self.live_mode = sys.stderr.isatty() if live is None else live
        self.lookup = lookup
        self.state: dict[tuple[str, str], Status] = {}
        self.counts: Counter[Status] = Counter()  # resources per status, kept with `state`
        self.running: dict[tuple[str, str], None] = {}  # in progress, in the order started
        self.nested = 0  # resources of the nested stacks seen so far
        self.stacks: dict[str, StackInfo | None] = {}  # stack id -> what is known of it
        self.paths: dict[str, str] = {}  # stack id -> its path from the top ("" for the top)
        self.failed_reported: set[tuple[str, str]] = set()
        self.started = time.monotonic()
        self.stack_line = ""
        self._live: Live | None = None
        self._drawn = 0.0  # when the live view was last redrawn (monotonic)
        self._lines: list[str] = []  # event lines not yet written
        self._second: datetime | None = None  # the second `_stamp` was written for
        self._next: datetime | None = None  # the second after it
        self._stamp = ""
        # a --no-wait child's word to its parent, on the top stack's start (`detach`)
        self.on_start = started_callback()

    @property
    def console(self) -> Console:
        """Rich's console on stderr (made when first needed: the live view, a failure)."""
        if self._console is None:
            from rich.console import Console

            self._console = Console(stderr=True)
        return self._console

    def __enter__(self) -> Progress:
        if self.live_mode:
            from rich.live import Live

            self._live = Live(
                self._render(), console=self.console, refresh_per_second=8, transient=False
            )
            self._live.__enter__()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._live is not None:
            self._live.update(self._render())
            self._live.__exit__(kind, error, trace)
        self.flush()

    def __call__(self, event: EventRecord) -> None:
        # Called for each of the tens of thousands of events of a large stack (two per
        # resource and action): the usual case, a resource's event of a stack already
        # seen, written as a line, calls no method but `_print`.
        stack_id, status = event.stack_id, event.status
        if stack_id not in self.stacks:
            self._learn(stack_id)
        key = (stack_id, event.resource_name)
        is_stack = event.resource_type == STACK_TYPE
        if not is_stack:
            before = self.state.get(key)
            if before is not None:
                self.counts[before] -= 1
            self.state[key] = status
            self.counts[status] += 1
            if status is Status.IN_PROGRESS:
                self.running[key] = None
            else:
                self.running.pop(key, None)
        elif self.paths.get(stack_id) == "":
            self.stack_line = f"{event.action.value}_{status.value}: {event.reason}"
            if status is Status.IN_PROGRESS and self.on_start is not None:
                said = self.on_start
                self.on_start = None
                said(event)
        if self._live is not None:
            self._redraw()
        else:
            when = event.time
            second, after = self._second, self._next
            if second is None or after is None or not second <= when < after:
                self._new_second(when)
            if is_stack:
                name = event.resource_name
            else:
                prefix = self.paths.get(stack_id, "")
                name = f"{prefix}.{event.resource_name}" if prefix else event.resource_name
            self._print(event_line(event, name, self._stamp))
        if not is_stack and status is Status.FAILED and key not in self.failed_reported:
            self._report_failure(key, event)

    def _new_second(self, when: datetime) -> None:
        """Make `time_stamp` for the second of ``when``: written once per second (thousands
        of events share one; those of the same second make no datetime)."""
        second = when.replace(microsecond=0)
        self._second, self._next, self._stamp = second, second + _SECOND, time_stamp(second)

    # ------------------------------------------------------------------ the tree
    def follow(self, engine: StackEngine) -> None:
        """Hear ``engine``'s events, and of each stack it writes (`stack_written`)."""
        engine.listener = self
        engine.stack_listener = self.stack_written

    def stack_written(self, stack: StackRecord, resources: int) -> None:
        """The engine wrote ``stack`` with ``resources`` resources (`StackEngine`'s
        ``stack_listener``): placed as `_learn` would place it on its first event, without
        looking it up in the store."""
        info = StackInfo(stack.parent_id, stack.parent_resource, resources)
        self._place(stack.id, info)

    def _learn(self, stack_id: str) -> None:
        """Place a stack seen for the first time, as the store knows it."""
        info = self.lookup(stack_id) if self.lookup is not None else None
        self._place(stack_id, info)

    def _place(self, stack_id: str, info: StackInfo | None) -> None:
        """The first stack placed (or one without a known parent) is the top; a nested
        one adds its resources to the denominator."""
        if stack_id in self.stacks:
            return
        self.stacks[stack_id] = info
        parent = info.parent_id if info is not None else None
        name = (info.parent_resource if info is not None else None) or stack_id
        if parent is not None and parent in self.paths:
            prefix = self.paths[parent]
            self.paths[stack_id] = f"{prefix}.{name}" if prefix else name
        elif "" not in self.paths.values():
            self.paths[stack_id] = ""  # the first stack seen without a known parent: the top
        else:
            self.paths[stack_id] = name
        if info is not None and self.paths[stack_id] != "":
            self.nested += info.resources

    def path(self, key: tuple[str, str]) -> str:
        prefix = self.paths.get(key[0], "")
        return f"{prefix}.{key[1]}" if prefix else key[1]

    def denominator(self) -> int:
        return max(self.total + self.nested, len(self.state))

    # ------------------------------------------------------------------ output
    def _print(self, line: str) -> None:
        """Collect an event line; written at the next turn of the event loop (see the
        module's docstring), at once when no loop runs."""
        self._lines.append(line)
        if len(self._lines) > 1:
            return  # a flush is already due
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.flush()
            return
        loop.call_soon(self.flush)

    def flush(self) -> None:
        """Write the collected lines, in one write."""
        if self._lines:
            lines, self._lines = self._lines, []
            stream = self._console.file if self._console is not None else sys.stderr
            stream.write("\n".join(lines) + "\n")
            stream.flush()

    def _redraw(self) -> None:
        now = time.monotonic()
        if self._live is not None and now - self._drawn >= _REDRAW_S:
            self._drawn = now
            self._live.update(self._render())

    def _report_failure(self, key: tuple[str, str], event: EventRecord) -> None:
        self.failed_reported.add(key)
        running = len(self.running)
        if not running:
            return
        plural = "s" if running != 1 else ""
        line = (
            f"{self.path(key)} failed: {event.reason}; waiting for {running} running "
            f"resource{plural} to finish (Ctrl-C to stop waiting)"
        )
        if self._live is not None:
            from rich.text import Text

            self._live.console.print(Text(line), soft_wrap=True)
            self._drawn = 0.0
            self._redraw()
        else:
            self._print(line)

    def _render(self) -> Text:
        from rich.text import Text

        done = self.counts[Status.COMPLETE]
        running = len(self.running)
        failed = self.counts[Status.FAILED]
        elapsed = time.monotonic() - self.started
        text = Text()
        text.append(f"resources: {done}/{self.denominator()} done", style="green")
        text.append(f", {running} in progress")
        text.append(f", {failed} failed", style="red" if failed else "")
        text.append(f"  ({elapsed:.1f} s)")
        if running:
            shown = ", ".join(self.path(k) for k in islice(self.running, _RUNNING_SHOWN))
            more = f" and {running - _RUNNING_SHOWN} more" if running > _RUNNING_SHOWN else ""
            text.append(f"\nrunning: {shown}{more}")
        if self.stack_line:
            text.append("\n" + self.stack_line)
        return text
