"""``stoker stack create``: load a template (or compile a blueprint), check it, and create
the stack with live progress; ``--dry-run`` shows the plan instead.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import click

from stoker.cli.loading import load_from_options, template_source
from stoker.cli.options import template_option
from stoker.cli.options_stack import definition_options
from stoker.cli.output import emit_record, report, shown
from stoker.cli.progress import Progress
from stoker.cli.stack_document import show_stack_summary
from stoker.cli.stack_session import Session, blueprint_of
from stoker.definition import StackDefinition, TemplateReads, in_package
from stoker.engine import CreateRequest, Status, failure_line, loading_kept
from stoker.errors import OperationFailed, Rejected
from stoker.template.nodes import plain

if TYPE_CHECKING:
    from stoker.engine import StackEngine


@click.command()
@click.argument("name")
@template_option("The template file.")
@definition_options(
    click.option(
        "--timeout",
        "timeout_mins",
        type=click.IntRange(min=1),
        metavar="MIN",
        help="Fail the stack if creating it takes longer.",
    ),
    click.option("--enable-rollback", is_flag=True, help="Delete what was created on failure."),
    click.option("--tags", default="", help="Comma-separated tags."),
    click.option("--dry-run", is_flag=True, help="Validate and show the plan; create nothing."),
)
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
) -> None:
    """Create stack NAME from a template, showing its progress."""
    reads = TemplateReads()  # the template file and the engine's provider templates
    blueprint = blueprint_of(session, template_file, libraries, reads)
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
        reads=reads,
    )
    definition = result.definition
    report(shown(result.diagnostics, verbose), template_file)
    if not result.ok or definition is None:
        raise Rejected("the template, environment or parameters were rejected")
    recorded = template_source(template_file)
    base_dir = os.path.dirname(recorded)
    if restrict_files:
        session.settings = replace(session.settings, files_root=base_dir)
    engine = session.engine()
    engine.share_reads(reads)
    # the check defines every provider template's subtree, which the engine keeps for
    # the create (`stoker.resolution.subtrees`), and makes almost no cyclic garbage: kept
    # as the load is
    with loading_kept():
        problems = engine.check(definition, base_dir)
    report(shown(problems, verbose), template_file)
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
    progress.follow(engine)
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
    show_stack_summary(record, fmt, columns)
    if not (record.action.value == "CREATE" and record.status is Status.COMPLETE):
        raise OperationFailed(failure_line(session.store, record))


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
