"""`Store.tree_summaries`: the live stacks below a stack at any depth in one read, on both
backends, exactly what walking each stack's children down the nested listing finds."""

from __future__ import annotations

from stoker.engine.state import StackRecord
from stoker.store import SqlStore

from . import factories as f


def _children(store: SqlStore, parent: StackRecord) -> list[StackRecord]:
    """The live stacks whose parent is ``parent``, oldest first, as summaries."""
    nested = store.stack_summaries(parent.project, include_nested=True)
    return [stack for stack in nested if stack.parent_id == parent.id]


def _walk(store: SqlStore, stack: StackRecord) -> list[StackRecord]:
    """What a walk of `_children` from ``stack`` finds."""
    found: list[StackRecord] = []
    pending = [stack]
    while pending:
        children = _children(store, pending.pop())
        found.extend(children)
        pending.extend(children)
    return found


def _order(records: list[StackRecord]) -> list[StackRecord]:
    return sorted(records, key=lambda r: (r.created_at, r.id))


def _tree(store: SqlStore) -> dict[str, StackRecord]:
    """root > a (> a1 > a1x, a2), b (deleted: > b1), c; and another tree beside it."""
    made: dict[str, StackRecord] = {}

    def add(name: str, parent: str | None, seconds: float) -> None:
        above = made[parent] if parent else None
        record = f.stack(
            name,
            parent_id=above.id if above else None,
            parent_resource=name if above else None,
            created_at=f.at(seconds),
        )
        store.create_stack(record, [], [])
        made[name] = record

    add("root", None, 0)
    add("other", None, 1)
    add("stranger", "other", 2)
    # a grandchild older than its parent's sibling, a child older than its own parent's
    # later siblings: the order is by time over the whole tree, as the walk's is per level
    add("a", "root", 3)
    add("a1", "a", 4)
    add("b", "root", 5)
    add("b1", "b", 6)
    add("a1x", "a1", 7)
    add("c", "root", 8)
    add("a2", "a", 9)
    store.mark_deleted(made["b"].id, f.at(20))
    return made


def test_the_live_stacks_below_at_any_depth_oldest_first(store: SqlStore) -> None:
    made = _tree(store)
    below = store.tree_summaries(made["root"].id)
    assert [r.name for r in below] == ["a", "a1", "a1x", "c", "a2"]
    assert below == _order(_walk(store, made["root"]))
    # summaries: the definition is left empty, as stack_summaries leaves it
    assert all(r.template == {} and r.parameters == {} for r in below)
    assert below[0] == _children(store, made["root"])[0]


def test_below_a_stack_inside_the_tree_and_below_a_leaf(store: SqlStore) -> None:
    made = _tree(store)
    assert [r.name for r in store.tree_summaries(made["a"].id)] == ["a1", "a1x", "a2"]
    assert store.tree_summaries(made["a1x"].id) == []
    assert [r.name for r in store.tree_summaries(made["other"].id)] == ["stranger"]
    # a deleted stack's own children are still below it (it is asked directly)
    assert [r.name for r in store.tree_summaries(made["b"].id)] == ["b1"]
    assert store.tree_summaries("no-such-stack") == []
