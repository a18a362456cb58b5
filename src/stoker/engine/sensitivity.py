"""Which values of a stored stack derive from a hidden parameter, across nested stacks.

`stoker.definition.sensitive` answers for one template given a `Taint`; this module
builds that taint from the stack tree as it was created: from the parent, the
parameters its facade resource fed with a value derived from a hidden parameter (for
groups and chains, which copy the member definition into the child, every member); from
the children, which of their outputs carry such a value. Heat shows all of these in
clear (measured on 24.1.2); stoker uses the answer where it withholds derived values:
the table view of outputs and properties, `resource show`'s attributes, and a generated
member template in `stack template show` (a child's parameters fed so are masked from
the definition's own taint, see `stoker.engine.stack_views.stack_parameters`).

The walk follows dependencies only: a facade's properties can read the attributes of
the resources it depends on, never of itself or of what depends on it, so the recursion
(parent's taint for a child, children's taints for a parent) always ends.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from stoker.definition import (
    NO_TAINT,
    ChildTaint,
    StackDefinition,
    Taint,
    child_taint,
    handed_down,
)
from stoker.engine.state import StackRecord

if TYPE_CHECKING:
    from stoker.engine.stacks import StackEngine


class StackTaints:
    """Taints of the stacks of one tree, each computed once."""

    def __init__(self, engine: StackEngine) -> None:
        self.engine = engine
        self._up: dict[str, Taint] = {}
        self._child: dict[str, ChildTaint] = {}
        self._kids: dict[str, dict[str, StackRecord]] = {}
        #: the stacks of the tree already read, by id: a child's parent is read once, not
        #: once per child (a parent of many nested stacks, such as TripleO's, has them all
        #: read with its children)
        self._stacks: dict[str, StackRecord] = {}

    def _children_of(self, record: StackRecord) -> dict[str, StackRecord]:
        """``record``'s live children by the resource that owns them. The first stack
        asked about reads every stack below it at once (`Store.tree_summaries`): the walk
        goes on to their children, and one read per stack was most of the time of showing
        a tree of many nested stacks (TripleO's 238)."""
        kids = self._kids.get(record.id)
        if kids is None:
            self._read_below(record)
            kids = self._kids[record.id]
        return kids

    def _read_below(self, record: StackRecord) -> None:
        """The children of ``record`` and of every live stack below it, grouped as
        the live children read per stack would be (oldest first, the
        newest child of a resource winning); stacks already read keep their entries."""
        below = self.engine.store.tree_summaries(record.id)
        found: dict[str, dict[str, StackRecord]] = {record.id: {}}
        found.update((child.id, {}) for child in below)
        for child in below:
            owner = found.get(child.parent_id or "")
            if owner is not None and child.parent_resource and child.deleted_at is None:
                owner[child.parent_resource] = child
        for stack_id, kids in found.items():
            self._kids.setdefault(stack_id, kids)
        self._stacks.setdefault(record.id, record)
        for child in below:
            self._stacks.setdefault(child.id, child)

    def of(self, record: StackRecord, only: frozenset[str] | None = None) -> Taint:
        """``record``'s taint; with ``only``, its children's part is limited to those
        resources (the ones a facade depends on)."""
        up = self._from_parent(record)
        kids = self._children_of(record)
        names = kids if only is None else [name for name in only if name in kids]
        children = {name: self._of_child(kids[name]) for name in names}
        return replace(up, children=children) if children else up

    def _of_child(self, record: StackRecord) -> ChildTaint:
        cached = self._child.get(record.id)
        if cached is None:
            template = self._definition(record).template
            cached = self._child[record.id] = child_taint(template, self.of(record))
        return cached

    def _from_parent(self, record: StackRecord) -> Taint:
        cached = self._up.get(record.id)
        if cached is not None:
            return cached
        taint = NO_TAINT
        name = record.parent_resource
        parent = None
        if record.parent_id and name:
            parent = self._stacks.get(record.parent_id) or self.engine.store.stack_summary(
                record.parent_id, record.project
            )
        if parent is not None and name:
            definition = self._definition(parent)
            needs = _dependencies(definition.graph.requires if definition.graph else {}, name)
            taint = handed_down(
                definition.template,
                name,
                self.of(parent, only=needs),
                self._definition(record).template,
            )
        self._up[record.id] = taint
        return taint

    def _definition(self, record: StackRecord) -> StackDefinition:
        """The stack's definition. The stacks of the tree are read as summaries: most
        definitions are known to the engine already, and a stored one is then not
        decrypted and decoded for nothing (TripleO's environments are large)."""
        return self.engine.queries.summary_definition(record)


def _dependencies(requires: Mapping[str, tuple[str, ...]], name: str) -> frozenset[str]:
    """Every resource ``name`` depends on, directly or not."""
    found: set[str] = set()
    pending = list(requires.get(name, ()))
    while pending:
        item = pending.pop()
        if item not in found:
            found.add(item)
            pending.extend(requires.get(item, ()))
    return frozenset(found)
