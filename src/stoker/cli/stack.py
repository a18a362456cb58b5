"""``stoker stack ...``: create, inspect, signal, recover and delete stacks.

The commands and their output mirror ``openstack stack``.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import click

from stoker.cli import detach
from stoker.cli.blueprint import library_option
from stoker.cli.options import (
    EVALUATION_LIMITS,
    engine_options,
    environments_option,
    limit_options,
)
from stoker.cli.output import (
    column_option,
    emit_record,
    emit_rows,
    format_option,
    report,
)
from stoker.cli.progress import Progress, StackInfo
from stoker.diagnostics import Diagnostic, Severity
from stoker.engine import (
    EngineSettings,
    EventRecord,
    StackRecord,
    Status,
    Store,
    child_stacks,
    failure_line,
    stack_document,
    stack_row,
    table_outputs,
)
from stoker.errors import OperationFailed, Rejected, StackNotFound
from stoker.store import database_url
from stoker.template.nodes import plain

# The engine, the definition machinery and the resource types are imported by the
# commands that use them: ``stack list`` reads rows and needs none of them.
if TYPE_CHECKING:
    from stoker.cli.blueprint import BlueprintCloud
    from stoker.cli.progress import StackInfo
    from stoker.cloud import Cloud
    from stoker.definition import StackDefinition
    from stoker.engine import StackEngine
    from stoker.resources import ResourceTypeRegistry

_format_option = format_option
_column_option = column_option
show_secrets_option = click.option(
    "--show-secrets",
    is_flag=True,
    help="In the table view, show the values of outputs derived from hidden parameters "
    "(shown as <sensitive> otherwise; -f json|yaml|value always show them, as Heat does).",
)


class Session:
    """What every stack command needs: the store, the engine settings, the registry, and
    the cloud.

    The cloud, in order: ``--os-cloud`` (before or after the subcommand) or ``OS_CLOUD``;
    the cloud the stack was created in (`StackRecord.cloud`, once a command has found the
    stack it works on, `get_stack`); the ``OS_*`` variables. Once opened, the cloud also
    checks custom constraints and answers ``Fn::GetAZs`` (`stoker.cli.clouds`) for the
    rest of the command (``context``)."""

    def __init__(
        self,
        db: str | None,
        settings: EngineSettings,
        os_cloud: str | None = None,
        context: click.Context | None = None,
    ) -> None:
        self.url = database_url(db)
        self.settings = settings
        self._store: Store | None = None
        self._registry: ResourceTypeRegistry | None = None
        self._os_cloud = os_cloud
        self._stored_cloud: str | None = None
        self._cloud: Cloud | None = None
        self._context = context

    @property
    def os_cloud(self) -> str | None:
        """The cloud named by ``--os-cloud`` or ``OS_CLOUD``, else the one the stack was
        created in (None: the OS_* variables, if any)."""
        return self._os_cloud or self._stored_cloud

    def choose(self, name: str) -> None:
        """``--os-cloud NAME`` given after the subcommand: it wins over the group's."""
        if self._cloud is None:
            self._os_cloud = name

    @property
    def cloud_name(self) -> str | None:
        """The clouds.yaml entry in use, to keep with a new stack (None: no cloud, or the
        OS_* variables, which have no name)."""
        cloud = self.cloud
        return cloud.choice.name if cloud is not None else None

    @property
    def cloud(self) -> Cloud | None:
        """The chosen cloud, opened on first use."""
        if self._cloud is None:
            from stoker.cloud.choice import choose_cloud

            choice = choose_cloud(self.os_cloud)
            if choice is not None:
                from stoker.cloud import Cloud

                self._cloud = Cloud(choice, workers=max(8, self.settings.concurrency))
                if self._context is not None:
                    from stoker.cli.clouds import check_against

                    check_against(self._context, self._cloud)
        return self._cloud

    def get_stack(self, name: str) -> StackRecord | None:
        """The stack ``name`` (or id) of the session's project; the cloud it was created
        in becomes the session's unless one is chosen."""
        record = self.store.get_stack(name, self.settings.project)
        if record is not None and record.cloud and self._cloud is None:
            self._stored_cloud = record.cloud
        return record

    def refuse_without_cloud(self, record: StackRecord, doing: str) -> None:
        """Refuse ``doing`` (before anything is done) when the stack, or a stack nested in
        it, has resources of the OpenStack types and no cloud is chosen: as create refuses
        them, saying how to choose one."""
        if self.cloud is not None:
            return
        from stoker.cloud.choice import HOW_TO_CHOOSE
        from stoker.resolution import cloud_type_names

        kinds = cloud_type_names()
        found: list[str] = []
        stacks = [record]
        while stacks:
            current = stacks.pop()
            resources = self.store.resources(current.id)
            found.extend(f"{r.name} ({r.type})" for r in resources if r.type in kinds)
            stacks.extend(child_stacks(self.store, self.settings.project, resources))
        if found:
            shown = ", ".join(found[:3]) + (", ..." if len(found) > 3 else "")
            raise Rejected(
                f"{record.name}: not {doing}: its resources {shown} are in an OpenStack "
                f"cloud and none is chosen: {HOW_TO_CHOOSE}"
            )

    def close(self) -> None:
        """Close the store if it was opened (its connections, a SQLite file's WAL)."""
        if self._store is not None:
            store, self._store = self._store, None
            close = getattr(store, "close", None)  # `SqlStore.close` (not in `Store`)
            if close is not None:
                close()

    @property
    def store(self) -> Store:
        if self._store is None:
            from stoker.store import open_store

            self._store = open_store(self.url)
        return self._store

    @property
    def registry(self) -> ResourceTypeRegistry:
        if self._registry is None:
            from stoker.resources import default_registry

            self._registry = default_registry()
            if self.cloud is not None:
                from stoker.resources import register_openstack

                register_openstack(self._registry, self.cloud)
        return self._registry

    def open_cloud_for(self, definition: StackDefinition) -> None:
        """Open (and authenticate to) the chosen cloud now if the stack uses a cloud type:
        a cloud that cannot be used is refused before the stack is written, not found
        out by its first resource."""
        if self.cloud is None:
            return
        from stoker.resolution import cloud_type_names

        types = {resource.type for resource in definition.template.resources.values()}
        if types & cloud_type_names():
            self.cloud.connection()

    def stack_info(self, stack_id: str) -> StackInfo | None:
        """A stack's parent and size, for progress (which meets nested stacks by id)."""
        found = self.store.get_stack(stack_id, self.settings.project)
        if found is None:
            return None
        # a count, not the rows: the top stack of a 10,000-resource create is looked up
        # too, and reading (and decoding) its rows was a quarter of a second
        count = self.store.count_resources(found.id)
        return StackInfo(found.parent_id, found.parent_resource, count)

    def engine(self, listener: Callable[[EventRecord], None] | None = None) -> StackEngine:
        from stoker.engine import StackEngine

        return StackEngine(self.store, self.registry, self.settings, listener=listener)


