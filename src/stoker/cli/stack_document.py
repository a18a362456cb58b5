"""A stack shown as a document: the full view ``stack show`` prints (``openstack stack
show``'s), and the short view create, update, adopt and recover print when they end
(``openstack stack create|update|adopt``'s).

In a table, outputs derived from a hidden parameter are shown as ``<sensitive>`` unless
``--show-secrets``; the other formats always show them, as Heat does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from stoker.cli.output import emit_record
from stoker.engine import StackRecord, stack_document, stack_summary, table_outputs

if TYPE_CHECKING:
    from stoker.engine import ResourceRecord, StackEngine

show_secrets_option = click.option(
    "--show-secrets",
    is_flag=True,
    help="In the table view, show the values of outputs derived from hidden parameters "
    "(shown as <sensitive> otherwise; -f json|yaml|value always show them, as Heat does).",
)


def show_stack(
    engine: StackEngine,
    record: StackRecord,
    fmt: str,
    columns: tuple[str, ...],
    show_secrets: bool = False,
    resolve_outputs: bool = True,
) -> None:
    """The stack's document in ``fmt`` (``resolve_outputs=False``: without computing the
    outputs, ``stack show --no-resolve-outputs``)."""
    document = stack_document(engine, record, resolve_outputs)
    if fmt == "table" and not show_secrets and "outputs" in document:
        document["outputs"] = table_outputs(engine, record, document["outputs"])
    emit_record(document, fmt, columns)


def show_stack_summary(record: StackRecord, fmt: str, columns: tuple[str, ...]) -> None:
    """The stack's short view in ``fmt`` (`stoker.engine.stack_summary`): what an operation
    that made or changed the stack prints when it ends, as the OpenStack client does; the
    outputs are read with ``stack output show`` or ``stack show``."""
    emit_record(stack_summary(record), fmt, columns)


def status_line(record: StackRecord | ResourceRecord) -> str:
    """``NAME: ACTION_STATUS: reason``: how an action on a stack (or resource) ended."""
    return f"{record.name}: {record.action.value}_{record.status.value}: {record.status_reason}"
