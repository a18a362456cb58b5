"""``stoker stack delete|recover|check|suspend|resume|cancel|abandon|adopt|export|snapshot
...|signal``: the actions of ``openstack stack`` but create and update, same meaning.

Thin: each command parses, calls the engine's facade (`StackEngine.delete`, `.recover`,
`.check_stack`, `.suspend`, `.resume`, `.cancel`, `.abandon`, `.snapshot`, `.restore`,
`.signal`, ...) and prints. An action that ends FAILED exits 1 with one line naming the
stack's status and reason.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import click

from stoker.cli.options import environments_option, limit_options
from stoker.cli.output import (
    emit_record,
    emit_rows,
    record_options,
    report,
)
from stoker.cli.progress import Progress
from stoker.cli.stack_document import show_stack_summary, status_line
from stoker.cli.stack_session import Session, find_stack
from stoker.engine import StackRecord, Status, snapshot_document, stack_row
from stoker.errors import OperationFailed, Rejected

T = TypeVar("T")

#: the columns ``openstack stack suspend|resume|check|cancel`` print
ACTION_COLUMNS = ["id", "stack_name", "stack_status", "creation_time", "updated_time"]
_ROW = ("id", "stack_name", "stack_status", "stack_status_reason", "creation_time", "updated_time")


def _row(record: StackRecord) -> dict[str, Any]:
    """What an action answers: `stack_row`'s fields but the deletion time, parent and tags."""
    row = stack_row(record)
    return {key: row[key] for key in _ROW}


def _act(
    session: Session,
    name: str,
    run: Callable[[Any], Coroutine[Any, Any, StackRecord]],
    fmt: str,
    columns: tuple[str, ...],
) -> None:
    """Run a stack-wide action with live progress, then `_answer`."""
    _answer(_with_progress(session, session.get_stack(name), run), fmt, columns)


def _with_progress(
    session: Session, record: StackRecord | None, run: Callable[[Any], Coroutine[Any, Any, T]]
) -> T:
    """``run(engine)`` with live progress over every resource of ``record``'s stack (none
    known when it is None: the engine then says the stack is not found)."""
    count = session.store.count_resources(record.id) if record is not None else 0
    progress = Progress(count, lookup=session.stack_info)
    engine = session.engine(progress)
    with progress:
        return asyncio.run(run(engine))


def _answer(result: StackRecord, fmt: str, columns: tuple[str, ...]) -> None:
    """Print the stack's row, and fail (exit 1) unless the action ended COMPLETE."""
    emit_rows([_row(result)], fmt, columns, ACTION_COLUMNS)
    _fail_unless_complete(result)


def _fail_unless_complete(result: StackRecord) -> None:
    """Exit 1, naming the stack's status and reason, unless the action ended COMPLETE."""
    if result.status is not Status.COMPLETE:
        raise OperationFailed(status_line(result))


# ---------------------------------------------------------------------------- delete/recover
@click.command()
@click.argument("name")
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
@click.pass_obj
def delete(session: Session, name: str, yes: bool) -> None:
    """Delete stack NAME and everything in it."""
    record = find_stack(session, name)
    session.refuse_without_cloud(record, "deleted")
    if not yes:
        if not sys.stdin.isatty():
            raise click.UsageError("refusing to delete without confirmation; pass --yes")
        click.confirm(f"Delete stack {record.name} ({record.id})?", abort=True)
    result = _with_progress(session, record, lambda engine: engine.delete(record.id))
    _fail_unless_complete(result)
    click.echo(status_line(result), err=True)


@click.command()
@click.argument("name")
@record_options
@limit_options("depth", "value_size", "total_value_size", "resources")
@click.pass_obj
def recover(session: Session, name: str, fmt: str, columns: tuple[str, ...]) -> None:
    """Continue an operation on NAME that was interrupted (its engine died)."""
    record = find_stack(session, name)
    result = _with_progress(session, record, lambda engine: engine.recover(record.id))
    status = f"{result.name}: {result.action.value}_{result.status.value}"
    if result.deleted_at is None and result.action.value != "DELETE":
        # the short view the create or update it continued would have printed
        show_stack_summary(result, fmt, columns)
    elif result.status is Status.COMPLETE:
        click.echo(status, err=True)
    if result.status is not Status.COMPLETE:
        raise OperationFailed(status)


