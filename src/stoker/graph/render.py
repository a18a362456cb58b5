"""One entry for every output format of the graph (what ``-f`` chooses)."""

from __future__ import annotations

import json

from stoker.graph.data import to_data
from stoker.graph.dot import to_dot
from stoker.graph.mermaid import to_mermaid
from stoker.graph.model import Graph, Link

FORMATS = ("dot", "mermaid", "json", "svg")


def render(graph: Graph, fmt: str, link: Link | None = None) -> str:
    """``graph`` as text in ``fmt`` (one of `FORMATS`); ``link`` is for the SVG's nodes."""
    if fmt == "dot":
        return to_dot(graph)
    if fmt == "mermaid":
        return to_mermaid(graph)
    if fmt == "json":
        return json.dumps(to_data(graph), indent=2) + "\n"
    if fmt == "svg":
        # here: the SVG's layout (grandalf) is imported only when an SVG is drawn
        from stoker.graph.svg import to_svg

        return to_svg(graph, link)
    raise ValueError(f"unknown graph format {fmt!r} (one of {', '.join(FORMATS)})")
