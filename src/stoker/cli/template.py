"""``stoker template ...``: validate, resolve, convert, and list versions and functions."""

from __future__ import annotations

import os
from typing import Any

import click

from stoker.cli.blueprint import (
    BlueprintCloud,
    context_lookup,
    library_option,
    looks_like_blueprint,
)
from stoker.cli.clouds import check_against, open_chosen, os_cloud_option
from stoker.cli.graph import graph_options, write_graph
from stoker.cli.loading import load_from_options, template_source
from stoker.cli.options import (
    EVALUATION_LIMITS,
    Decorator,
    environments_option,
    limit_options,
    parameter_options,
    restrict_files_option,
    stacked,
    template_option,
)
from stoker.cli.output import (
    FORMATS,
    Line,
    TablePart,
    document_format_option,
    emit,
    emit_rows,
    output_format,
    print_view,
    record_options,
    report,
    to_json,
    to_yaml,
)
from stoker.definition import (
    FilesMap,
    LoadResult,
    StackDefinition,
    TemplateReads,
    in_package,
    partial_resolve,
)
from stoker.errors import FunctionError, NotFound, Rejected, TemplateError
from stoker.functions.base import OMIT
from stoker.functions.tables import function_rows, table_for
from stoker.limits import active_limits
from stoker.parameters import display_value
from stoker.resolution import (
    ProviderCache,
    TreeCheck,
    nested_parameters,
    validate_tree,
    validation_summary,
)
from stoker.resources import default_registry
from stoker.template.loader import LoadLimits, read_file
from stoker.template.nodes import plain
from stoker.template.versions import ALL_VERSIONS


@click.group()
def template() -> None:
    """Check and inspect templates without running anything."""


_TEMPLATE_ARGUMENT = click.argument(
    "template_file", metavar="TEMPLATE", type=click.Path(exists=True, dir_okay=False)
)
#: ``-t TEMPLATE``, as `stack create` takes it (``template graph``)
_TEMPLATE_OPTION = template_option(
    "The template (a file, or a ZIP package holding one).", metavar="TEMPLATE"
)

#: how deep provider templates may nest, as Heat's max_nested_stack_depth
_MAX_NESTED_DEPTH = click.option(
    "--max-nested-depth",
    type=click.IntRange(min=0),
    default=5,
    show_default=True,
    help="Heat's max_nested_stack_depth: how deep provider templates may nest.",
)


def _definition_options(template_file: Decorator = _TEMPLATE_ARGUMENT) -> Decorator:
    """Options shared by commands that read a template with environments and parameters."""
    return stacked(
        template_file,
        environments_option,
        *parameter_options,
        restrict_files_option,
        limit_options(*EVALUATION_LIMITS),
    )


def _load(*args: Any, **kwargs: Any) -> LoadResult:
    return load_from_options(*args, **kwargs)[0]


def _finish(result: LoadResult, given: str) -> StackDefinition:
    report(result.diagnostics, given)
    if not result.ok or result.definition is None:
        errors = sum(1 for d in result.diagnostics if d.is_error)
        raise Rejected(f"{errors} error{'s' if errors != 1 else ''}: the template was rejected")
    return result.definition


@template.command()
@_definition_options()
@output_format(FORMATS, "table")
@click.option(
    "--show-nested",
    is_flag=True,
    help="Also list the parameters of every nested template (NestedParameters).",
)
@_MAX_NESTED_DEPTH
@library_option
@os_cloud_option(
    "The cloud that checks custom constraints (nova.flavor, glance.image, ...) and, for a "
    "blueprint, answers minRam/os/...: an entry of clouds.yaml (default: $OS_CLOUD; "
    "without either, the OS_* variables describe the cloud; with none, custom "
    "constraints are reported as not checked)."
)
@click.pass_context
def validate(
    ctx: click.Context,
    /,
    fmt: str,
    show_nested: bool,
    max_nested_depth: int,
    libraries: tuple[str, ...],
    os_cloud: str | None,
    **kwargs: Any,
) -> None:
    """Validate TEMPLATE and print its description and parameters, as Heat's validate does.

    Provider templates (through the environment's resource_registry or a template path as
    the type) and the children of groups, chains and inline stacks are validated too, as
    far as their inputs are known: the whole tree, not only the top template. A blueprint
    (or a package holding one) is compiled first, as `stack create` does, and the result
    validated; compiling it needs a cloud for its flavors and images (--os-cloud). With a
    cloud chosen, the values of custom constraints are checked against it, as stack create
    checks them.
    """
    cloud = open_chosen(ctx, os_cloud)
    if cloud is not None:
        check_against(ctx, cloud)
    blueprint = None
    reads = TemplateReads()  # the template file, read once for the test and the load
    if looks_like_blueprint(kwargs["template_file"], reads):
        blueprint = BlueprintCloud(os_cloud, context_lookup(os_cloud), libraries)
    definition, tree = _checked_tree(kwargs, max_nested_depth, blueprint, reads)
    summary = validation_summary(definition)
    if show_nested:
        summary["NestedParameters"] = nested_parameters(definition, tree, locations=True)
    if fmt == "table":
        print_view(_validate_view(summary))
    else:
        emit(summary, fmt)


