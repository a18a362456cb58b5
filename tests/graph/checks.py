"""What every drawing of a graph must be, whatever the graph: the SVG is XML with every
node under its stable id, the DOT parses (pydot's grammar), the Mermaid flowchart is
well formed (every line one of the statements it uses, subgraphs closed, links between
declared nodes)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pydot

from stoker.graph import Graph, node_id

SVG = "{http://www.w3.org/2000/svg}"


def svg_nodes(text: str) -> dict[str, ET.Element]:
    """The SVG's node elements by their ``data-key``; asserts it parses."""
    root = ET.fromstring(text)
    assert root.tag == f"{SVG}svg"
    nodes = {}
    for element in root.iter(f"{SVG}g"):
        if "node" in element.get("class", "").split():
            nodes[element.get("data-key")] = element
    return nodes


def check_svg(graph: Graph, text: str) -> dict[str, ET.Element]:
    nodes = svg_nodes(text)
    assert set(nodes) == {node.key for node in graph.nodes()}
    for node in graph.nodes():
        element = nodes[node.key]
        assert element.get("id") == node_id(node.key)
        assert element.get("data-name") == node.name
        assert element.get("data-type") == node.type
    ids = [e.get("id") for e in ET.fromstring(text).iter() if e.get("id")]
    assert len(ids) == len(set(ids)), "ids are unique"
    return nodes


def check_dot_statements(graph: Graph, text: str) -> None:
    """A cheaper check of a large graph's DOT (pydot's grammar takes ~30 s of CPU for 600
    nodes; the small graphs' tests parse every construct with it): one statement per node
    and edge, braces balanced."""
    lines = [line.strip() for line in text.splitlines()]
    assert lines[0].startswith("digraph ") and lines[-1] == "}"
    assert text.count("{") == text.count("}")
    declared = {
        line.split(" [", 1)[0] for line in lines if line.startswith('"') and "->" not in line
    }
    assert declared == {dot_string(node.key) for node in graph.nodes()}
    assert sum(1 for line in lines if " -> " in line) == len(list(graph.edges()))


def dot_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def check_dot(graph: Graph, text: str) -> pydot.Dot:
    parsed = pydot.graph_from_dot_data(text)
    assert parsed is not None and len(parsed) == 1
    dot = parsed[0]
    names: set[str] = set()
    edges: list[tuple[str, str]] = []

    def walk(current: pydot.Graph) -> None:
        names.update(n.get_name().strip('"') for n in current.get_nodes())
        edges.extend(
            (e.get_source().strip('"'), e.get_destination().strip('"')) for e in current.get_edges()
        )
        for sub in current.get_subgraphs():
            walk(sub)

    walk(dot)
    names -= {"node", "edge", "graph"}  # the default-attribute statements
    assert names == {node.key for node in graph.nodes()}
    assert sorted(edges) == sorted((e.source, e.target) for e in graph.edges())
    return dot


_STATEMENTS = [
    re.compile(r'(?P<node>n\d+)\["(?P<label>[^"]*)"\]'),
    re.compile(r'(?P<node>n\d+)\[\["(?P<label>[^"]*)"\]\]'),
    re.compile(r'subgraph (?P<open>n\d+) \["(?P<label>[^"]*)"\]'),
    re.compile(r"direction BT"),
    re.compile(r"(?P<close>end)"),
    re.compile(r"(?P<source>n\d+) -->\|(?P<reasons>[a-z_, ]+)\| (?P<target>n\d+)"),
    re.compile(r"classDef \w+ fill:#[0-9a-f]{6},stroke:#[0-9a-f]{6}"),
    re.compile(r"class (?P<members>n\d+(,n\d+)*) \w+"),
    re.compile(r"linkStyle (?P<links>\d+(,\d+)*) stroke:#[0-9a-f]{6}(,stroke-dasharray:[\d ]+)?"),
]


def check_mermaid(graph: Graph, text: str) -> None:
    lines = text.splitlines()
    assert lines[0] == "flowchart BT"
    declared: list[str] = []
    links: list[tuple[str, str]] = []
    styled: set[int] = set()
    depth = 0
    for line in lines[1:]:
        match = next((m for p in _STATEMENTS if (m := p.fullmatch(line.strip()))), None)
        assert match is not None, f"not a Mermaid statement: {line!r}"
        found = match.groupdict()
        if found.get("node") or found.get("open"):
            declared.append(found.get("node") or found["open"])
        if found.get("open"):
            depth += 1
        if found.get("close"):
            depth -= 1
            assert depth >= 0
        if found.get("source"):
            links.append((found["source"], found["target"]))
        if found.get("links"):
            styled.update(int(i) for i in found["links"].split(","))
    assert depth == 0, "every subgraph is closed"
    assert len(declared) == len(set(declared)) == len(list(graph.nodes()))
    assert all(a in declared and b in declared for a, b in links)
    assert len(links) == len(list(graph.edges()))
    assert styled == set(range(len(links)))
