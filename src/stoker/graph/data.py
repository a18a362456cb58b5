"""The graph as plain data (``-f json``): every drawn node and edge, flat, each node with
the key of the cluster that holds it (``parent``)."""

from __future__ import annotations

from typing import Any

from stoker.graph.model import Graph, Node, node_key


def _node(node: Node) -> dict[str, Any]:
    parent = node_key(node.path[:-1], node.path[-1]) if node.path else None
    return {
        "key": node.key,
        "name": node.name,
        "type": node.type,
        "path": list(node.path),
        "parent": parent,
        "state": node.state,
        "stack_name": node.stack_name,
        "stack_id": node.stack_id,
        "kind": node.kind,
        "collapsed": node.collapsed,
        "hidden_resources": node.hidden if node.collapsed else None,
    }


def to_data(graph: Graph) -> dict[str, Any]:
    return {
        "title": graph.title,
        "nested_depth": graph.depth,
        "nodes": [_node(node) for node in graph.nodes()],
        "edges": [
            {"source": e.source, "target": e.target, "reasons": list(e.reasons)}
            for e in graph.edges()
        ],
    }
