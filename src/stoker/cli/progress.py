"""Showing an operation while it runs: live counts on a terminal, event lines elsewhere.

Progress goes to stderr so that ``-f json`` output on stdout stays parseable.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from types import TracebackType

from rich.console import Console
from rich.live import Live
from rich.text import Text

from stoker.cli.output import mask
from stoker.engine.state import EventRecord, Status

STACK_TYPE = "OS::Heat::Stack"


def event_line(event: EventRecord) -> str:
    """``2026-11-21T10:00:00Z [web]: CREATE_COMPLETE  state changed``, as Heat's CLI."""
    stamp = event.time.strftime("%Y-%m-%dT%H:%M:%SZ")
    return (
        f"{stamp} [{event.resource_name}]: {event.action.value}_{event.status.value}  "
        f"{event.reason}"
    )


class Progress:
    """A listener for engine events; use as a context manager around the operation."""

    def __init__(self, total: int, secrets: Sequence[str] = (), *, live: bool | None = None):
        self.total = total
        self.secrets = list(secrets)
        self.console = Console(stderr=True)
        self.live_mode = sys.stderr.isatty() if live is None else live
        self.state: dict[str, Status] = {}
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
        if event.resource_type == STACK_TYPE:
            self.stack_line = f"{event.action.value}_{event.status.value}: {event.reason}"
        else:
            self.state[event.resource_name] = event.status
        if self._live is not None:
            self._live.update(self._render())
        else:
            self.console.print(Text(mask(event_line(event), self.secrets)), soft_wrap=True)

    def _render(self) -> Text:
        done = sum(1 for s in self.state.values() if s is Status.COMPLETE)
        running = sum(1 for s in self.state.values() if s is Status.IN_PROGRESS)
        failed = sum(1 for s in self.state.values() if s is Status.FAILED)
        elapsed = time.monotonic() - self.started
        text = Text()
        text.append(f"resources: {done}/{self.total} done", style="green")
        text.append(f", {running} in progress")
        text.append(f", {failed} failed", style="red" if failed else "")
        text.append(f"  ({elapsed:.1f} s)")
        if self.stack_line:
            text.append("\n" + mask(self.stack_line, self.secrets))
        return text
