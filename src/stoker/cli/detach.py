"""``--no-wait``: start a stack operation and return while it runs.

An operation runs in the process that started it (the engine is in-process, its progress
recorded in the store before and after each effect). Returning at once therefore means
another process: the same command line, without ``--no-wait``, is started detached (its
own session, no terminal, its output in an unlinked temporary file), and this process
waits only until that child has recorded the operation's start (the top stack's
``*_IN_PROGRESS`` event, committed), which the child says on a pipe. Then ``stack show``
reports the stack IN_PROGRESS, ``stack event list --follow`` follows it, and if the child
dies, ``stack recover`` resumes the operation as after any crash (its lease lapses).

A command that fails before its operation starts (a rejected template, a stack that does
not exist, a delete without ``--yes``: the child cannot ask) fails here as it would have
in the foreground, with the child's messages and exit status.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from stoker.engine import EventRecord

#: set in the child: the file descriptor it reports the operation's start on
STARTED_FD_ENV = "STOKER_STARTED_FD"


def is_detached_child() -> bool:
    return bool(os.environ.get(STARTED_FD_ENV))


def run_detached(argv: list[str]) -> tuple[int, str]:
    """Run ``ARGV`` (this process's command line, less ``--no-wait``) detached; return once
    its operation has started (0 and the start's line) or the child has ended without
    starting one (its exit status, its output written to stderr here)."""
    script, *rest = argv
    # the same script (the `stoker` entry point: its messages name `stoker`), else -m
    start = [script] if os.path.isfile(script) else ["-m", "stoker"]
    args = [*start, *(arg for arg in rest if arg != "--no-wait")]
    read_end, write_end = os.pipe()
    # the child keeps writing to its own handle of this unlinked file after we are gone
    with tempfile.TemporaryFile() as output:
        try:
            child = subprocess.Popen(
                [sys.executable, *args],
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=output,
                pass_fds=(write_end,),
                start_new_session=True,  # no terminal's Ctrl-C or hangup reaches it
                env={**os.environ, STARTED_FD_ENV: str(write_end)},
            )
        finally:
            os.close(write_end)
        with os.fdopen(read_end, "rb") as pipe:
            said = pipe.read()  # until the child closes it: started, or ended
        if said:
            return 0, said.decode("utf-8", "replace").strip() + f" (process {child.pid})"
        status = child.wait()
        output.seek(0)
        sys.stderr.write(output.read().decode("utf-8", "replace"))
        return status, ""


def started_callback() -> Callable[[EventRecord], None] | None:
    """In a detached child: what tells the parent that the operation has started (once);
    None in any other process."""
    given = os.environ.pop(STARTED_FD_ENV, "")  # not handed on to any further process
    if not given:
        return None
    descriptor = int(given)

    def started(event: EventRecord) -> None:
        line = f"{event.resource_name}: {event.action.value}_{event.status.value}"
        try:
            os.write(descriptor, (line + "\n").encode("utf-8"))
        finally:
            os.close(descriptor)

    return started
