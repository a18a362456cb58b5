"""How values flow across requirements (a server takes the configs of what it hosts, an
app server the address of its database): which component gives an output, which
resource a component ends up in, what must be made before what, and the cycles that
cannot be made in any order."""

from __future__ import annotations

from typing import TYPE_CHECKING

from stoker.blueprint import codes
from stoker.blueprint.model import Requirement
from stoker.diagnostics import Diagnostic

if TYPE_CHECKING:
    from stoker.blueprint.decisions import Decisions


def output_source(decisions: Decisions, component_id: str, output: str) -> str | None:
    """The component whose template gives ``output`` for ``component_id``: itself, or (a
    software component has no address of its own) the component hosting it."""
    seen: set[str] = set()
    current: str | None = component_id
    while current is not None and current not in seen:
        seen.add(current)
        kind = decisions.type_of(current)
        if kind is not None and output in kind.outputs:
            return current
        current = decisions.host_of(current)
    return None


def resource_of(decisions: Decisions, component_id: str) -> str:
    """The resource a component ends up in (a nested one is made inside its owner's)."""
    while component_id in decisions.nested_in:
        component_id = decisions.nested_in[component_id]
    return component_id


def flow_edges(decisions: Decisions) -> list[tuple[str, str, Requirement]]:
    """(made first, made after, requirement) for each requirement across which a value
    flows: the receiving side waits for the giving side."""
    edges: list[tuple[str, str, Requirement]] = []
    for fulfilment in decisions.fulfilments:
        requirement = fulfilment.requirement
        if fulfilment.kind != "component" or requirement.owner is None:
            continue
        owner = requirement.owner
        owner_type = decisions.type_of(owner)
        for other in fulfilment.fulfillers:
            other_type = decisions.type_of(other)
            if owner_type is None or other_type is None or requirement.type is None:
                continue
            pairs: list[tuple[str, str]] = []
            if requirement.type in owner_type.receive:
                source = output_source(decisions, other, owner_type.receive[requirement.type][1])
                pairs.append((source or other, owner))
            if requirement.type in other_type.receive:
                source = output_source(decisions, owner, other_type.receive[requirement.type][1])
                pairs.append((source or owner, other))
            if not pairs:
                pairs.append((other, owner))
            for before, after in pairs:
                first, then = resource_of(decisions, before), resource_of(decisions, after)
                if first != then:
                    edges.append((first, then, requirement))
    return edges


def find_cycle(decisions: Decisions) -> Diagnostic | None:
    """The first cycle of requirements across which values flow (none can be made in
    any order), as an error at its first requirement naming each one's position."""
    edges = flow_edges(decisions)
    graph: dict[str, list[tuple[str, Requirement]]] = {}
    for before, after, requirement in edges:
        graph.setdefault(after, []).append((before, requirement))
    state: dict[str, int] = {}
    stack: list[tuple[str, Requirement | None]] = []

    def visit(node: str) -> list[tuple[str, Requirement | None]] | None:
        state[node] = 1
        stack.append((node, None))
        for target, requirement in graph.get(node, []):
            stack[-1] = (node, requirement)
            if state.get(target) == 1:
                start = next(i for i, (n, _) in enumerate(stack) if n == target)
                return stack[start:]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in list(graph):
        if node in state:
            continue
        cycle = visit(node)
        if cycle:
            names = " -> ".join([n for n, _ in cycle] + [cycle[0][0]])
            requirements = [r for _, r in cycle if r is not None]
            first = requirements[0]
            notes = tuple(f"{r.label} is at {r.span}" for r in requirements if r.span)
            return Diagnostic(
                codes.BLUEPRINT_CYCLE,
                f"requirements go round in a cycle: {names}; each needs what the next one makes",
                first.path,
                first.span,
                notes=notes,
            )
    return None
