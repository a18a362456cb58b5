"""`engine.deletion` reads the stored previous definition once per operation, however
many replacements or removals of an update ask for it at once (each used to read and
decode the whole previous template: 1,000 replacements took three times as long)."""

from __future__ import annotations

import asyncio
import threading
from types import SimpleNamespace
from typing import Any, cast

from stoker.engine import deletion
from stoker.engine.state import StoredDefinition


class CountingStore:
    def __init__(self, template: dict[str, Any]) -> None:
        self.template = template
        self.reads = 0
        self.lock = threading.Lock()

    def previous_definition(self, stack_id: str) -> StoredDefinition:
        with self.lock:
            self.reads += 1
        return StoredDefinition(self.template, {}, {}, {})


def test_concurrent_lookups_read_the_previous_definition_once() -> None:
    resources: dict[str, Any] = {f"r{i}": {"type": "OS::Heat::None"} for i in range(50)}
    resources["r7"]["deletion_policy"] = "Retain"
    resources["r8"]["deletion_policy"] = "Snapshot"
    store = CountingStore({"resources": resources})
    operation = cast(
        Any,
        SimpleNamespace(
            engine=SimpleNamespace(store=store),
            stack=SimpleNamespace(id="s"),
            previous_resources=None,
            previous_reading=None,
        ),
    )

    async def lookups() -> list[str]:
        return list(
            await asyncio.gather(*(deletion.previous_policy_of(operation, n) for n in resources))
        )

    found = asyncio.run(lookups())
    assert store.reads == 1
    assert found == [
        "retain" if n == "r7" else "snapshot" if n == "r8" else "delete" for n in resources
    ]
    assert asyncio.run(deletion.previous_policy_of(operation, "missing")) == "delete"
    assert store.reads == 1


def test_kept_policy_reads_only_a_known_policy() -> None:
    assert deletion.kept_policy({"deletion_policy": "retain"}) == "retain"
    assert deletion.kept_policy({"type": "OS::Heat::None"}) is None  # kept by an older stoker
    assert deletion.kept_policy({"deletion_policy": "Retain"}) is None
    assert deletion.kept_policy(None) is None
