"""Building the `Graph` of a stack tree: from a template and its environment before the
stack exists (`template_graph`), or from a stored stack (`stack_graph`).

The edges are the engine's: each stack's `stoker.definition.graph.DependencyGraph` with
the reasons it kept; nothing here looks at a template's references again. Which nested
stacks exist comes from the tree check ``template validate`` runs
(`stoker.resolution.TreeCheck`) before a create, and from the store after.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from stoker.definition import StackDefinition
from stoker.engine import live_child
from stoker.graph.model import RECORDED, Edge, Graph, Level, Node, node_key, reason_names
from stoker.resources import InlineStack, ResourceChain, ResourceGroup

if TYPE_CHECKING:
    from stoker.engine import ResourceRecord, StackEngine, StackRecord

_GROUPS = frozenset({ResourceGroup.type_name, ResourceChain.type_name})
_STACKS = frozenset({InlineStack.type_name})
#: a resource of a stored stack that has no record yet (Heat shows it so)
_NOT_CREATED = "INIT_COMPLETE"


def cluster_kind(type_name: str, has_child: bool) -> str | None:
    """``group``, ``stack`` or ``provider`` for a resource that holds a nested stack (a
    provider template's type is any name the environment maps to a template)."""
    if type_name in _GROUPS:
        return "group"
    if type_name in _STACKS:
        return "stack"
    return "provider" if has_child else None


def _edges(definition: StackDefinition, path: tuple[str, ...], shown: set[str]) -> list[Edge]:
    graph = definition.graph
    if graph is None:  # a nested template with a cycle: reported by the tree check
        return []
    return [
        Edge(node_key(path, name), node_key(path, needed), reason_names(bits))
        for name, needs in graph.reasons.items()
        if name in shown
        for needed, bits in needs.items()
        if needed in shown
    ]


# ---------------------------------------------------------------------- before it exists
def template_graph(
    definition: StackDefinition,
    nested: Sequence[tuple[tuple[str, ...], str, StackDefinition]],
    depth: int,
    title: str,
) -> Graph:
    """The graph of ``definition`` and the nested definitions the tree check found
    (`stoker.resolution.TreeCheck.nested`: facade names, location, definition), drawn to
    ``depth`` levels of nesting."""
    children = {names: child for names, _, child in nested}
    return Graph(title, _template_level(definition, (), children, depth), depth)


def _template_level(
    definition: StackDefinition,
    path: tuple[str, ...],
    children: Mapping[tuple[str, ...], StackDefinition],
    depth: int,
) -> Level:
    resources = definition.template.resources
    nodes = []
    for name in definition.enabled:
        type_name = resources[name].type
        below = children.get((*path, name))
        kind = cluster_kind(type_name, below is not None)
        child = hidden = None
        if below is not None and depth > 0:
            child = _template_level(below, (*path, name), children, depth - 1)
        elif below is not None:
            hidden = _template_count(below, (*path, name), children)
        nodes.append(
            Node(node_key(path, name), name, type_name, path, kind=kind, child=child, hidden=hidden)
        )
    shown = set(definition.enabled)
    return Level(path, tuple(nodes), tuple(_edges(definition, path, shown)))


def _template_count(
    definition: StackDefinition,
    path: tuple[str, ...],
    children: Mapping[tuple[str, ...], StackDefinition],
) -> int:
    """The resources of a nested stack and of every stack below it."""
    paths = [(*path, name) for name in definition.enabled]
    nested = (_template_count(children[p], p, children) for p in paths if p in children)
    return len(paths) + sum(nested)


# ---------------------------------------------------------------------- a stored stack
def stack_graph(engine: StackEngine, stack: StackRecord, depth: int) -> Graph:
    """The graph of a stored stack, each resource with its state, its nested stacks
    drawn to ``depth`` levels."""
    return Graph(stack.name, _stored_level(engine, stack, (), depth), depth)


def _state(record: ResourceRecord | None) -> str:
    if record is None:
        return _NOT_CREATED
    return f"{record.action.value}_{record.status.value}"


def _stored_level(
    engine: StackEngine, stack: StackRecord, path: tuple[str, ...], depth: int
) -> Level:
    definition = engine.definition_of(stack)
    records = {r.name: r for r in engine.store.resources(stack.id)}
    resources = definition.template.resources
    names = [*definition.enabled, *(n for n in records if n not in definition.enabled)]
    nodes = []
    for name in names:
        record = records.get(name)
        type_name = record.type if record is not None else resources[name].type
        below = live_child(engine.store, stack.project, record)
        kind = cluster_kind(type_name, below is not None)
        child = hidden = None
        if below is not None and depth > 0:
            child = _stored_level(engine, below, (*path, name), depth - 1)
        elif below is not None:
            hidden = _stored_count(engine, below)
        nodes.append(
            Node(
                node_key(path, name),
                name,
                type_name,
                path,
                state=_state(record),
                stack_name=stack.name,
                stack_id=stack.id,
                kind=kind,
                child=child,
                hidden=hidden,
            )
        )
    shown = set(names)
    edges = _edges(definition, path, shown)
    # resources the current template no longer has (mid-update): the edges they stored
    for name, record in records.items():
        if name not in definition.enabled:
            edges.extend(
                Edge(node_key(path, name), node_key(path, needed), (RECORDED,))
                for needed in record.requires
                if needed in shown
            )
    state = f"{stack.action.value}_{stack.status.value}"
    return Level(path, tuple(nodes), tuple(edges), stack.name, stack.id, state)


def _stored_count(engine: StackEngine, stack: StackRecord) -> int:
    """The resources of a stored nested stack and of every stack below it."""
    records = engine.store.resources(stack.id)
    below = (live_child(engine.store, stack.project, record) for record in records)
    return len(records) + sum(_stored_count(engine, child) for child in below if child is not None)
