"""The colours every output gives a resource's state, and the look of each edge reason,
in one place so that the DOT, Mermaid and SVG drawings agree."""

from __future__ import annotations

from stoker.graph.model import split_state

#: status -> (fill, stroke); a template's resources (no state) are drawn neutral
STATUS_COLOURS: dict[str | None, tuple[str, str]] = {
    None: ("#f5f5f5", "#757575"),
    "COMPLETE": ("#dcf5dc", "#2e7d32"),
    "IN_PROGRESS": ("#fff4c2", "#a67c00"),
    "FAILED": ("#fddede", "#c62828"),
}
#: a resource not created yet (INIT_COMPLETE) or deleted: neutral, whatever its status
NEUTRAL_ACTIONS = frozenset({"INIT", "DELETE"})
#: reason -> (stroke, dash pattern or "", Graphviz's name for that line style)
EDGE_STYLES: dict[str, tuple[str, str, str]] = {
    "depends_on": ("#455a64", "6 3", "dashed"),
    "get_resource": ("#455a64", "", "solid"),
    "get_attr": ("#1565c0", "", "solid"),
    "implied": ("#8e24aa", "2 3", "dotted"),
    "recorded": ("#9e9e9e", "2 3", "dotted"),
}


def drawn_status(state: str | None) -> str | None:
    """The status (a key of `STATUS_COLOURS`) a resource in ``state`` (``ACTION_STATUS``
    or None) is drawn as."""
    if state is None:
        return None
    action, status = split_state(state)
    if (action in NEUTRAL_ACTIONS and status == "COMPLETE") or status not in STATUS_COLOURS:
        return None
    return status


def colours(state: str | None) -> tuple[str, str]:
    """(fill, stroke) of a resource in ``state`` (``ACTION_STATUS`` or None)."""
    return STATUS_COLOURS[drawn_status(state)]
