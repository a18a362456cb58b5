"""A stack shown as a document (``openstack stack show``'s): what ``stack show`` prints, and
what create, update and recover print when they end.

In a table, outputs derived from a hidden parameter are shown as ``<sensitive>`` unless
``--show-secrets``; the other formats always show them, as Heat does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from stoker.cli.output import emit_record
from stoker.engine import StackRecord, stack_document, table_outputs

if TYPE_CHECKING:
    from stoker.engine import StackEngine

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
