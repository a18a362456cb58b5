"""Pausing Python's cyclic garbage collector while a block builds long-lived objects.

Loading a template makes hundreds of thousands of objects (nodes, function trees) and
almost no cyclic garbage; each collection triggered meanwhile walks the growing tree and
finds nothing. Reference counting frees everything as usual while the collector is
paused; only the search for unreachable cycles waits. This is the one helper that
pauses it; it is used only where a measurement showed it helps (docs/architecture.md).
`stoker.engine.heap` freezes what an operation only reads, a different thing."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run the block with the cyclic collector paused, and resume it after if it was
    running (a block nested in another pause leaves it paused)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
