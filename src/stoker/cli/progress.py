"""Showing an operation while it runs: live counts on a terminal, event lines elsewhere.

Progress goes to stderr so that ``-f json`` output on stdout stays parseable.

The counts cover the whole tree: a nested stack's resources join both the numerator and
the denominator as soon as the stack appears (its resource rows are written when it is
created), and what is running is shown by its path from the top (``web.0.port``). When a
resource fails while others still run, that is said at once: the operation only ends when
the running ones finish, which may take a while.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType

from rich.console import Console
from rich.live import Live
from rich.text import Text

from stoker.engine.state import EventRecord, Status

STACK_TYPE = "OS::Heat::Stack"
_RUNNING_SHOWN = 3  # paths of running resources listed under the counts


@dataclass(frozen=True, slots=True)
class StackInfo:
    """What progress needs to know of a stack it sees events from."""

    parent_id: str | None
    parent_resource: str | None
    resources: int


#: looks a stack up by id (in the store); None when it cannot be found
StackLookup = Callable[[str], StackInfo | None]


def event_line(event: EventRecord, name: str | None = None) -> str:
    """``2026-11-21T10:00:00Z [web]: CREATE_COMPLETE  state changed``, as Heat's CLI
    (``name``: the resource's path from the top, for a nested one)."""
    stamp = event.time.strftime("%Y-%m-%dT%H:%M:%SZ")
    return (
        f"{stamp} [{name or event.resource_name}]: {event.action.value}_{event.status.value}  "
        f"{event.reason}"
    )


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
        self.console = Console(stderr=True)
        self.live_mode = sys.stderr.isatty() if live is None else live
        self.lookup = lookup
        self.state: dict[tuple[str, str], Status] = {}
        self.stacks: dict[str, StackInfo | None] = {}  # stack id -> what is known of it
        self.paths: dict[str, str] = {}  # stack id -> its path from the top ("" for the top)
        self.failed_reported: set[tuple[str, str]] = set()
        self.started = time.monotonic()
        self.stack_line = ""
        self._live: Live | None = None

    def __enter__(self) -> Progress:
        if self.live_mode:
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

    def __call__(self, event: EventRecord) -> None:
        self._learn(event.stack_id)
        key = (event.stack_id, event.resource_name)
        is_stack = event.resource_type == STACK_TYPE
        if is_stack and self.paths.get(event.stack_id) == "":
            self.stack_line = f"{event.action.value}_{event.status.value}: {event.reason}"
        elif not is_stack:
            self.state[key] = event.status
        if self._live is not None:
            self._live.update(self._render())
        else:
            self._print(event_line(event, None if is_stack else self.path(key)))
        if not is_stack and event.status is Status.FAILED and key not in self.failed_reported:
            self._report_failure(key, event)

    # ------------------------------------------------------------------ the tree
    def _learn(self, stack_id: str) -> None:
        """Place a stack seen for the first time: the first one (or one without a known
        parent) is the top; a nested one adds its resources to the denominator."""
        if stack_id in self.stacks:
            return
        info = self.lookup(stack_id) if self.lookup is not None else None
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

    def path(self, key: tuple[str, str]) -> str:
        prefix = self.paths.get(key[0], "")
        return f"{prefix}.{key[1]}" if prefix else key[1]

    def denominator(self) -> int:
        nested = sum(
            info.resources
            for stack_id, info in self.stacks.items()
            if info is not None and self.paths.get(stack_id) != ""
        )
        seen = len(self.state)
        return max(self.total + nested, seen)

    # ------------------------------------------------------------------ output
    def _print(self, line: str) -> None:
        self.console.print(Text(line), soft_wrap=True)

    def _report_failure(self, key: tuple[str, str], event: EventRecord) -> None:
        self.failed_reported.add(key)
        running = [k for k, s in self.state.items() if s is Status.IN_PROGRESS]
        if not running:
            return
        plural = "s" if len(running) != 1 else ""
        line = (
            f"{self.path(key)} failed: {event.reason}; waiting for {len(running)} running "
            f"resource{plural} to finish (Ctrl-C to stop waiting)"
        )
        if self._live is not None:
            self._live.console.print(Text(line), soft_wrap=True)
        else:
            self._print(line)

    def _render(self) -> Text:
        done = sum(1 for s in self.state.values() if s is Status.COMPLETE)
        running = [k for k, s in self.state.items() if s is Status.IN_PROGRESS]
        failed = sum(1 for s in self.state.values() if s is Status.FAILED)
        elapsed = time.monotonic() - self.started
        text = Text()
        text.append(f"resources: {done}/{self.denominator()} done", style="green")
        text.append(f", {len(running)} in progress")
        text.append(f", {failed} failed", style="red" if failed else "")
        text.append(f"  ({elapsed:.1f} s)")
        if running:
            shown = ", ".join(self.path(k) for k in running[:_RUNNING_SHOWN])
            more = f" and {len(running) - _RUNNING_SHOWN} more" if len(running) > 3 else ""
            text.append(f"\nrunning: {shown}{more}")
        if self.stack_line:
            text.append("\n" + self.stack_line)
        return text
