"""A stack's topology on its page: the dependency graph's SVG (`stoker.graph`), each
node opening its resource's page, and each node's state by its SVG id for the page's
poll (which recolours the nodes by their classes, without a reload)."""

from __future__ import annotations

from typing import Any

from stoker.engine.stacks import StackEngine
from stoker.engine.state import StackRecord


def svg(engine: StackEngine, stack: StackRecord) -> str | None:
    """The SVG (None: the graph library is not there yet)."""
    return None


def states(engine: StackEngine, stack: StackRecord) -> dict[str, Any]:
    return {}
