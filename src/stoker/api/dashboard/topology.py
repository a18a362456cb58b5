"""A stack's topology on its page: the dependency graph's SVG (`stoker.graph`, the one
``stoker stack graph -f svg`` draws), each node opening its resource's page, and each
node's state by its SVG id for the page's poll, which recolours the nodes by their
classes without a reload (`stoker.graph.svg` styles a node by its ``status-``/``action-``
classes)."""

from __future__ import annotations

import logging
from urllib.parse import quote

from stoker.api.dashboard.render import ROOT
from stoker.engine import StackEngine, StackRecord
from stoker.errors import StokerError
from stoker.graph import Node, node_id, stack_graph, to_svg

log = logging.getLogger("stoker.api")

#: the nested stacks drawn inside their resource (deeper ones collapsed to one node;
#: each nested stack has a page of its own)
DEPTH = 1


def _link(node: Node) -> str | None:
    """A node opens its resource's page (in the stack that holds it)."""
    if node.stack_id is None:
        return None
    return f"{ROOT}/stacks/{node.stack_id}/resources/{quote(node.name, safe='')}"


def svg(engine: StackEngine, stack: StackRecord) -> str | None:
    """The SVG of the stack's graph (None for a deleted stack, or one whose stored
    definition cannot be read back: the rest of its page still shows)."""
    if stack.deleted_at is not None:
        return None
    try:
        graph = stack_graph(engine, stack, DEPTH)
    except StokerError as error:
        log.warning("no topology for stack %s: %s", stack.id, error)
        return None
    return to_svg(graph, _link)


def states(engine: StackEngine, stack: StackRecord) -> dict[str, str]:
    """Each drawn node's state (``CREATE_COMPLETE``...; "" before it exists) by its id."""
    if stack.deleted_at is not None:
        return {}
    try:
        graph = stack_graph(engine, stack, DEPTH)
    except StokerError:
        return {}
    return {node_id(node.key): node.state or "" for node in graph.nodes()}
