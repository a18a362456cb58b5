"""``stoker stack ...``: the group, and show, list, delete, recover and signal.

The commands and their output mirror ``openstack stack``. The group's other commands
live in modules of their own and register themselves on it: create and update
(`stack_create`, `stack_update`), the records (`stack_records`), the other actions
(`stack_actions`), drift and hooks; `stack_session` is what each command works with.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import click

from stoker.cli import detach
from stoker.cli.options import engine_options, limit_options
from stoker.cli.output import emit_rows, record_options
from stoker.cli.progress import Progress
from stoker.cli.stack_document import show_secrets_option, show_stack, show_stack_summary
from stoker.cli.stack_session import Session, find_stack
from stoker.engine import EngineSettings, Status, stack_row
from stoker.errors import OperationFailed


@click.group()
@engine_options("max_resources_per_stack", "concurrency", "max_nested_depth", "lease_seconds")
@click.option(
    "--os-cloud",
    envvar="OS_CLOUD",
    metavar="NAME",
    help="The cloud the OpenStack resource types use: an entry of clouds.yaml "
    "(default: $OS_CLOUD; without either, the OS_* variables describe the cloud).",
)
@click.pass_context
def stack(
    ctx: click.Context,
    max_resources_per_stack: int,
    concurrency: int,
    max_nested_depth: int,
    lease_seconds: float,
    os_cloud: str | None,
) -> None:
    """Create, inspect and delete stacks."""
    db = ctx.obj.get("db") if isinstance(ctx.obj, dict) else None
    project = ctx.obj.get("project") if isinstance(ctx.obj, dict) else None
    settings = EngineSettings(
        project=project or "default",
        concurrency=concurrency,
        max_resources_per_stack=max_resources_per_stack,
        max_nested_depth=max_nested_depth,
        lease_seconds=lease_seconds,
    )
    session = ctx.obj = Session(db, settings, os_cloud, ctx)
    # closed with the command, not whenever the garbage collector frees the session: a
    # SQLite file is left without its -wal and -shm files as soon as the command ends
    ctx.call_on_close(session.close)


@stack.command()
@click.argument("name")
@click.option("--no-resolve-outputs", is_flag=True, help="Do not compute the outputs.")
@record_options
@show_secrets_option
@click.pass_obj
def show(
    session: Session,
    name: str,
    no_resolve_outputs: bool,
    fmt: str,
    columns: tuple[str, ...],
    show_secrets: bool,
) -> None:
    """Show stack NAME (or id)."""
    record = find_stack(session, name)
    engine = session.engine()
    show_stack(engine, record, fmt, columns, show_secrets, not no_resolve_outputs)


@stack.command("list")
@click.option("--nested", is_flag=True, help="Include nested stacks.")
@click.option("--deleted", is_flag=True, help="Include deleted stacks.")
@record_options
@click.pass_obj
def list_stacks(
    session: Session, nested: bool, deleted: bool, fmt: str, columns: tuple[str, ...]
) -> None:
    """List stacks."""
    records = session.store.list_stacks(
        session.settings.project, include_nested=nested, include_deleted=deleted
    )
    rows = [stack_row(r) for r in records]
    emit_rows(
        rows, fmt, columns, ["id", "stack_name", "stack_status", "creation_time", "updated_time"]
    )


# ---------------------------------------------------------------------------- delete/recover
@stack.command()
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
    progress = Progress(session.store.count_resources(record.id), lookup=session.stack_info)
    engine = session.engine(progress)
    with progress:
        result = asyncio.run(engine.delete(record.id))
    status = f"{result.action.value}_{result.status.value}"
    if result.status is not Status.COMPLETE:
        raise OperationFailed(f"{result.name}: {status}: {result.status_reason}")
    click.echo(f"{result.name}: {status}: {result.status_reason}", err=True)


@stack.command()
@click.argument("name")
@record_options
@limit_options("depth", "value_size", "total_value_size", "resources")
@click.pass_obj
def recover(session: Session, name: str, fmt: str, columns: tuple[str, ...]) -> None:
    """Continue an operation on NAME that was interrupted (its engine died)."""
    record = find_stack(session, name)
    progress = Progress(session.store.count_resources(record.id), lookup=session.stack_info)
    engine = session.engine(progress)
    with progress:
        result = asyncio.run(engine.recover(record.id))
    status = f"{result.name}: {result.action.value}_{result.status.value}"
    if result.deleted_at is None and result.action.value != "DELETE":
        # the short view the create or update it continued would have printed
        show_stack_summary(result, fmt, columns)
    elif result.status is Status.COMPLETE:
        click.echo(status, err=True)
    if result.status is not Status.COMPLETE:
        raise OperationFailed(status)


# ---------------------------------------------------------------------------- signal
@stack.command()
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
    default=None,
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


def _register_create_and_update() -> None:
    """``stack create`` and ``stack update`` live in their own modules
    (cli/stack_create.py, cli/stack_update.py)."""
    from stoker.cli.stack_create import create
    from stoker.cli.stack_update import update

    stack.add_command(create)
    stack.add_command(update)


_register_create_and_update()


# What a stack recorded (outputs, resources, events, its template and environment), and
# the other stack actions (check, drift, suspend/resume, cancel, abandon/adopt, export,
# snapshots, resource mark-unhealthy) and the hooks, register themselves on the group above.
from stoker.cli import stack_actions as _stack_actions  # noqa: E402, F401
from stoker.cli import stack_drift as _stack_drift  # noqa: E402, F401
from stoker.cli import stack_hooks as _stack_hooks  # noqa: E402, F401
from stoker.cli import stack_records as _stack_records  # noqa: E402, F401

# ---------------------------------------------------------------------------- shared options
#: the commands that run an operation (``openstack stack ... --wait`` has them)
OPERATIONS = frozenset(
    {"create", "update", "delete", "recover", "check", "suspend", "resume", "cancel", "adopt"}
)


def _cloud_after_subcommand(ctx: click.Context, _param: click.Parameter, value: Any) -> None:
    """``--os-cloud`` given after the subcommand: the session's cloud (it wins over the
    group's; ``$OS_CLOUD`` alone is the group's default already). Then the cloud is opened,
    so custom constraints are checked against it while the template loads."""
    session = ctx.find_object(Session)
    if session is None:
        return
    if value and ctx.get_parameter_source("os_cloud") is click.core.ParameterSource.COMMANDLINE:
        session.choose(value)
    _ = session.cloud


def _wait(ctx: click.Context, _param: click.Parameter, value: Any) -> None:
    """``--wait`` (what ``openstack stack`` users type): stoker always waits, a no-op.
    ``--no-wait``: start the operation in a detached process and return once it is under
    way (`stoker.cli.detach`)."""
    if value is not False:
        return

    if detach.is_detached_child():
        return
    status, line = detach.run_detached(sys.argv)
    if line:
        click.echo(
            f"{line}; it continues in the background: stoker stack show, or "
            "stack event list --follow",
            err=True,
        )
    ctx.exit(status)


def _shared_options(group: click.Group) -> None:
    """Every stack command takes ``--os-cloud`` after its name, and every operation
    ``--wait/--no-wait``: declared here once, added to each command of the group."""
    for command in group.commands.values():
        if isinstance(command, click.Group):
            _shared_options(command)
            continue
        command.params.append(
            click.Option(
                ["--os-cloud"],
                envvar="OS_CLOUD",
                metavar="NAME",
                expose_value=False,
                callback=_cloud_after_subcommand,
                help="The cloud the OpenStack resource types use (as before the "
                "subcommand): an entry of clouds.yaml; default $OS_CLOUD, else the cloud "
                "the stack was created in, else the OS_* variables.",
            )
        )
        if command.name in OPERATIONS and group is stack:
            command.params.append(
                click.Option(
                    ["--wait/--no-wait"],
                    default=None,
                    expose_value=False,
                    callback=_wait,
                    help="--wait: wait for the operation to end (stoker always does; "
                    "accepted as openstack stack takes it). --no-wait: return once it has "
                    "started, and let it run on in a detached process.",
                )
            )


_shared_options(stack)