def _checked_tree(
    options: dict[str, Any],
    max_nested_depth: int,
    blueprint: BlueprintCloud | None = None,
    reads: TemplateReads | None = None,
) -> tuple[StackDefinition, TreeCheck]:
    """The template of ``options`` loaded and checked with the tree below it, as
    ``template validate`` checks it (its findings reported; an error refuses it)."""
    result = _load(**options, require_all=False, blueprint=blueprint, reads=reads)
    top = template_source(options["template_file"])
    files_root = os.path.dirname(top) if options["restrict_files"] else None
    package = in_package(os.path.dirname(top)) or blueprint is not None
    # a package's providers are its members (its files map), never files on disk; so are
    # a compiled blueprint's library templates
    source = FilesMap(result.definition.files) if package and result.definition else None
    # a type's module is imported when a template uses it: validating runs no resource
    registry = default_registry(lazily=True)
    tree = TreeCheck(
        registry, max_nested_depth, require_types=False, cache=ProviderCache(files_root, source)
    )
    if result.definition is not None and result.ok:
        found, tree = validate_tree(
            result.definition, top, max_nested_depth, cache=tree.cache, registry=registry
        )
        result.diagnostics.extend(found)
    return _finish(result, options["template_file"]), tree


@template.command("graph")
@_definition_options(_TEMPLATE_OPTION)
@graph_options
@_MAX_NESTED_DEPTH
def graph(
    fmt: str, nested_depth: int, output: str | None, max_nested_depth: int, **kwargs: Any
) -> None:
    """Draw the dependency graph of TEMPLATE's resources before the stack exists.

    Each edge says what makes it (depends_on, get_resource, get_attr, or implied by a
    Neutron type, as Heat orders them); provider templates, groups and OS::Heat::Stack are
    clusters holding their nested stack (as far as its inputs are known now), down to
    --nested-depth. The template is checked as `template validate` checks it first.
    """
    from stoker.graph import render, template_graph  # here: graph's names load its modules

    definition, tree = _checked_tree(kwargs, max_nested_depth)
    title = os.path.basename(kwargs["template_file"])
    drawn = template_graph(definition, tree.nested, nested_depth, title)
    write_graph(render(drawn, fmt), output)