def blueprint_of(
    session: Session, template_file: str, libraries: tuple[str, ...] = ()
) -> BlueprintCloud | None:
    """For a template file that is a blueprint (`stack create` and `stack update` compile it
    first): the cloud that answers its requirements, and the session's store and project
    for the stack resources its fulfillments name."""
    from stoker.cli.blueprint import BlueprintCloud, looks_like_blueprint

    if not looks_like_blueprint(template_file):
        return None
    from stoker.blueprint.existing import engine_lookup

    made: list[Any] = []  # the engine is made when a fulfillment names a stack resource

    def existing(reference: Any) -> Any:
        if not made:
            made.append(engine_lookup(session.engine(), session.settings.project))
        return made[0](reference)

    return BlueprintCloud(session.os_cloud, existing, libraries)


def _session(ctx: click.Context) -> Session:
    return ctx.find_object(Session) or ctx.ensure_object(Session)


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


# ---------------------------------------------------------------------------- create
@stack.command()
@click.argument("name")
@click.option(
    "-t",
    "--template",
    "template_file",
    required=True,
    type=click.Path(exists=True, dir_okay=False),
    help="The template file.",
)
@environments_option
@library_option
@click.option(
    "--parameter",
    "parameters",
    multiple=True,
    metavar="KEY=VALUE",
    help="A parameter value; repeatable.",
)
@click.option(
    "--parameter-file",
    "parameter_files",
    multiple=True,
    metavar="KEY=FILE",
    help="A parameter whose value is the content of FILE; repeatable.",
)
@click.option(
    "--timeout",
    "timeout_mins",
    type=click.IntRange(min=1),
    metavar="MIN",
    help="Fail the stack if creating it takes longer.",
)
@click.option("--enable-rollback", is_flag=True, help="Delete what was created on failure.")
@click.option("--tags", default="", help="Comma-separated tags.")
@click.option("--dry-run", is_flag=True, help="Validate and show the plan; create nothing.")
@click.option(
    "--restrict-files",
    is_flag=True,
    help="Let get_file read only files below the template's directory.",
)
@click.option(
    "--verbose",
    is_flag=True,
    help="Also print informational findings: parameter_defaults no template declares "
    "(Heat drops them silently; `stoker lint` reports them too), custom constraints not "
    "checked offline.",
)
@limit_options(*EVALUATION_LIMITS)
@_format_option
@_column_option
@show_secrets_option
@click.pass_obj
def create(
    session: Session,
    name: str,
    template_file: str,
    environments: tuple[str, ...],
    libraries: tuple[str, ...],
    parameters: tuple[str, ...],
    parameter_files: tuple[str, ...],
    timeout_mins: int | None,
    enable_rollback: bool,
    tags: str,
    dry_run: bool,
    restrict_files: bool,
    verbose: bool,
    fmt: str,
    columns: tuple[str, ...],
    show_secrets: bool,
) -> None:
    """Create stack NAME from a template, and show its progress and outputs."""
    from stoker.cli.loading import load_from_options, template_source
    from stoker.definition import in_package
    from stoker.engine import CreateRequest

    blueprint = blueprint_of(session, template_file, libraries)
    if blueprint is not None:
        # the compiled template's providers are in its files map, not beside it on disk
        session.settings = replace(session.settings, files_from_request=True)
    result, explicit = load_from_options(
        template_file,
        environments,
        parameters,
        parameter_files,
        restrict_files,
        require_all=True,
        stack_name=name,
        project_id=session.settings.project,
        blueprint=blueprint,
    )
    definition = result.definition
    report(_shown(result.diagnostics, verbose), template_file)
    if not result.ok or definition is None:
        raise Rejected("the template, environment or parameters were rejected")
    recorded = template_source(template_file)
    base_dir = os.path.dirname(recorded)
    if restrict_files:
        session.settings = replace(session.settings, files_root=base_dir)
    engine = session.engine()
    problems = engine.check(definition, base_dir)
    report(_shown(problems, verbose), template_file)
    if any(d.is_error for d in problems):
        raise Rejected("the stack was not created")
    session.open_cloud_for(definition)
    tag_list = tuple(t.strip() for t in tags.split(",") if t.strip())
    if dry_run:
        emit_record(
            _plan(definition, engine, base_dir),
            fmt if fmt != "table" else "yaml",
            columns,
        )
        return
    progress = Progress(len(definition.enabled), lookup=session.stack_info)
    engine.listener = progress
    request = CreateRequest(
        name=name,
        definition=definition,
        template=plain(definition.template.document.data) or {},
        # a package's registry names its members, never paths to make absolute
        environment=definition.environment.to_data(absolute_paths=not in_package(base_dir)),
        parameters=explicit,
        timeout_mins=timeout_mins,
        disable_rollback=not enable_rollback,
        tags=tag_list,
        template_file=recorded,
        cloud=session.cloud_name,
    )
    with progress:
        record = asyncio.run(engine.create(request))
    show_stack(session, engine, record, fmt, columns, show_secrets)
    if not (record.action.value == "CREATE" and record.status is Status.COMPLETE):
        raise OperationFailed(failure_line(session.store, record))


