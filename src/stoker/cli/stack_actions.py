"""``stoker stack check|suspend|resume|cancel|abandon|adopt|export|snapshot ...`` and
``stack resource mark-unhealthy``: the other actions of ``openstack stack``, same meaning.

Thin: each command parses, calls the library (`stoker.engine.check`, `.suspend`,
`.cancel`, `.abandon`, `.snapshots`, `.unhealthy`) and prints. An action that ends FAILED
exits 1 with one line naming the stack's status and reason.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Coroutine
from typing import Any

import click

from stoker.cli.output import column_option, emit_record, emit_rows, format_option
from stoker.cli.stack import Session, resource, stack
from stoker.engine.state import StackRecord, Status
from stoker.errors import OperationFailed

#: the columns ``openstack stack suspend|resume|check|cancel`` print
ACTION_COLUMNS = ["id", "stack_name", "stack_status", "creation_time", "updated_time"]


def _time(value: Any) -> str | None:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ") if value is not None else None


def _row(record: StackRecord) -> dict[str, Any]:
    return {
        "id": record.id,
        "stack_name": record.name,
        "stack_status": f"{record.action.value}_{record.status.value}",
        "stack_status_reason": record.status_reason,
        "creation_time": _time(record.created_at),
        "updated_time": _time(record.updated_at),
    }


def _act(
    session: Session,
    name: str,
    run: Callable[[Any], Coroutine[Any, Any, StackRecord]],
    fmt: str,
    columns: tuple[str, ...],
) -> None:
    """Run a stack-wide action with live progress, print the stack's row, and fail (exit
    1) unless it ended COMPLETE."""
    from stoker.cli.progress import Progress

    found = session.store.get_stack(name, session.settings.project)
    count = len(session.store.resources(found.id)) if found is not None else 0
    progress = Progress(count, lookup=session.stack_info)
    engine = session.engine(progress)
    with progress:
        result = asyncio.run(run(engine))
    emit_rows([_row(result)], fmt, columns, ACTION_COLUMNS)
    if result.status is not Status.COMPLETE:
        raise OperationFailed(
            f"{result.name}: {result.action.value}_{result.status.value}: {result.status_reason}"
        )


@stack.command()
@click.argument("name")
@format_option
@column_option
@click.pass_obj
def check(session: Session, name: str, fmt: str, columns: tuple[str, ...]) -> None:
    """Check every resource of NAME (CHECK_COMPLETE, or CHECK_FAILED and exit 1)."""
    from stoker.engine import check as checking

    _act(session, name, lambda engine: checking.check(engine, name), fmt, columns)


@stack.command()
@click.argument("name")
@format_option
@column_option
@click.pass_obj
def suspend(session: Session, name: str, fmt: str, columns: tuple[str, ...]) -> None:
    """Suspend NAME: every resource, dependents first (SUSPEND_COMPLETE)."""
    from stoker.engine import suspend as suspending

    _act(session, name, lambda engine: suspending.suspend(engine, name), fmt, columns)


@stack.command()
@click.argument("name")
@format_option
@column_option
@click.pass_obj
def resume(session: Session, name: str, fmt: str, columns: tuple[str, ...]) -> None:
    """Resume the suspended stack NAME (RESUME_COMPLETE). To continue an operation whose
    process died, use ``stack recover``."""
    from stoker.engine import suspend as suspending

    _act(session, name, lambda engine: suspending.resume(engine, name), fmt, columns)


@stack.command()
@click.argument("name")
@click.option(
    "--no-rollback",
    is_flag=True,
    help="Stop the create or update without rolling back (Heat's cancel_without_rollback).",
)
@format_option
@column_option
@click.pass_obj
def cancel(
    session: Session, name: str, no_rollback: bool, fmt: str, columns: tuple[str, ...]
) -> None:
    """Cancel the create or update of NAME that another process is running: it starts
    nothing more and ends FAILED (rolled back, for an update, unless --no-rollback)."""
    from stoker.engine.cancel import cancel as request_cancel

    record = asyncio.run(request_cancel(session.engine(), name, rollback=not no_rollback))
    emit_rows([_row(record)], fmt, columns, ACTION_COLUMNS)
    click.echo(f"{record.name}: cancel requested", err=True)


@resource.command("mark-unhealthy")
@click.argument("name")
@click.argument("resource_name")
@click.argument("reason", required=False)
@click.option("--reset", is_flag=True, help="Mark the resource healthy again.")
@click.pass_obj
def mark_unhealthy(
    session: Session, name: str, resource_name: str, reason: str | None, reset: bool
) -> None:
    """Mark RESOURCE_NAME of NAME unhealthy (CHECK_FAILED: the next update replaces it)."""
    from stoker.engine.unhealthy import mark_unhealthy as mark

    record = asyncio.run(mark(session.engine(), name, resource_name, not reset, reason))
    click.echo(
        f"{record.name}: {record.action.value}_{record.status.value}: {record.status_reason}",
        err=True,
    )


def _json_document(document: Any) -> str:
    return json.dumps(document, indent=2)


__all__ = ["emit_record"]
