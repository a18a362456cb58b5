"""The graph as a standalone SVG document, laid out in Python (`stoker.graph.layout`): no
Graphviz binary is needed.

Made to be embedded and updated by a page (the dashboard of ``stoker serve``): each
resource is a ``<g class="node status-… action-…">`` with a stable ``id``
(`stoker.graph.model.node_id`) and ``data-key``, ``data-name``, ``data-type``,
``data-state``, ``data-stack-id`` attributes; its colours come from the stylesheet by
those classes, so changing a node's classes recolours it. ``link`` gives a node the URL
it opens (an ``<a href>`` around its box). Each edge is a ``<g class="edge reason-…">``
with ``data-source``/``data-target``, its reasons as its tooltip, and as a label where a
stack has few enough edges for labels to stay readable; a legend says what each line
style means.
"""

from __future__ import annotations

import re
from xml.sax.saxutils import escape, quoteattr

from stoker.graph.layout import CHAR, HEADER, MARGIN, Box, Placed, place, text_width
from stoker.graph.model import (
    REASON_NAMES,
    RECORDED,
    Graph,
    Link,
    Node,
    node_id,
    split_state,
)
from stoker.graph.style import EDGE_STYLES, STATUS_COLOURS, colours

#: a stack with more edges than this shows their reasons by line style and tooltip only
LABELLED_EDGES = 60
PAD = 20.0
TITLE = 30.0
LEGEND = 26.0

_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _text(value: str) -> str:
    return escape(_NOT_XML.sub("\ufffd", value))


def _attr(value: str) -> str:
    return quoteattr(_NOT_XML.sub("\ufffd", value))