def _flatten_nested(nested: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    found = []
    for name, entry in nested.items():
        path = f"{prefix}.{name}" if prefix else name
        found.append((path, entry))
        found.extend(_flatten_nested(entry.get("NestedParameters", {}), path))
    return found


def _validate_view(data: dict[str, Any]) -> list[Line | TablePart]:
    parts: list[Line | TablePart] = [Line("Description: ", str(data["Description"]))]
    rows = []
    for name, summary in data["Parameters"].items():
        constraints = {
            k: v
            for k, v in summary.items()
            if k not in ("Type", "Default", "Label", "Description", "NoEcho", "Value")
        }
        label, description = summary.get("Label"), summary.get("Description")
        rows.append(
            {
                "name": name,
                "type": summary.get("Type"),
                "default": summary.get("Default"),
                "value": summary.get("Value"),
                "description": f"{label}: {description}"
                if label and description
                else label or description,
                "constraints": constraints or None,
            }
        )
    if rows:
        columns = ["name", "type", "default", "value", "description", "constraints"]
        parts.append(TablePart(rows, columns, "Parameters", no_wrap=["name", "type"]))
    else:
        parts.append(Line("", "No parameters."))
    for path, nested in _flatten_nested(data.get("NestedParameters", {})):
        names = ", ".join(nested.get("Parameters", {})) or "no parameters"
        kind = nested.get("Template") or nested.get("Type")
        parts.append(Line(f"Nested {path} ({kind}): ", names))
    for group in data.get("ParameterGroups", []):
        parts.append(
            Line(f"Group {group.get('label', '')}: ", ", ".join(group.get("parameters", [])))
        )
    return parts


@template.command()
@_definition_options()
@click.option("--stack-name", help="Stack name to use for OS::stack_name / AWS::StackName.")
@document_format_option
def resolve(fmt: str, stack_name: str | None, **kwargs: Any) -> None:
    """Show TEMPLATE after parameters and conditions are applied.

    Prints the parameter values (hidden ones masked), which resources exist, their
    dependency order, and each property value that needs no running resource; values
    that do are shown as the expression that computes them.
    """
    result = _load(**kwargs, require_all=True, stack_name=stack_name)
    definition = _finish(result, kwargs["template_file"])
    try:
        data = resolved(definition)
    except FunctionError as error:
        report([error.to_diagnostic()], kwargs["template_file"])
        raise Rejected("a value could not be resolved") from None
    emit(data, fmt, None)


def _present(value: Any) -> Any:
    """A whole value that ``if`` left out (Heat's Ellipsis) shows as None, as the engine's
    outputs do; inside mappings and lists `partial_resolve` already drops it."""
    return None if value is OMIT else value


def resolved(definition: StackDefinition) -> dict[str, Any]:
    from stoker.definition import hidden_parameters, without_hidden

    template, context = definition.template, definition.context
    assert context is not None and definition.graph is not None
    hidden = hidden_parameters(template)
    parameters = {
        name: display_value(parameter, definition.parameters[name])
        for name, parameter in template.parameters.items()
        if name in definition.parameters
    }
    requires = definition.graph.requires
    resources = []
    for name in definition.resource_order():
        resource = template.resources[name]
        entry: dict[str, Any] = {"name": name, "type": resource.type}
        if requires[name]:
            entry["depends_on"] = list(requires[name])
        properties = _present(partial_resolve(without_hidden(resource.properties, hidden), context))
        if properties:
            entry["properties"] = properties
        metadata = _present(partial_resolve(without_hidden(resource.metadata, hidden), context))
        if metadata:
            entry["metadata"] = metadata
        resources.append(entry)
    outputs: dict[str, Any] = {}
    for name, output in template.outputs.items():
        if output.condition is not None and name_disabled(definition, output.condition):
            outputs[name] = None
        else:
            outputs[name] = _present(partial_resolve(without_hidden(output.value, hidden), context))
    data: dict[str, Any] = {"description": template.description, "parameters": parameters}
    if template.conditions:
        data["conditions"] = {
            name: definition.conditions.get(name, "unknown") for name in template.conditions
        }
    data["resources"] = resources
    if definition.disabled:
        data["disabled_resources"] = list(definition.disabled)
    data["creation_order"] = definition.graph.levels()
    if outputs:
        data["outputs"] = outputs
    return data


def name_disabled(definition: StackDefinition, condition: Any) -> bool:
    scope = definition.scope
    return scope is not None and scope.condition_value(condition) is False


@template.command()
@click.argument("template_file", metavar="TEMPLATE", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--to", "target", type=click.Choice(["yaml", "json"]), required=True, help="The form to write."
)
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write to a file.")
@limit_options("template_size", "nodes", "expanded_size", "depth")
def convert(template_file: str, target: str, output: str | None) -> None:
    """Convert TEMPLATE between its JSON and YAML forms (same data either way)."""
    try:
        # converted as written: the text heatclient would send is not what is asked for
        document = read_file(template_file, LoadLimits.of(active_limits()), as_written=True)
    except TemplateError as error:
        report(error.diagnostics)
        raise Rejected(f"{template_file} was not converted") from None
    data = plain(document.data)
    text = to_json(data) + "\n" if target == "json" else to_yaml(data)
    if output:
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        click.echo(text, nl=False)


@template.group()
def version() -> None:
    """Template versions."""


@version.command("list")
@record_options
def version_list(fmt: str, columns: tuple[str, ...]) -> None:
    """List the template versions stoker understands (as Heat's template_versions API)."""
    emit_rows([v.listed() for v in ALL_VERSIONS], fmt, columns)


@template.group()
def function() -> None:
    """Intrinsic functions."""


@function.command("list")
@click.argument("version_name", metavar="VERSION")
@click.option("--with-condition-func", is_flag=True, help="Also list condition functions.")
@record_options
def function_list(
    version_name: str, with_condition_func: bool, fmt: str, columns: tuple[str, ...]
) -> None:
    """List the functions of VERSION (e.g. heat_template_version.2018-08-31, rocky)."""
    found = next(
        (v for v in ALL_VERSIONS if version_name in {v.name, v.value, v.alias_name, v.alias or ""}),
        None,
    )
    if found is None:
        raise NotFound(
            f"unknown template version {version_name!r}; see 'stoker template version list'"
        )
    rows = function_rows(table_for(found), with_condition_func, "(condition) ")
    emit_rows(rows, fmt, columns)


from stoker.cli.capabilities import capabilities, capabilities_find  # noqa: E402

template.add_command(capabilities)
template.add_command(capabilities_find)