def _shown(found: list[Diagnostic], verbose: bool) -> list[Diagnostic]:
    """What a create prints: informational findings only when asked (Heat prints nothing
    for them; a TripleO create would list some two hundred parameter_defaults that no
    template declares)."""
    return found if verbose else [d for d in found if d.severity is not Severity.INFO]


def _plan(definition: StackDefinition, engine: StackEngine, base_dir: str) -> dict[str, Any]:
    """The create's plan (every resource added, see `engine.plan`) with its order."""
    assert definition.graph is not None
    plan = engine.plan_create(definition, base_dir)
    return {
        "stack_name": definition.context.stack_name if definition.context else None,
        "resources": [
            {
                "name": d.name,
                "type": d.type,
                "requires": list(definition.graph.requires[d.name]),
                "change": d.change.value,
            }
            for d in plan.decisions.values()
        ],
        "creation_order": definition.graph.levels(),
        "disabled_resources": list(definition.disabled),
    }


# ---------------------------------------------------------------------------- show
def show_stack(
    session: Session,
    engine: StackEngine,
    record: StackRecord,
    fmt: str,
    columns: tuple[str, ...],
    show_secrets: bool = False,
) -> None:
    document = stack_document(engine, record)
    if fmt == "table" and not show_secrets and "outputs" in document:
        document["outputs"] = table_outputs(engine, record, document["outputs"])
    emit_record(document, fmt, columns)


def find_stack(session: Session, name: str) -> StackRecord:
    record = session.get_stack(name)
    if record is None:
        raise StackNotFound(f"The Stack ({name}) could not be found.")
    return record


@stack.command()
@click.argument("name")
@click.option("--no-resolve-outputs", is_flag=True, help="Do not compute the outputs.")
@_format_option
@_column_option
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
    document = stack_document(engine, record, not no_resolve_outputs)
    if fmt == "table" and not show_secrets and "outputs" in document:
        document["outputs"] = table_outputs(engine, record, document["outputs"])
    emit_record(document, fmt, columns)


@stack.command("list")
@click.option("--nested", is_flag=True, help="Include nested stacks.")
@click.option("--deleted", is_flag=True, help="Include deleted stacks.")
@_format_option
@_column_option
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
@_format_option
@_column_option
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
        show_stack(session, engine, result, fmt, columns)
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


def _register_update() -> None:
    """``stack update`` lives in its own module (cli/stack_update.py)."""
    from stoker.cli.stack_update import update

    stack.add_command(update)


_register_update()


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