# ---------------------------------------------------------------------------- the others
@click.command()
@click.argument("name")
@record_options
@click.pass_obj
def check(session: Session, name: str, fmt: str, columns: tuple[str, ...]) -> None:
    """Check every resource of NAME (CHECK_COMPLETE, or CHECK_FAILED and exit 1)."""
    _act(session, name, lambda engine: engine.check_stack(name), fmt, columns)


@click.command()
@click.argument("name")
@record_options
@click.pass_obj
def suspend(session: Session, name: str, fmt: str, columns: tuple[str, ...]) -> None:
    """Suspend NAME: every resource, dependents first (SUSPEND_COMPLETE)."""
    _act(session, name, lambda engine: engine.suspend(name), fmt, columns)


@click.command()
@click.argument("name")
@record_options
@click.pass_obj
def resume(session: Session, name: str, fmt: str, columns: tuple[str, ...]) -> None:
    """Resume the suspended stack NAME (RESUME_COMPLETE). To continue an operation whose
    process died, use ``stack recover``."""
    _act(session, name, lambda engine: engine.resume(name), fmt, columns)


@click.command()
@click.argument("name")
@click.option(
    "--no-rollback",
    is_flag=True,
    help="Stop the create or update without rolling back (Heat's cancel_without_rollback).",
)
@record_options
@click.pass_obj
def cancel(
    session: Session, name: str, no_rollback: bool, fmt: str, columns: tuple[str, ...]
) -> None:
    """Cancel the create or update of NAME that another process is running: it starts
    nothing more and ends FAILED (rolled back, for an update, unless --no-rollback)."""
    record = asyncio.run(session.engine().cancel(name, rollback=not no_rollback))
    emit_rows([_row(record)], fmt, columns, ACTION_COLUMNS)
    click.echo(f"{record.name}: cancel requested", err=True)


def _write_document(document: Any, output_file: str | None) -> None:
    text = json.dumps(document, indent=2)
    if output_file is None:
        click.echo(text)
        return
    with open(output_file, "w", encoding="utf-8") as handle:
        handle.write(text + "\n")
    click.echo(f"wrote {output_file}", err=True)


_output_file_option = click.option(
    "--output-file",
    type=click.Path(dir_okay=False, writable=True),
    help="Write the JSON document to this file instead of standard output.",
)


@click.command()
@click.argument("name")
@_output_file_option
@click.pass_obj
def export(session: Session, name: str, output_file: str | None) -> None:
    """Print Heat's export document of NAME (what abandon would print); change nothing."""
    _write_document(asyncio.run(session.engine().export(name)), output_file)


@click.command()
@click.argument("name")
@_output_file_option
@click.pass_obj
def abandon(session: Session, name: str, output_file: str | None) -> None:
    """Forget NAME but leave its resources: print Heat's abandon document (for ``stack
    adopt``), then mark the stack deleted without deleting anything in it."""
    _write_document(asyncio.run(session.engine().abandon(name)), output_file)


@click.command()
@click.argument("name")
@click.option(
    "--adopt-file",
    required=True,
    type=click.Path(exists=True, dir_okay=False),
    help="The abandon document (what `stack abandon` printed).",
)
@environments_option
@click.option("--parameter", "parameters", multiple=True, metavar="KEY=VALUE", help="Repeatable.")
@record_options
@click.pass_obj
def adopt(
    session: Session,
    name: str,
    adopt_file: str,
    environments: tuple[str, ...],
    parameters: tuple[str, ...],
    fmt: str,
    columns: tuple[str, ...],
) -> None:
    """Create stack NAME from an abandon document, taking its resources back as they are
    (ADOPT_COMPLETE): nothing is created."""
    from stoker.cli.loading import parameter_values
    from stoker.engine import load_adoption

    try:
        with open(adopt_file, encoding="utf-8") as handle:
            data = json.load(handle)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise click.BadParameter(f"not JSON: {error}", param_hint="--adopt-file") from None
    if not isinstance(data, dict):
        raise click.BadParameter(
            "not an abandon document (a JSON object)", param_hint="--adopt-file"
        )
    values = parameter_values(parameters, ())
    adoption = load_adoption(name, data, os.path.abspath(adopt_file), environments, values)
    report(adoption.diagnostics, adopt_file)
    if adoption.definition is None or any(d.is_error for d in adoption.diagnostics):
        raise Rejected("the adopt document, environment or parameters were rejected")
    progress = Progress(len(adoption.definition.enabled), lookup=session.stack_info)
    engine = session.engine(progress)
    base_dir = os.path.dirname(os.path.abspath(adopt_file))
    with progress:
        result = asyncio.run(engine.adopt(adoption, base_dir, os.path.abspath(adopt_file)))
    # the short view, as `openstack stack adopt` (and create) print it, not an action's row
    show_stack_summary(result, fmt, columns)
    _fail_unless_complete(result)