def _fit(text: str, width: float) -> str:
    room = max(4, int((width - MARGIN) // CHAR))
    return text if len(text) <= room else text[: room - 1] + "\u2026"


def _style() -> str:
    rules = [
        ".stoker-graph text { font-family: Helvetica, Arial, sans-serif; fill: #212121; }",
        ".stoker-graph .title { font-size: 15px; font-weight: bold; }",
        ".node rect { stroke-width: 1.2; }",
        ".node .name { font-size: 12px; font-weight: bold; }",
        ".node .type, .node .count { font-size: 10px; fill: #424242; }",
        ".node.cluster > .body > rect, .node.cluster > a > .body > rect { fill-opacity: 0.35; }",
        ".node.collapsed > .body > rect, .node.collapsed > a > .body > rect { stroke-width: 2.4; }",
        "a:hover > .body > rect, a:focus > .body > rect { stroke-width: 3; }",
        ".edge path { fill: none; stroke-width: 1.3; }",
        ".edge text, .legend text { font-size: 9px; fill: #424242; }",
    ]
    for status, (fill, stroke) in STATUS_COLOURS.items():
        name = "none" if status is None else _slug(status)
        rules.append(
            f".node.status-{name} > .body > rect, .node.status-{name} > a > .body > rect "
            f"{{ fill: {fill}; stroke: {stroke}; }}"
        )
    fill, stroke = STATUS_COLOURS[None]
    for action in ("init", "delete"):
        rules.append(
            f".node.action-{action}.status-complete > .body > rect, "
            f".node.action-{action}.status-complete > a > .body > rect "
            f"{{ fill: {fill}; stroke: {stroke}; }}"
        )
    for reason, (colour, dash, _) in EDGE_STYLES.items():
        dashes = f" stroke-dasharray: {dash};" if dash else ""
        rules.append(f".edge.reason-{reason} path {{ stroke: {colour};{dashes} }}")
    return "\n".join(rules)


def _slug(text: str) -> str:
    return text.lower().replace("_", "-")


def _markers() -> str:
    markers = [
        f'<marker id="arrow-{reason}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
        f'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
        f'fill="{colour}"/></marker>'
        for reason, (colour, _, _) in EDGE_STYLES.items()
    ]
    return "<defs>" + "".join(markers) + "</defs>"


def _classes(node: Node) -> str:
    classes = ["node"]
    if node.state is None:
        classes.append("status-none")
    else:
        action, status = split_state(node.state)
        classes += [f"status-{_slug(status)}", f"action-{_slug(action)}"]
    if node.kind is not None:
        classes += [f"kind-{node.kind}", "cluster" if node.child is not None else "collapsed"]
    return " ".join(classes)


def _data(node: Node) -> str:
    pairs = {
        "id": node_id(node.key),
        "class": _classes(node),
        "data-key": node.key,
        "data-name": node.name,
        "data-type": node.type,
        "data-state": node.state or "",
        "data-stack-id": node.stack_id or "",
        "data-stack-name": node.stack_name or "",
        "data-kind": node.kind or "",
    }
    return " ".join(f"{key}={_attr(value)}" for key, value in pairs.items())


def _body(box: Box, x: float, y: float) -> list[str]:
    node = box.node
    fill, stroke = colours(node.state)
    tip = f"{node.name} ({node.type})" + (f" {node.state}" if node.state else "")
    out = [
        '<g class="body">',
        f"<title>{_text(tip)}</title>",
        f'<rect x="{x:.1f}" y="{y:.1f}" width="{box.width:.1f}" height="{box.height:.1f}" '
        f'rx="6" fill="{fill}" stroke="{stroke}"/>',
    ]
    if box.inner is not None:
        out.append(
            f'<text class="name" x="{x + MARGIN:.1f}" y="{y + HEADER * 0.62:.1f}">'
            f"{_text(_fit(node.title, box.width))}</text>"
        )
    else:
        middle = x + box.width / 2
        lines = [("name", node.name, 17.0), ("type", node.type, 31.0)]
        if node.collapsed:
            lines.append(("count", node.count, 45.0))
        for kind, text, dy in lines:
            out.append(
                f'<text class="{kind}" x="{middle:.1f}" y="{y + dy:.1f}" '
                f'text-anchor="middle">{_text(_fit(text, box.width))}</text>'
            )
    out.append("</g>")
    return out


def _level(placed: Placed, x0: float, y0: float, link: Link | None, out: list[str]) -> None:
    labelled = len(placed.routes) <= LABELLED_EDGES
    for route in placed.routes:
        edge = route.edge
        reason = edge.reasons[0]
        path = " ".join(
            f"{'M' if i == 0 else 'L'}{x + x0:.1f},{y + y0:.1f}"
            for i, (x, y) in enumerate(route.points)
        )
        classes = " ".join(["edge", *(f"reason-{r}" for r in edge.reasons)])
        out.append(
            f"<g class={_attr(classes)} data-source={_attr(edge.source)} "
            f"data-target={_attr(edge.target)}><title>{_text(edge.label)}</title>"
            f'<path d="{path}" marker-end="url(#arrow-{reason})"/>'
        )
        if labelled and len(route.points) >= 2:
            middle = len(route.points) // 2
            (ax, ay), (bx, by) = route.points[middle - 1], route.points[middle]
            out.append(
                f'<text x="{(ax + bx) / 2 + x0 + 3:.1f}" y="{(ay + by) / 2 + y0:.1f}">'
                f"{_text(edge.label)}</text>"
            )
        out.append("</g>")
    for box in placed.boxes:
        x, y = box.x + x0, box.y + y0
        out.append(f"<g {_data(box.node)}>")
        href = link(box.node) if link is not None else None
        body = _body(box, x, y)
        out.extend([f"<a href={_attr(href)}>", *body, "</a>"] if href else body)
        if box.inner is not None:
            out.append('<g class="stack">')
            _level(box.inner, x + MARGIN, y + HEADER, link, out)
            out.append("</g>")
        out.append("</g>")


def _legend(y: float) -> list[str]:
    out = [f'<g class="legend" transform="translate({PAD:.0f},{y:.1f})">']
    x = 0.0
    for reason in (*REASON_NAMES.values(), RECORDED):
        out.append(
            f'<g class="edge reason-{reason}"><path d="M{x:.1f},0 L{x + 28:.1f},0" '
            f'marker-end="url(#arrow-{reason})"/></g>'
            f'<text x="{x + 34:.1f}" y="3">{reason}</text>'
        )
        x += 40 + text_width(reason)
    out.append("</g>")
    return out


def to_svg(graph: Graph, link: Link | None = None) -> str:
    """The SVG document of ``graph``; ``link`` gives the URL a node opens (or None)."""
    placed = place(graph.top)
    width = max(placed.width, 560.0) + 2 * PAD
    height = placed.height + 2 * PAD + TITLE + LEGEND
    top = PAD + TITLE + LEGEND
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="stoker-graph" role="img" '
        f'aria-labelledby="graph-title" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}">',
        f'<title id="graph-title">{_text(graph.title)}</title>',
        f"<style>\n{_style()}\n</style>",
        _markers(),
        f'<text class="title" x="{PAD:.0f}" y="{PAD + 14:.0f}">{_text(graph.title)}</text>',
        *_legend(PAD + TITLE + 6),
    ]
    _level(placed, PAD, top, link, out)
    out.append("</svg>")
    return "\n".join(out) + "\n"
