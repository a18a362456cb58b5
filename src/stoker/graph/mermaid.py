"""The graph as a Mermaid flowchart (``stoker stack graph -f mermaid``), which GitHub and
GitLab render in Markdown.

Mermaid's ids are plain words, so nodes are numbered (``n0``, ``n1`` ...) in the order of
`Graph.nodes`; the resource's name is the label. A nested stack within the chosen depth
is a ``subgraph`` under the facade's id (the parent's edges end at it); a collapsed one
is a subroutine-shaped node. States are classes (``classDef``), reasons link styles.
"""

from __future__ import annotations

from stoker.graph.model import Graph, Level, Node
from stoker.graph.style import EDGE_STYLES, STATUS_COLOURS, drawn_status

_ESCAPES = {'"': "#quot;", "<": "#lt;", ">": "#gt;", "#": "#35;"}


def label(text: str) -> str:
    """Text inside a Mermaid ``"..."`` label (its entity codes for what would end it)."""
    return "".join(_ESCAPES.get(char, char) for char in text)


def _class_name(status: str | None) -> str:
    """The ``classDef`` of a status of `STATUS_COLOURS`."""
    return "neutral" if status is None else status.lower()


def _node_text(node: Node) -> str:
    return "<br/>".join(label(line) for line in node.label())


def to_mermaid(graph: Graph) -> str:
    ids = {node.key: f"n{index}" for index, node in enumerate(graph.nodes())}
    lines = ["flowchart BT"]
    classes: dict[str, list[str]] = {}
    links: dict[str, list[int]] = {}
    edges: list[str] = []

    def level(current: Level, indent: str) -> None:
        for node in current.nodes:
            name = ids[node.key]
            classes.setdefault(_class_name(drawn_status(node.state)), []).append(name)
            if node.child is not None:
                lines.append(f'{indent}subgraph {name} ["{label(node.title)}"]')
                lines.append(f"{indent}  direction BT")
                level(node.child, indent + "  ")
                lines.append(f"{indent}end")
            elif node.collapsed:
                lines.append(f'{indent}{name}[["{_node_text(node)}"]]')
            else:
                lines.append(f'{indent}{name}["{_node_text(node)}"]')
        for edge in current.edges:
            links.setdefault(edge.reasons[0], []).append(len(edges))
            edges.append(f"  {ids[edge.source]} -->|{edge.label}| {ids[edge.target]}")

    level(graph.top, "  ")
    lines.extend(edges)
    for status, (fill, stroke) in STATUS_COLOURS.items():
        lines.append(f"  classDef {_class_name(status)} fill:{fill},stroke:{stroke}")
    for name, members in classes.items():
        lines.append(f"  class {','.join(members)} {name}")
    for reason, indexes in links.items():
        stroke, dash, _ = EDGE_STYLES[reason]
        style = f"stroke:{stroke}" + (f",stroke-dasharray:{dash}" if dash else "")
        lines.append(f"  linkStyle {','.join(map(str, indexes))} {style}")
    return "\n".join(lines) + "\n"
