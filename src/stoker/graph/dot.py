"""The graph in Graphviz's DOT language (``stoker stack graph -f dot``).

Dependencies are drawn bottom-up (``rankdir=BT``): what is created first is at the top,
and each arrow goes from a resource to what it waits for. A nested stack within the
chosen depth is a ``cluster_`` subgraph holding its facade resource (the node the
parent's edges reach; ``lhead``/``ltail`` end them at the cluster's border) and its own
resources; a collapsed one is a single ``box3d`` node.
"""

from __future__ import annotations

from stoker.graph.model import Graph, Level, Node
from stoker.graph.style import EDGE_STYLES, colours


def quoted(text: str) -> str:
    """A DOT double-quoted string."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _node(node: Node, indent: str, shape: str) -> str:
    fill, stroke = colours(node.state)
    attributes = {
        "label": quoted("\n".join(node.label())),
        "shape": shape,
        "fillcolor": quoted(fill),
        "color": quoted(stroke),
    }
    if shape == "box3d":
        attributes["style"] = "filled"
    listed = ", ".join(f"{k}={v}" for k, v in attributes.items())
    return f"{indent}{quoted(node.key)} [{listed}];"


def _level(level: Level, indent: str, lines: list[str]) -> None:
    for node in level.nodes:
        if node.child is None:
            lines.append(_node(node, indent, "box3d" if node.collapsed else "box"))
            continue
        fill, stroke = colours(node.state)
        lines.append(f"{indent}subgraph {quoted('cluster_' + node.key)} {{")
        inner = indent + "  "
        lines.append(f"{inner}label={quoted(node.title)};")
        lines.append(f'{inner}style="rounded"; color={quoted(stroke)};')
        lines.append(_node(node, inner, "folder"))
        _level(node.child, inner, lines)
        lines.append(f"{indent}}}")
    expanded = {n.key for n in level.nodes if n.child is not None}
    for edge in level.edges:
        stroke, _, line = EDGE_STYLES[edge.reasons[0]]
        attributes = [f"label={quoted(edge.label)}", f"color={quoted(stroke)}"]
        if line != "solid":
            attributes.append(f"style={line}")
        if edge.source in expanded:
            attributes.append(f"ltail={quoted('cluster_' + edge.source)}")
        if edge.target in expanded:
            attributes.append(f"lhead={quoted('cluster_' + edge.target)}")
        lines.append(
            f"{indent}{quoted(edge.source)} -> {quoted(edge.target)} [{', '.join(attributes)}];"
        )


def to_dot(graph: Graph) -> str:
    lines = [
        f"digraph {quoted(graph.title)} {{",
        f"  graph [rankdir=BT, compound=true, labelloc=t, label={quoted(graph.title)}];",
        '  node [style="rounded,filled", fontname="Helvetica", fontsize=10];',
        '  edge [fontname="Helvetica", fontsize=8];',
    ]
    _level(graph.top, "  ", lines)
    lines.append("}")
    return "\n".join(lines) + "\n"
