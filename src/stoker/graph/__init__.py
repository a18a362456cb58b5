"""The dependency graph of a stack tree, drawn: ``stoker stack graph``, ``stoker template
graph`` and the topology of the dashboard of ``stoker serve``.

Public surface:

- `template_graph` (a template and its environment, before the stack exists: from the
  definition and the tree check's nested definitions) and `stack_graph` (a stored stack,
  each resource with its state): the `Graph` model (`Level`, `Node`, `Edge`), nested
  stacks as clusters down to a chosen depth, collapsed below it;
- `render` in one of `FORMATS`: ``dot`` (Graphviz), ``mermaid``, ``json`` (plain data:
  `to_data`) and ``svg`` (laid out here by ``grandalf``: `to_svg`, whose nodes carry
  stable ids, `node_id`, state classes and optional links).

The edges and their reasons are the engine's (`stoker.definition.edges.EdgeReason`).
Names are imported from their modules on first use: the SVG's layout library is imported
only when an SVG is drawn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stoker.lazy import names_from

if TYPE_CHECKING:
    from stoker.graph.build import stack_graph, template_graph
    from stoker.graph.data import to_data
    from stoker.graph.dot import to_dot
    from stoker.graph.mermaid import to_mermaid
    from stoker.graph.model import Edge, Graph, Level, Node, node_id, node_key
    from stoker.graph.render import FORMATS, render
    from stoker.graph.svg import to_svg

_WHERE = {
    "Edge": "stoker.graph.model",
    "FORMATS": "stoker.graph.render",
    "Graph": "stoker.graph.model",
    "Level": "stoker.graph.model",
    "Node": "stoker.graph.model",
    "node_id": "stoker.graph.model",
    "node_key": "stoker.graph.model",
    "render": "stoker.graph.render",
    "stack_graph": "stoker.graph.build",
    "template_graph": "stoker.graph.build",
    "to_data": "stoker.graph.data",
    "to_dot": "stoker.graph.dot",
    "to_mermaid": "stoker.graph.mermaid",
    "to_svg": "stoker.graph.svg",
}

__all__ = [
    "Edge",
    "FORMATS",
    "Graph",
    "Level",
    "Node",
    "node_id",
    "node_key",
    "render",
    "stack_graph",
    "template_graph",
    "to_data",
    "to_dot",
    "to_mermaid",
    "to_svg",
]

__getattr__ = names_from(__name__, _WHERE)
