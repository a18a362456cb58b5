"""An update's clean-up, as Heat's convergence engine (its default) times it.

An update deletes two kinds of old resource: the resources the new definition no longer
has, and the old resource of each replacement. Heat's convergence engine does not wait for
the whole update to succeed: each old resource is deleted as soon as nothing that stood on
it in the *old* graph can still need it. So the update's walk holds, beside one node per
resource of the new definition, one clean-up node per resource the stack had, which waits

- for that resource's own update (its replacement made, or its update done), when the new
  definition still has it;
- for the clean-up of every resource that required it before the update (old requires),
  so the old graph is taken down in reverse order, as a delete would.

A failure stops the walk: what was cleaned up stays gone (a removed resource that nothing
required is deleted even if an added one then fails), and what was not stays (the old
resource of a replacement whose dependent failed is still there for a rollback to put
back). The legacy engine deletes nothing until everything else succeeded.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from stoker.engine import replacement
from stoker.engine.replacement import REPLACED
from stoker.engine.state import WriteBatch

if TYPE_CHECKING:
    from stoker.engine.operation import Operation

#: the prefix of a clean-up node's key in the walk (no resource name starts with NUL)
_PREFIX = "\x00clean-up "


def key(name: str) -> str:
    return _PREFIX + name


def is_clean_up(node: str) -> bool:
    return node.startswith(_PREFIX)


def resource_of(node: str) -> str:
    """The resource a node of the walk is about (its update or its clean-up)."""
    return node.removeprefix(_PREFIX)


def graph(
    operation: Operation, requires: Mapping[str, Sequence[str]], untouched: Iterable[str]
) -> dict[str, list[str]]:
    """The walk of an update: ``requires`` (the new definition's resources) and a
    clean-up node for each resource the stack has that the update may touch."""
    walk: dict[str, list[str]] = {name: list(needs) for name, needs in requires.items()}
    same = set(untouched)
    candidates = [name for name in operation.records if name not in same]
    present = set(candidates)
    for name in candidates:
        walk[key(name)] = [name] if name in requires else []
    for name in candidates:
        record = operation.records[name]
        before = set(record.requires)
        kept = record.data.get(REPLACED)
        if isinstance(kept, dict):
            before.update(kept.get("requires") or ())
        for need in before:
            if need in present and need != name:
                walk[key(need)].append(key(name))
    return walk


async def clean_up(operation: Operation, node: str) -> None:
    """Delete what the update left behind of one resource: all of it when the new
    definition does not have it, else the old resource its replacement kept."""
    name = resource_of(node)
    record = operation.records.get(name)
    if record is None:
        return
    assert operation.definition is not None
    if name not in operation.definition.enabled:
        if record.exists or isinstance(record.data.get(REPLACED), dict):
            await operation.delete_one(name)
        await operation.write(WriteBatch(removed=[(operation.stack.id, name)]))
        operation.records.pop(name, None)
    elif isinstance(record.data.get(REPLACED), dict):
        await replacement.delete_replaced(operation, name)
