"""Named points in an operation where a test can stop the process, deterministically.

Crash and split-brain tests need a real ``stoker`` process stopped at an exact place (say,
after a resource's IN_PROGRESS record is committed and before its handler starts), not
wherever a timer happens to catch it. ``STOKER_TEST_STOP_AT=POINT[:N][@NAME]`` makes the process
send itself ``SIGSTOP`` the N-th time (default 1) it reaches POINT (for the resource NAME,
where the point is a resource's); the test waits for the
stop (``waitpid(WUNTRACED)``), does what it needs, and continues it with ``SIGCONT``.
Unset (always, outside tests), `reached` is one dictionary lookup.
"""

from __future__ import annotations

import os
import signal

ENV = "STOKER_TEST_STOP_AT"

#: every point a create passes, for the tests to choose from (test_split_brain covers each)
POINTS = (
    "after_stack_row",  # a new stack's row (claimed by its creator) is committed
    "before_handler",  # a resource's IN_PROGRESS is committed; its handler has not started
    "after_handler",  # the handler returned; COMPLETE is not yet recorded
    "after_complete",  # a resource's COMPLETE is committed
    "heartbeat",  # the lease heartbeat is about to renew the claim
    "before_stack_complete",  # every resource is done; the stack's final state is not written
)

#: points only an effect-free resource passes (tests/engine/test_kill_batch.py stops there)
BATCH_POINTS = (
    "after_queued",  # an effect-free resource is complete in memory; its records are queued
)

#: points only an update passes (tests/engine/test_kill_update.py stops there)
UPDATE_POINTS = (
    "rollback_swapped",  # an update's rollback put back what replacements kept; no more
)


def _parse(value: str) -> tuple[str, int, str | None] | None:
    rest, _, subject = value.strip().partition("@")
    point, _, count = rest.partition(":")
    if not point:
        return None
    return point, int(count) if count.isdigit() else 1, subject or None


_target = _parse(os.environ.get(ENV, ""))
_seen: dict[str, int] = {}


def reached(point: str, subject: str | None = None) -> None:
    """Stop this process here if the test asked for it (see the module's docstring);
    ``subject`` (a resource's name) is what ``POINT@SUBJECT`` picks among the times."""
    if _target is None or _target[0] != point or _target[2] not in (None, subject):
        return
    _seen[point] = _seen.get(point, 0) + 1
    if _seen[point] == _target[1]:
        os.kill(os.getpid(), signal.SIGSTOP)
