"""A test hook: the process kills itself after a given number of recorded commits.

Crash tests need the kill to land in the middle of an operation every time. Watching the
database from outside and sending SIGKILL races the child (on a busy machine the create
may finish first); instead the child counts its own commits and, after the N-th, sends
itself SIGKILL: the same abrupt death (no cleanup, no ``finally``), at a point that does
not depend on timing. ``STOKER_TEST_KILL_AFTER_COMMITS=N`` turns it on; nothing else reads
that variable, and without it `after_commit` does nothing.
"""

from __future__ import annotations

import os
import signal

ENV_VAR = "STOKER_TEST_KILL_AFTER_COMMITS"


def _limit() -> int | None:
    value = os.environ.get(ENV_VAR, "").strip()
    return int(value) if value else None


_LIMIT = _limit()
_commits = 0


def after_commit() -> None:
    """Called by the recorder after each commit; dies at the configured count."""
    global _commits
    if _LIMIT is None:
        return
    _commits += 1
    if _commits >= _LIMIT:
        os.kill(os.getpid(), signal.SIGKILL)
