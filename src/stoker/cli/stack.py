"""``stoker stack ...``: the group, show and list, and the options every command shares.

The commands and their output mirror ``openstack stack``. The group's other commands
live in modules of their own, named in `COMMANDS` and imported only when one of them runs
or its help is asked for (`stoker.cli.group.LazyGroup`, as the top-level groups are):
create and update (`stack_create`, `stack_update`), the resources (`stack_resources`),
what a stack recorded (`stack_records`), the other actions (`stack_actions`), drift and
hooks. `stack_session` is what each command works with.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from stoker.cli import detach
from stoker.cli.group import LazyGroup
from stoker.cli.options import engine_options
from stoker.cli.output import emit_rows, record_options
from stoker.cli.stack_document import show_secrets_option, show_stack
from stoker.cli.stack_session import Session, find_stack
from stoker.engine import EngineSettings, stack_row

_ACTIONS = "stoker.cli.stack_actions"
_RECORDS = "stoker.cli.stack_records"
#: name -> (module, attribute, the first paragraph of the command's help): the group's
#: commands but show and list, imported when used (a test checks the help is theirs)
COMMANDS: dict[str, tuple[str, str, str]] = {
    "abandon": (
        _ACTIONS,
        "abandon",
        "Forget NAME but leave its resources: print Heat's abandon document (for ``stack "
        "adopt``), then mark the stack deleted without deleting anything in it.",
    ),
    "adopt": (
        _ACTIONS,
        "adopt",
        "Create stack NAME from an abandon document, taking its resources back as they "
        "are (ADOPT_COMPLETE): nothing is created.",
    ),
    "cancel": (
        _ACTIONS,
        "cancel",
        "Cancel the create or update of NAME that another process is running: it starts "
        "nothing more and ends FAILED (rolled back, for an update, unless --no-rollback).",
    ),
    "check": (
        _ACTIONS,
        "check",
        "Check every resource of NAME (CHECK_COMPLETE, or CHECK_FAILED and exit 1).",
    ),
    "create": (
        "stoker.cli.stack_create",
        "create",
        "Create stack NAME from a template, showing its progress.",
    ),
    "delete": (_ACTIONS, "delete", "Delete stack NAME and everything in it."),
    "drift": (
        "stoker.cli.stack_drift",
        "drift",
        "Compare every resource of NAME with the cloud: IN_SYNC, MODIFIED (each property's "
        "expected and actual value), DELETED, or NOT_CHECKED (with the reason).",
    ),
    "environment": (
        _RECORDS,
        "environment_group",
        "The environment a stack was created with.",
    ),
    "event": (_RECORDS, "event", "Stack events."),
    "export": (
        _ACTIONS,
        "export",
        "Print Heat's export document of NAME (what abandon would print); change nothing.",
    ),
    "graph": (
        _RECORDS,
        "graph",
        "Draw the dependency graph of NAME's resources, coloured by their state.",
    ),
    "hook": (
        "stoker.cli.stack_hooks",
        "hook",
        "Breakpoints (hooks) set in the environment's resource_registry.",
    ),
    "output": (_RECORDS, "output", "Stack outputs."),
    "recover": (
        _ACTIONS,
        "recover",
        "Continue an operation on NAME that was interrupted (its engine died).",
    ),
    "resource": ("stoker.cli.stack_resources", "resource", "Stack resources."),
    "resume": (
        _ACTIONS,
        "resume",
        "Resume the suspended stack NAME (RESUME_COMPLETE). To continue an operation "
        "whose process died, use ``stack recover``.",
    ),
    "signal": (
        _ACTIONS,
        "signal",
        "Send a signal to RESOURCE_NAME of NAME (e.g. a wait condition handle), or --token.",
    ),
    "snapshot": (
        _ACTIONS,
        "snapshot",
        "Stack snapshots (template, environment, files and each resource's data).",
    ),
    "suspend": (
        _ACTIONS,
        "suspend",
        "Suspend NAME: every resource, dependents first (SUSPEND_COMPLETE).",
    ),
    "template": (_RECORDS, "template_group", "The template a stack was created from."),
    "update": (
        "stoker.cli.stack_update",
        "update",
        "Update stack NAME to a new template, environment or parameters (or --dry-run).",
    ),
}

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


def _shared_options(command: click.Command, operation: bool) -> None:
    """Every stack command takes ``--os-cloud`` after its name, and every operation
    (``operation``: a command of the group itself named in `OPERATIONS`)
    ``--wait/--no-wait``: declared here once, added to each command as the group gets it."""
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            _shared_options(sub, operation=False)
        return
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
    if operation:
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


class StackGroup(LazyGroup):
    """The ``stack`` group: each command it gets (show and list here, the others when
    imported) is given the shared options (`_shared_options`)."""

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        super().add_command(cmd, name)
        _shared_options(cmd, operation=cmd.name in OPERATIONS)


@click.group(cls=StackGroup, lazy=COMMANDS)
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
    obj = ctx.obj if isinstance(ctx.obj, dict) else {}
    settings = EngineSettings(
        project=obj.get("project") or "default",
        concurrency=concurrency,
        max_resources_per_stack=max_resources_per_stack,
        max_nested_depth=max_nested_depth,
        lease_seconds=lease_seconds,
    )
    session = ctx.obj = Session(obj.get("db"), settings, os_cloud, ctx)
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