# ---------------------------------------------------------------------------- snapshots
@click.group()
def snapshot() -> None:
    """Stack snapshots (template, environment, files and each resource's data)."""


SNAPSHOT_COLUMNS = ["id", "name", "status", "status_reason", "creation_time"]


@snapshot.command("create")
@click.argument("name")
@click.option("--name", "snapshot_name", help="A name for the snapshot.")
@record_options
@click.pass_obj
def snapshot_create(
    session: Session, name: str, snapshot_name: str | None, fmt: str, columns: tuple[str, ...]
) -> None:
    """Snapshot stack NAME."""
    found = session.get_stack(name)
    made = _with_progress(session, found, lambda engine: engine.snapshot(name, snapshot_name))
    shown = snapshot_document(made)
    emit_record({k: v for k, v in shown.items() if k != "data"}, fmt, columns)
    if made.status != Status.COMPLETE.value:
        raise OperationFailed(f"snapshot {made.id}: {made.status}: {made.status_reason}")


@snapshot.command("list")
@click.argument("name")
@record_options
@click.pass_obj
def snapshot_list(session: Session, name: str, fmt: str, columns: tuple[str, ...]) -> None:
    """List the snapshots of NAME."""
    found = asyncio.run(session.engine().snapshots(name))
    emit_rows([snapshot_document(s) for s in found], fmt, columns, SNAPSHOT_COLUMNS)


@snapshot.command("show")
@click.argument("name")
@click.argument("snapshot_id")
@record_options
@click.pass_obj
def snapshot_show(
    session: Session, name: str, snapshot_id: str, fmt: str, columns: tuple[str, ...]
) -> None:
    """Show snapshot SNAPSHOT_ID (or its name) of NAME, with its data."""
    found = asyncio.run(session.engine().find_snapshot(name, snapshot_id))
    emit_record(snapshot_document(found), fmt, columns)


@snapshot.command("delete")
@click.argument("name")
@click.argument("snapshot_id")
@click.pass_obj
def snapshot_delete(session: Session, name: str, snapshot_id: str) -> None:
    """Delete snapshot SNAPSHOT_ID (or its name) of NAME."""
    gone = asyncio.run(session.engine().delete_snapshot(name, snapshot_id))
    click.echo(f"deleted snapshot {gone.id}", err=True)


@snapshot.command("restore")
@click.argument("name")
@click.argument("snapshot_id")
@record_options
@click.pass_obj
def snapshot_restore(
    session: Session, name: str, snapshot_id: str, fmt: str, columns: tuple[str, ...]
) -> None:
    """Restore NAME to snapshot SNAPSHOT_ID (or its name): an update to its definition."""
    _act(session, name, lambda engine: engine.restore(name, snapshot_id), fmt, columns)


# ---------------------------------------------------------------------------- signal
@click.command()
@click.argument("name", required=False)
@click.argument("resource_name", required=False)
@click.option(
    "--token",
    help="Signal the wait condition handle holding this token (its token attribute) "
    "instead of naming the stack and resource.",
)
@click.option(
    "--data",
    "--data-binary",
    "data",
    help="The signal as JSON (--data-binary too, as curl-style scripts write it).",
)
@click.option(
    "--data-file", type=click.Path(exists=True, dir_okay=False), help="Read the JSON from a file."
)
@click.pass_obj
def signal(
    session: Session,
    name: str | None,
    resource_name: str | None,
    token: str | None,
    data: str | None,
    data_file: str | None,
) -> None:
    """Send a signal to RESOURCE_NAME of NAME (e.g. a wait condition handle), or --token."""
    if token is None and not (name and resource_name):
        raise click.UsageError("give NAME and RESOURCE_NAME, or --token")
    if data_file:
        with open(data_file, encoding="utf-8") as handle:
            data = handle.read()
    try:
        details = json.loads(data) if data else None
    except json.JSONDecodeError as error:
        raise click.BadParameter(f"not JSON: {error}", param_hint="--data") from None
    if token is not None:
        asyncio.run(session.engine().signal_with_token(token, details))
    else:
        assert name is not None and resource_name is not None
        asyncio.run(session.engine().signal(name, resource_name, details))
