"""The dependency graph of a stack's resources: depends_on, references and Heat's implied edges.

Create walks it forward and delete in reverse; here it is built and checked (unknown
names, cycles), and ordered for display. Each edge keeps what made it (`EdgeReason`), for
``stoker stack graph`` to label it: the reasons are the bits the walk that finds the edges
sets, not a second computation.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from stoker import codes
from stoker.definition.edges import DEPENDS_ON, EdgeReason
from stoker.definition.implied_dependencies import add_implied
from stoker.diagnostics import Diagnostic

if TYPE_CHECKING:
    from stoker.definition.stack import StackDefinition


class DependencyGraph(NamedTuple):
    """``requires[name]`` lists what ``name`` needs, in template order; ``reasons[name]``
    maps each of them to the `EdgeReason` bits that made the edge."""

    requires: Mapping[str, tuple[str, ...]]
    reasons: Mapping[str, Mapping[str, int]]

    def reason(self, name: str, needed: str) -> EdgeReason:
        """Why ``name`` waits for ``needed``."""
        return EdgeReason(self.reasons[name][needed])

    def required_by(self) -> dict[str, list[str]]:
        result: dict[str, list[str]] = {name: [] for name in self.requires}
        for name, needs in self.requires.items():
            for need in needs:
                result[need].append(name)
        return result

    def order(self) -> list[str]:
        """A topological order, stable with respect to template order (Kahn's algorithm).

        The ready set is a heap of template positions, so the order costs n log n: a sort
        per step made 10,000 independent resources take over a second.
        """
        remaining = {name: len(needs) for name, needs in self.requires.items()}
        dependents = self.required_by()
        names = list(self.requires)
        position = {name: index for index, name in enumerate(names)}
        ready = [position[name] for name, count in remaining.items() if count == 0]
        heapq.heapify(ready)
        order: list[str] = []
        while ready:
            name = names[heapq.heappop(ready)]
            order.append(name)
            for dependent in dependents[name]:
                remaining[dependent] -= 1
                if remaining[dependent] == 0:
                    heapq.heappush(ready, position[dependent])
        return order

    def levels(self) -> list[list[str]]:
        """Resources grouped by the earliest step they could start in (critical path view)."""
        depth: dict[str, int] = {}
        for name in self.order():
            depth[name] = 1 + max((depth[n] for n in self.requires[name]), default=-1)
        grouped: dict[int, list[str]] = {}
        for name, level in depth.items():
            grouped.setdefault(level, []).append(name)
        return [grouped[level] for level in sorted(grouped)]


def find_cycle(requires: Mapping[str, Sequence[str]]) -> list[str] | None:
    """One dependency cycle as ``[a, b, ..., a]``, or None (iterative DFS, no recursion)."""
    WHITE, GREY, BLACK = 0, 1, 2
    colour = dict.fromkeys(requires, WHITE)
    for start in requires:
        if colour[start] != WHITE:
            continue
        path: list[str] = [start]
        iterators = [iter(requires[start])]
        colour[start] = GREY
        while iterators:
            step = next(iterators[-1], None)
            if step is None:
                colour[path.pop()] = BLACK
                iterators.pop()
                continue
            if step not in colour:
                continue
            if colour[step] == GREY:
                return [*path[path.index(step) :], step]
            if colour[step] == WHITE:
                colour[step] = GREY
                path.append(step)
                iterators.append(iter(requires[step]))
    return None


def build_graph(definition: StackDefinition, implicit: Mapping[str, Mapping[str, int]]) -> None:
    """Set ``definition.graph`` from ``depends_on``, the references of its calls
    (``implicit``: each with its `EdgeReason` bits) and the edges Heat's types imply;
    report unknown names and a cycle."""
    template, found = definition.template, definition.diagnostics
    waits: dict[str, dict[str, int]] = {}
    for name in definition.enabled:
        resource = template.resources[name]
        needs: dict[str, int] = {}
        for index, dependency in enumerate(resource.depends_on):
            if dependency not in template.resources:
                span = (
                    resource.depends_on_spans[index]
                    if index < len(resource.depends_on_spans)
                    else resource.span
                )
                found.append(
                    Diagnostic(
                        codes.DEPENDS_ON,
                        f'Resource "{name}" depends on "{dependency}", which is not a '
                        "resource of this template",
                        (*resource.path, template.names.depends_on),
                        span,
                    )
                )
            elif dependency not in definition.disabled:
                needs[dependency] = DEPENDS_ON
        references = implicit.get(name, {})
        for dependency in sorted(references):
            needs[dependency] = needs.get(dependency, 0) | references[dependency]
        waits[name] = needs
    add_implied(definition, waits)
    requires = {name: tuple(needs) for name, needs in waits.items()}
    cycle = find_cycle(requires)
    if cycle is not None:
        first = template.resources[cycle[0]]
        found.append(
            Diagnostic(
                codes.DEPENDENCY_CYCLE,
                f"Circular Dependency Found: {' -> '.join(cycle)}",
                first.path,
                first.span,
            )
        )
        return
    definition.graph = DependencyGraph(requires, waits)
