"""How long to wait between polls and between retries of a transient error.

Exponential with a cap: a server that is ready after one second is seen soon after, and
a slow volume is not polled ten times a second for minutes.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Backoff:
    """Delays ``first``, ``first*factor``, ... never above ``cap`` seconds."""

    first: float = 0.1
    factor: float = 1.2
    cap: float = 3.0

    def delays(self) -> Iterator[float]:
        """The endless sequence of delays (the caller stops: the operation's timeout, or
        a count of retries)."""
        delay = self.first
        while True:
            yield min(delay, self.cap)
            delay *= self.factor

    def total(self, count: int) -> float:
        """The time the first ``count`` delays add up to."""
        delays = self.delays()
        return sum(next(delays) for _ in range(count))


#: polling a resource until it is ready or gone
POLL = Backoff()
#: retrying a call the cloud refused for now (409 Conflict, 503 Unavailable, 429)
RETRY = Backoff(first=0.5, factor=2.0, cap=8.0)
#: how many times a transient refusal is retried before it is a failure
RETRIES = 6
