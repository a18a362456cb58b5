"""Code run in separate processes (multiprocessing, spawn) by the concurrency tests.

Each worker opens its own store, so the races go through real, separate connections, and
waits at a barrier so that the workers really start together. Results go back on a queue
as plain values.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from stoker.engine.state import StackExists
from stoker.store import open_store

from .factories import T0, stack


def open_and_report(url: str, barrier: Any, results: Any) -> None:
    """Open (and so migrate) the database at the same time as other workers."""
    barrier.wait(timeout=60)
    try:
        with open_store(url) as store:
            results.put(("ok", store.count_stacks("demo")))
    except Exception as error:  # reported, so the test shows it
        results.put(("error", repr(error)))


def claim_all(url: str, engine_id: str, stack_ids: list[str], barrier: Any, results: Any) -> None:
    """Try to take the lease of every stack, in order; report who we found in the way."""
    with open_store(url) as store:
        barrier.wait(timeout=60)
        outcome: dict[str, str | None] = {}
        for stack_id in stack_ids:
            holder = store.acquire_lease(stack_id, engine_id, T0 + timedelta(minutes=5), T0)
            outcome[stack_id] = None if holder is None else holder.engine_id
        results.put((engine_id, outcome))


def create_named(url: str, worker: int, rounds: int, barrier: Any, results: Any) -> None:
    """Create stacks ``race-0`` .. ``race-N`` that the other worker creates too."""
    with open_store(url) as store:
        barrier.wait(timeout=60)
        created: list[str] = []
        for index in range(rounds):
            try:
                store.create_stack(stack(f"race-{index}"), [], [])
                created.append(f"race-{index}")
            except StackExists:
                pass
        results.put((worker, created))
