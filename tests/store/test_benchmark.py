"""The big-stack write and read pattern, timed; runs only with ``STOKER_BENCH=1``.

Prints figures (``pytest -s``), asserts only correctness: timings belong in benchmarks,
not in pass/fail.
"""

from __future__ import annotations

import os
import time

import pytest

from stoker.engine.state import Status, WriteBatch
from stoker.store import SqlStore

from . import factories as f

pytestmark = pytest.mark.skipif(
    os.environ.get("STOKER_BENCH") != "1", reason="a benchmark: set STOKER_BENCH=1 to run it"
)

RESOURCES = 10_000
BATCH = 1_000


def test_ten_thousand_resources(store: SqlStore, backend: str) -> None:
    record = f.stack("big")
    store.create_stack(record, [], [])
    names = [f"server_{i:05d}" for i in range(RESOURCES)]
    batches = [
        WriteBatch(
            resources=[
                f.resource(
                    record.id,
                    name,
                    status=status,
                    properties={"flavor": "m1.small", "image": "cirros", "index": i},
                    requires=(names[i - 1],) if i else (),
                    created_at=f.at(0),
                    updated_at=f.at(1),
                )
                for i, name in enumerate(names[start : start + BATCH], start)
            ],
            events=[
                f.event(record.id, name, "state changed", status=status, time=f.at(1))
                for name in names[start : start + BATCH]
            ],
        )
        for status in (Status.IN_PROGRESS, Status.COMPLETE)
        for start in range(0, RESOURCES, BATCH)
    ]
    started = time.perf_counter()
    for batch in batches:
        store.write(batch)
    written = time.perf_counter() - started

    started = time.perf_counter()
    resources = store.resources(record.id)
    read = time.perf_counter() - started

    started = time.perf_counter()
    events = store.events(record.id)
    read_events = time.perf_counter() - started

    print(
        f"\n[{backend}] write {RESOURCES} resources x2 + {len(events)} events in batches of "
        f"{BATCH}: {written:.3f} s; resources(): {read:.3f} s; events(): {read_events:.3f} s"
    )
    assert len(resources) == RESOURCES and len(events) == 2 * RESOURCES
    assert {r.status for r in resources} == {Status.COMPLETE}
