"""Where each node and edge of a `Graph` goes in the SVG: a layered (Sugiyama) layout by
``grandalf``, one stack at a time, inside out.

A nested stack drawn inside its facade is laid out first; its size is then the facade's
size in the parent's layout, so clusters never overlap and no edge crosses a cluster's
border (edges never cross stacks, see `stoker.graph.model`). Within a stack, each
connected part of the graph gets its own layered layout (dependencies on top); resources
that depend on nothing and that nothing depends on (a group's members, most often) are
set in a grid rather than in one endless row; the parts are then packed in rows of about
the width that makes the whole roughly square, so a 600-resource stack stays readable.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from grandalf.graphs import Edge as GEdge
from grandalf.graphs import Graph as GGraph
from grandalf.graphs import Vertex
from grandalf.layouts import SugiyamaLayout
from grandalf.routing import route_with_lines

from stoker.graph.model import Edge, Level, Node

#: pixel sizes: a character of the labels' font (an estimate: no font is measured), a
#: node's padding and height, a cluster's header and inner margin, the gaps
CHAR = 6.6
NODE_HEIGHT = 42.0
COLLAPSED_HEIGHT = 56.0
MIN_WIDTH, MAX_WIDTH = 110.0, 250.0
HEADER = 34.0
MARGIN = 14.0
GAP_X, GAP_Y = 26.0, 46.0
#: the layered layout's crossing-reduction rounds (grandalf's default)
ROUNDS = 1.5

Point = tuple[float, float]


@dataclass(slots=True)
class Box:
    """A node at (``x``, ``y``) (its top left corner, in its level's coordinates)."""

    node: Node
    x: float
    y: float
    width: float
    height: float
    inner: Placed | None = None  # the nested stack drawn inside it


@dataclass(slots=True)
class Route:
    """An edge as a polyline from its source (the resource that waits) to its target."""

    edge: Edge
    points: list[Point]


@dataclass(slots=True)
class Placed:
    """A laid-out level: its size and its boxes and routes."""

    width: float
    height: float
    boxes: list[Box] = field(default_factory=list)
    routes: list[Route] = field(default_factory=list)


def text_width(text: str) -> float:
    return len(text) * CHAR


def _leaf_size(node: Node) -> tuple[float, float]:
    width = max(text_width(node.name), text_width(node.type)) + 2 * MARGIN
    height = COLLAPSED_HEIGHT if node.collapsed else NODE_HEIGHT
    return min(max(width, MIN_WIDTH), MAX_WIDTH), height


@dataclass(slots=True)
class _View:
    """What grandalf reads of a vertex (its size) and writes (its centre, ``xy``)."""

    w: float
    h: float
    xy: Point = (0.0, 0.0)


@dataclass(slots=True)
class _Part:
    """A connected part of a level, laid out on its own: each node's top left corner and
    the routes, relative to the part's own top left corner."""

    width: float
    height: float
    corners: dict[str, Point]
    routes: list[Route]


@dataclass(slots=True)
class _Path:
    """What grandalf writes of an edge: the polyline it routed (``setpath``), ends on the
    nodes' borders (`grandalf.routing.route_with_lines`), and the head's angle."""

    points: list[Point] = field(default_factory=list)
    head_angle: float = 0.0

    def setpath(self, points: list[Point]) -> None:
        self.points = points


def place(level: Level) -> Placed:
    """The layout of ``level`` and of every nested stack drawn inside it."""
    inner = {n.key: place(n.child) for n in level.nodes if n.child is not None}
    sizes: dict[str, tuple[float, float]] = {}
    for node in level.nodes:
        below = inner.get(node.key)
        if below is None:
            sizes[node.key] = _leaf_size(node)
        else:
            header = text_width(node.title) + 2 * MARGIN
            sizes[node.key] = (
                max(below.width + 2 * MARGIN, header, MIN_WIDTH),
                below.height + HEADER + MARGIN,
            )
    parts = _parts(level, sizes)
    offsets, width, height = _pack(parts)
    result = Placed(width, height)
    nodes = {node.key: node for node in level.nodes}
    for part, (dx, dy) in zip(parts, offsets, strict=True):
        for key, (x, y) in part.corners.items():
            w, h = sizes[key]
            result.boxes.append(Box(nodes[key], x + dx, y + dy, w, h, inner.get(key)))
        for route in part.routes:
            points = [(x + dx, y + dy) for x, y in route.points]
            result.routes.append(Route(route.edge, points))
    # in the level's order, whatever order grandalf's sets keep them in
    order = {node.key: index for index, node in enumerate(level.nodes)}
    result.boxes.sort(key=lambda box: order[box.node.key])
    edges = {(edge.source, edge.target): index for index, edge in enumerate(level.edges)}
    result.routes.sort(key=lambda route: edges[(route.edge.source, route.edge.target)])
    return result


def _parts(level: Level, sizes: dict[str, tuple[float, float]]) -> list[_Part]:
    """The connected parts of ``level``, each laid out; the lone nodes as one grid last."""
    vertices: dict[str, Any] = {}
    for node in level.nodes:
        vertex = Vertex(node.key)
        vertex.view = _View(*sizes[node.key])
        vertices[node.key] = vertex
    edges: list[Any] = []
    by_pair: dict[tuple[str, str], Edge] = {}
    for edge in level.edges:
        if edge.source == edge.target or (edge.target, edge.source) in by_pair:
            continue  # no cycle reaches here (the engine refuses one); drawn once
        by_pair[(edge.target, edge.source)] = edge
        # grandalf ranks an edge's first vertex above its second: what is waited for on top
        drawn = GEdge(vertices[edge.target], vertices[edge.source])
        drawn.view = _Path()
        edges.append(drawn)
    graph = GGraph(list(vertices.values()), edges)
    parts: list[_Part] = []
    lone: list[str] = []
    for component in graph.C:
        members = list(component.sV)
        if len(members) == 1:
            lone.append(members[0].data)
            continue
        parts.append(_layered(component, by_pair))
    if lone:
        parts.append(_grid(lone, sizes))
    return parts


def _layered(component: Any, by_pair: dict[tuple[str, str], Edge]) -> _Part:
    layout = SugiyamaLayout(component)
    layout.xspace, layout.yspace = GAP_X, GAP_Y
    layout.route_edge = route_with_lines
    layout.init_all()
    layout.draw(ROUNDS)
    vertices = list(component.sV)
    left = min(v.view.xy[0] - v.view.w / 2 for v in vertices)
    top = min(v.view.xy[1] - v.view.h / 2 for v in vertices)
    right = max(v.view.xy[0] + v.view.w / 2 for v in vertices)
    bottom = max(v.view.xy[1] + v.view.h / 2 for v in vertices)
    corners = {
        v.data: (v.view.xy[0] - v.view.w / 2 - left, v.view.xy[1] - v.view.h / 2 - top)
        for v in vertices
    }
    routes = []
    for drawn in component.sE:
        waited, waiting = drawn.v[0].data, drawn.v[1].data
        points = [(x - left, y - top) for x, y in reversed(drawn.view.points)]
        routes.append(Route(by_pair[(waited, waiting)], points))
    return _Part(right - left, bottom - top, corners, routes)


def _grid(keys: list[str], sizes: dict[str, tuple[float, float]]) -> _Part:
    """Lone nodes in rows of about the square root of their number, in template order."""
    columns = max(1, math.ceil(math.sqrt(len(keys))))
    width = max(sizes[key][0] for key in keys)
    corners: dict[str, Point] = {}
    y = 0.0
    for start in range(0, len(keys), columns):
        row = keys[start : start + columns]
        for index, key in enumerate(row):
            corners[key] = (index * (width + GAP_X), y)
        y += max(sizes[key][1] for key in row) + GAP_Y
    used = min(columns, len(keys))
    return _Part(used * width + (used - 1) * GAP_X, y - GAP_Y, corners, [])


def _pack(parts: list[_Part]) -> tuple[list[Point], float, float]:
    """Each part's offset, in rows no wider than about the square root of the total area
    (or the widest part), and the size of the whole."""
    if not parts:
        return [], MIN_WIDTH, NODE_HEIGHT
    area = sum((p.width + GAP_X) * (p.height + GAP_Y) for p in parts)
    limit = max(max(p.width for p in parts), math.sqrt(area) * 1.6)
    offsets: list[Point] = []
    x = y = row_height = width = 0.0
    for part in parts:
        if x > 0 and x + part.width > limit:
            x, y = 0.0, y + row_height + GAP_Y
            row_height = 0.0
        offsets.append((x, y))
        width = max(width, x + part.width)
        row_height = max(row_height, part.height)
        x += part.width + GAP_X
    return offsets, width, y + row_height
