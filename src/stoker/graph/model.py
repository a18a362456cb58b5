"""The graph of a stack's resources as the renderers draw it: one `Level` per stack of the
tree, its resources as `Node` s and its dependencies as `Edge` s.

A resource that holds a nested stack (a provider template, a group, ``OS::Heat::Stack``)
is a cluster: drawn with its stack inside when it is within the chosen depth (``child``),
else collapsed to one node that says how many resources it hides. Edges never cross
stacks: in Heat a nested stack's resources depend only on each other, and what the parent
hands down goes through the facade resource, which is the cluster itself.

An edge points from the resource that waits to the one it waits for (``source`` needs
``target``), as ``terraform graph`` draws it; each carries what made it
(`stoker.definition.edges.EdgeReason`), from the engine's own dependency computation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from urllib.parse import quote

from stoker.definition import EdgeReason

#: the names of the reasons, as every output writes them
REASON_NAMES: dict[EdgeReason, str] = {
    EdgeReason.DEPENDS_ON: "depends_on",
    EdgeReason.GET_RESOURCE: "get_resource",
    EdgeReason.GET_ATTR: "get_attr",
    EdgeReason.IMPLIED: "implied",
}
#: an edge only the stored records know (a resource the current template no longer has,
#: in the middle of an update): its reason is what the store kept
RECORDED = "recorded"


def reason_names(bits: int) -> tuple[str, ...]:
    """The names of the `EdgeReason` bits of one edge, in a fixed order."""
    return tuple(name for reason, name in REASON_NAMES.items() if bits & reason)


def split_state(state: str) -> tuple[str, str]:
    """``CREATE_IN_PROGRESS`` -> (``CREATE``, ``IN_PROGRESS``)."""
    if state.endswith("_IN_PROGRESS"):
        return state[: -len("_IN_PROGRESS")], "IN_PROGRESS"
    action, _, status = state.rpartition("_")
    return action, status


def node_key(path: tuple[str, ...], name: str) -> str:
    """A resource's key, unique in the whole tree: the names of the facades above it and
    its own, each percent-encoded (a ``/`` in a name stays unambiguous), joined by ``/``."""
    return "/".join(quote(part, safe="") for part in (*path, name))


def node_id(key: str) -> str:
    """An XML/CSS-safe id for a node key (``node-`` and the key with every character but
    ASCII letters and digits written ``_hh``): stable across runs, so a page that embeds the
    SVG finds the same resource under the same id."""
    out = ["node-"]
    for byte in key.encode("utf-8"):
        char = chr(byte)
        out.append(char if char.isascii() and char.isalnum() else f"_{byte:02x}")
    return "".join(out)


@dataclass(frozen=True, slots=True)
class Edge:
    """``source`` waits for ``target`` (node keys of one level), for ``reasons``."""

    source: str
    target: str
    reasons: tuple[str, ...]

    @property
    def label(self) -> str:
        return ", ".join(self.reasons)


@dataclass(frozen=True, slots=True)
class Node:
    """One resource. ``state`` is ``ACTION_STATUS`` for a stored stack's resource (None
    before the stack exists, or for a resource not created yet: INIT)."""

    key: str
    name: str
    type: str
    path: tuple[str, ...]  # the facade names from the top stack down to this resource's stack
    state: str | None = None
    stack_name: str | None = None  # the stored stack (nested ones too) that holds it
    stack_id: str | None = None
    #: "group", "provider" or "stack" when the resource holds a nested stack
    kind: str | None = None
    child: Level | None = None  # its nested stack, drawn (within the chosen depth)
    #: resources of the nested stack (all depths below) when it is collapsed; None when
    #: unknown (a group whose size is known only at create)
    hidden: int | None = None

    @property
    def collapsed(self) -> bool:
        return self.kind is not None and self.child is None

    @property
    def title(self) -> str:
        """The heading of a nested stack drawn around its resources."""
        return f"{self.name} ({self.kind}: {self.type})"

    @property
    def count(self) -> str:
        """How many resources a collapsed nested stack holds ("?" when unknown)."""
        return "? resources" if self.hidden is None else f"{self.hidden} resources"

    def label(self) -> list[str]:
        """The lines a box shows: name, type, the count of a collapsed nested stack, its
        state."""
        lines = [self.name, self.type]
        if self.collapsed:
            lines.append(self.count)
        if self.state is not None:
            lines.append(self.state)
        return lines


@dataclass(frozen=True, slots=True)
class Level:
    """One stack of the tree: its resources in template order and their edges."""

    path: tuple[str, ...]
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    stack_name: str | None = None
    stack_id: str | None = None
    state: str | None = None


@dataclass(frozen=True, slots=True)
class Graph:
    """The whole tree, drawn to ``depth`` levels of nested stacks."""

    title: str
    top: Level
    depth: int

    def levels(self) -> Iterator[Level]:
        """Every drawn level, depth first (the top one first)."""
        pending = [self.top]
        while pending:
            level = pending.pop()
            yield level
            pending.extend(n.child for n in reversed(level.nodes) if n.child is not None)

    def nodes(self) -> Iterator[Node]:
        for level in self.levels():
            yield from level.nodes

    def edges(self) -> Iterator[Edge]:
        for level in self.levels():
            yield from level.edges


#: the URL a drawn node opens (the dashboard's page of the resource), or None
Link = Callable[[Node], "str | None"]
