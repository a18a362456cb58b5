"""``stoker stack update``: change a stack to a new definition, as ``openstack stack update``.

Parses the options, builds the new definition (``--existing`` keeps what the stack runs
from, see `stoker.engine.update_request.prepare_update`, which the REST API's update
calls too), and calls the engine; the plan (``--dry-run``) and the stack document are the
library's views.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import replace
from typing import TYPE_CHECKING

import click

from stoker.cli.loading import package_inputs, parameter_values, template_source
from stoker.cli.options import template_option
from stoker.cli.options_stack import definition_options
from stoker.cli.output import emit_record, emit_rows, report, shown
from stoker.cli.progress import Progress
from stoker.cli.stack_document import show_stack_summary
from stoker.cli.stack_session import Session, blueprint_of, find_stack
from stoker.definition import LoadOptions, RequestInputs, in_package
from stoker.engine import (
    UpdateChanges,
    UpdateFiles,
    failure_line,
    loading_kept,
    prepare_update,
    update_preview,
)
from stoker.errors import OperationFailed, Rejected
from stoker.limits import active_limits
from stoker.template.loader import LoadLimits

if TYPE_CHECKING:  # the drift engine is imported by --repair alone
    from stoker.engine import DriftRepair, ResourceRecord


@click.command()
@click.argument("name")
@template_option(
    "The new template file (with --existing: the stored one when not given).", required=False
)
@definition_options(
    click.option(
        "--existing",
        is_flag=True,
        help="Keep the stored template, environment, files and parameters unless given "
        "(Heat's PATCH): new environments merge over the stored one, new parameters over "
        "the stored ones.",
    ),
    click.option(
        "--clear-parameter",
        "clear_parameters",
        multiple=True,
        metavar="KEY",
        help="With --existing: forget the stored value of KEY (its default applies); "
        "repeatable. Without --existing nothing is stored to forget: ignored, as by Heat.",
    ),
    click.option(
        "--rollback",
        type=click.Choice(["enabled", "disabled", "keep"]),
        default="keep",
        show_default=True,
        help="Roll back to the previous definition on failure (keep: as the stack says).",
    ),
    click.option(
        "--timeout",
        "timeout_mins",
        type=click.IntRange(min=1),
        metavar="MIN",
        help="Fail the update if it takes longer (default: the stack's timeout).",
    ),
    click.option("--tag", "tag_list", multiple=True, help="A tag (replaces the stack's tags)."),
    click.option("--tags", help="Comma-separated tags (replace the stack's tags)."),
    click.option("--dry-run", is_flag=True, help="Show what would change; change nothing."),
    click.option(
        "--repair",
        is_flag=True,
        help="With --existing: bring the resources that drifted in the cloud back to the "
        "template (see stack drift), nested stacks' too: in place where the type allows, "
        "replaced otherwise, a deleted one made again; a volume extended by hand is left as "
        "it is (Cinder cannot shrink it), with a warning.",
    ),
    click.option(
        "--show-nested",
        is_flag=True,
        help="With --dry-run: also what changes inside the nested stacks the update updates.",
    ),
)
@click.pass_obj
def update(
    session: Session,
    name: str,
    template_file: str | None,
    environments: tuple[str, ...],
    libraries: tuple[str, ...],
    parameters: tuple[str, ...],
    parameter_files: tuple[str, ...],
    existing: bool,
    clear_parameters: tuple[str, ...],
    rollback: str,
    timeout_mins: int | None,
    tag_list: tuple[str, ...],
    tags: str | None,
    dry_run: bool,
    repair: bool,
    show_nested: bool,
    restrict_files: bool,
    verbose: bool,
    fmt: str,
    columns: tuple[str, ...],
) -> None:
    """Update stack NAME to a new template, environment or parameters (or --dry-run)."""
    if show_nested and not dry_run:
        raise click.UsageError("--show-nested needs --dry-run")
    if repair and not existing:
        raise click.UsageError("--repair needs --existing")
    if template_file is None and not existing:
        raise click.UsageError("give the new template (-t TEMPLATE), or --existing to keep it")
    # As `stack create`'s load (`stoker.cli.loading.load_from_options`): the collector is
    # paused while the stack's stored definition is read and the new one loaded and
    # checked, and what they are is kept for the rest of the command (before the
    # collector runs again); otherwise collections walk the growing definitions again and
    # again (young, middle and full passes over a 10,000-resource template)
    with loading_kept():
        current = find_stack(session, name)
        values = parameter_values(parameters, parameter_files)
        given = template_file or current.template_file or f"<stack {current.name}>"
        blueprint = blueprint_of(session, template_file, libraries) if template_file else None
        source: RequestInputs | UpdateFiles
        if blueprint is not None:
            # compiled first, as by `stack create` (the providers are in the files map)
            assert template_file is not None
            session.settings = replace(session.settings, files_from_request=True)
            source = blueprint.request(template_file, environments, values)
        elif template_file is not None and template_file.lower().endswith(".zip"):
            # a package: its members are the request's files, as through the API
            source = package_inputs(template_file, environments, values)
        else:
            source = UpdateFiles(template_file, environments, values)
        recorded = template_source(template_file) if template_file else current.template_file
        base_dir = os.path.dirname(recorded) if recorded else None
        if restrict_files and base_dir:
            session.settings = replace(session.settings, files_root=base_dir)
        engine = session.engine()
        if tags is not None or tag_list:
            new_tags: tuple[str, ...] | None = (
                tuple(t.strip() for t in (tags or "").split(",") if t.strip()) + tag_list
            )
        else:
            new_tags = None
        prepared = prepare_update(
            engine,
            current,
            source,
            LoadOptions(limits=LoadLimits.of(active_limits()), restrict_files=restrict_files),
            existing=existing,
            clear=clear_parameters,
            changes=UpdateChanges(
                timeout_mins, None if rollback == "keep" else rollback == "disabled", new_tags
            ),
            template_file=recorded,
            base_dir=base_dir,
            # a package's registry names its members, never paths to make absolute
            absolute_paths=not in_package(base_dir),
        )
    report(shown(prepared.loaded, verbose), given)
    if prepared.load_failed:
        raise Rejected("the template, environment or parameters were rejected")
    report(shown(prepared.checked, verbose), given)
    request = prepared.request
    if request is None:
        raise Rejected("the stack was not updated")
    session.open_cloud_for(request.definition)
    repaired: DriftRepair | None = None
    drifted: dict[str, ResourceRecord] = {}
    if repair:
        # drift and the cloud types it reads back are loaded by --repair alone
        from stoker.engine import repair_records

        session.refuse_without_cloud(current, "repaired")
        repaired = asyncio.run(repair_records(engine, current.id))
        drifted = repaired.records
        request = replace(request, revisit=frozenset(drifted))
        for left in repaired.left:
            click.echo(
                f"warning: {left.resource}: {left.reason}: its {left.difference.property} is "
                f"left as it is (replacing it would lose its data); `stoker stack drift "
                f"{current.name} --accept {left.resource}` takes it into the stack",
                err=True,
            )
        # a nested stack's drift shows only in the nested plans
        show_nested = show_nested or any("/" in path for path in drifted)
    if dry_run:
        # a repair has no counterpart in Heat: its preview says what the update will do
        preview_of = engine.preview_update(
            current.id, request, show_nested, drifted, heat_view=not repair
        )
        plan = asyncio.run(preview_of)
        preview = update_preview(session.store, current, plan, show_nested=show_nested)
        if fmt == "table":
            rows = [
                {
                    "change": kind,
                    "resource_name": entry["resource_name"],
                    "resource_type": entry["resource_type"],
                    "parent_resource": entry.get("parent_resource") or "",
                    "reason": entry["reason"],
                }
                for kind, entries in preview.items()
                for entry in entries
            ]
            order = {name: index for index, name in enumerate(plan.decisions)}
            rows.sort(key=lambda row: (row["parent_resource"], order.get(row["resource_name"], 0)))
            heads = ["change", "resource_name", "resource_type", "reason"]
            if show_nested:
                heads.insert(1, "parent_resource")
            emit_rows(rows, fmt, columns, heads)
        else:
            emit_record(preview, fmt, columns)
        return
    # Counted as they are touched: an update leaves most resources alone, and a total of
    # the whole stack would show "10/10000 done" at the end of a complete update.
    if repaired is not None and repaired.records:
        from stoker.engine import write_repair

        asyncio.run(write_repair(engine, current.id, repaired))
    progress = Progress(0, lookup=session.stack_info)
    progress.follow(engine)
    with progress:
        record = asyncio.run(engine.update(current.id, request))
    show_stack_summary(record, fmt, columns)
    if not (record.action.value == "UPDATE" and record.status.value == "COMPLETE"):
        raise OperationFailed(failure_line(session.store, record))
