"""How long to wait between polls and between retries of a transient error.

Exponential with a cap: a server that is ready after one second is seen soon after, and
a slow volume is not polled ten times a second for minutes.

Polling holds its first delay (0.1 s) for the first second, then grows by 1.2 up to 3 s.
Many things a stack waits on are ready within a second or two (a server on a quick
hypervisor, a port's binding, a sandbox's BUILD); grown from the start, the delays had
reached 0.25-0.3 s by then, so such a thing was seen up to 0.3 s late (a server ready at
1.0 s was seen at 1.29 s; now at 1.0 s or 1.12 s). Holding costs nine polls more over
any wait longer than a few seconds, whatever its length (42 in the first minute instead
of 33; every 3 s after either way). A server's polls are one shared listing of the
project's servers in BUILD, whatever the number of servers: at most fifty a second for
the whole process while servers are in their first second, under two a second once
their delays reach 3 s. A real cloud sees that same bounded rate; a slow volume or load
balancer is still polled every 3 s once the wait is long.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Backoff:
    """Delays ``first`` (``steady`` times), then ``first*factor``, ... never above ``cap``
    seconds."""

    first: float = 0.1
    factor: float = 1.2
    cap: float = 3.0
    #: how many delays stay at ``first`` before they grow
    steady: int = 1

    def delays(self) -> Iterator[float]:
        """The endless sequence of delays (the caller stops: the operation's timeout, or
        a count of retries)."""
        for _ in range(self.steady - 1):
            yield min(self.first, self.cap)
        delay = self.first
        while True:
            yield min(delay, self.cap)
            delay *= self.factor

    def total(self, count: int) -> float:
        """The time the first ``count`` delays add up to."""
        delays = self.delays()
        return sum(next(delays) for _ in range(count))


#: polling a resource until it is ready or gone: every 0.1 s for the first second
POLL = Backoff(steady=10)
#: retrying a call the cloud refused for now (409 Conflict, 503 Unavailable, 429)
RETRY = Backoff(first=0.5, factor=2.0, cap=8.0)
#: how many times a transient refusal is retried before it is a failure
RETRIES = 6
