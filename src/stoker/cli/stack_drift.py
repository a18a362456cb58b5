"""``stoker stack drift``: what changed in the cloud behind a stack's back.

Thin: parses, calls `stoker.engine.drift` (which reads the resources back through the
stack's cloud) and renders one row per resource, or with ``--accept`` stores a
resource's actual values as the stack's. ``stack update --existing --repair`` undoes
the drift instead (`stoker.cli.stack_update`).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import click

from stoker.cli.output import emit_rows, record_options
from stoker.cli.stack_session import Session, find_stack

#: the table's columns (json and yaml show every field, the differences as a list)
COLUMNS = ["resource_name", "resource_type", "drift_status", "differences", "reason"]


def _compact(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def _row(entry: dict[str, Any], table: bool) -> dict[str, Any]:
    """A row; in a table the differences read ``property: expected -> actual``."""
    if not table:
        return entry
    row = dict(entry)
    row["differences"] = "\n".join(
        f"{d['property']}: {_compact(d['expected'])} -> {_compact(d['actual'])}"
        for d in entry["differences"]
    )
    if entry["parent_resource"]:
        row["resource_name"] = f"{entry['parent_resource']}/{entry['resource_name']}"
    return row


@click.command()
@click.argument("name")
@click.option(
    "--nested-depth",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    metavar="N",
    help="Also the resources of nested stacks, N levels down.",
)
@click.option(
    "--accept",
    "accepted",
    multiple=True,
    metavar="RESOURCE",
    help="Store RESOURCE's values as the cloud has them as the stack's (the next drift "
    "shows it in sync); a nested stack's resource by its path (group/0/server); "
    "repeatable.",
)
@record_options
@click.pass_obj
def drift(
    session: Session,
    name: str,
    nested_depth: int,
    accepted: tuple[str, ...],
    fmt: str,
    columns: tuple[str, ...],
) -> None:
    """Compare every resource of NAME with the cloud: IN_SYNC, MODIFIED (each property's
    expected and actual value), DELETED, or NOT_CHECKED (with the reason)."""
    from stoker.engine import accept_drift, detect_drift

    record = find_stack(session, name)
    session.refuse_without_cloud(record, "read back")
    engine = session.engine()
    if accepted:
        found = [asyncio.run(accept_drift(engine, record.id, r)) for r in accepted]
    else:
        found = asyncio.run(detect_drift(engine, record.id, nested_depth))
    rows = [_row(entry.as_dict(), fmt in ("table", "value", "csv")) for entry in found]
    emit_rows(rows, fmt, columns, COLUMNS)
