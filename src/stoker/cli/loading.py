"""Loading a template from the command line's options (``--parameter``, ``-e``, a ZIP
package): what `stack create` and `template validate` share, in a module of its own so
that `stack create` does not import the rest of the template commands (Rich among them).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import click

from stoker.definition import (
    LoadOptions,
    LoadResult,
    RequestInputs,
    TemplateReads,
    load_definition,
    load_request,
    package_template_file,
    read_package,
)
from stoker.engine import loading_kept
from stoker.errors import PackageError
from stoker.limits import active_limits
from stoker.template.loader import LoadLimits

if TYPE_CHECKING:
    from stoker.cli.blueprint import BlueprintCloud


def _key_value(values: tuple[str, ...], option: str) -> dict[str, str]:
    result: dict[str, str] = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"expected KEY=VALUE, got {item!r}", param_hint=option)
        try:
            # Python hands undecodable argv bytes over as lone surrogates; they would
            # fail much later (at the database), so refuse them here, without the value.
            item.encode("utf-8")
        except UnicodeEncodeError:
            raise click.BadParameter(
                f"the value of {key.encode('utf-8', 'replace').decode()!r} is not valid UTF-8 text",
                param_hint=option,
            ) from None
        result[key] = value
    return result


def parameter_values(
    parameters: tuple[str, ...], parameter_files: tuple[str, ...]
) -> dict[str, str]:
    """``--parameter K=V`` and ``--parameter-file K=FILE`` as one mapping (files read)."""
    values = _key_value(parameters, "--parameter")
    for key, path in _key_value(parameter_files, "--parameter-file").items():
        try:
            with open(path, encoding="utf-8") as handle:
                values[key] = handle.read()
        except (OSError, UnicodeDecodeError) as error:
            raise click.BadParameter(
                f"cannot read {path}: {error}", param_hint="--parameter-file"
            ) from None
    return values


def load_from_options(
    template_file: str,
    environments: tuple[str, ...],
    parameters: tuple[str, ...],
    parameter_files: tuple[str, ...],
    restrict_files: bool,
    *,
    require_all: bool,
    stack_name: str | None = None,
    project_id: str | None = None,
    blueprint: BlueprintCloud | None = None,
    reads: TemplateReads | None = None,
) -> tuple[LoadResult, dict[str, str]]:
    """Load a definition from command-line options; also return the explicit parameters.

    With ``blueprint`` (the cloud that answers its requirements: a `BlueprintCloud`),
    the template file is a blueprint, compiled first (`stoker.cli.blueprint`). ``reads``
    keeps the templates read from disk (`LoadOptions.reads`)."""
    values = parameter_values(parameters, parameter_files)
    options = LoadOptions(
        limits=LoadLimits.of(active_limits()),
        restrict_files=restrict_files,
        require_all_parameters=require_all,
        stack_name=stack_name,
        project_id=project_id,
        reads=reads,
    )
    # A load makes a few hundred thousand objects that live as long as the command and
    # almost no cyclic garbage, so the collector is paused while it runs: otherwise each
    # full collection walks the growing definition again (a third of the load of a
    # 1,000-resource template with functions). The command is one thread, one load, and
    # its definition is kept to the exit (`loading_kept`).
    with loading_kept():
        if blueprint is not None:
            inputs = blueprint.request(template_file, environments, values)
            return load_request(inputs, options), values
        if template_file.lower().endswith(".zip"):
            inputs = package_inputs(template_file, environments, values)
            return load_request(inputs, options), values
        return load_definition(template_file, environments, values, options), values


def template_source(template_file: str) -> str:
    """What a stack records as its template file: the path, or inside a package
    ``/abs/pkg.zip!/heat.yaml``, which tells the engine to read the stack's providers
    and get_file content from the archive's members (`stoker.definition.files.in_package`),
    for this command and every later one on the stack."""
    if template_file.lower().endswith(".zip"):
        return package_template_file(template_file)
    return os.path.abspath(template_file)


def package_inputs(
    path: str, environments: Sequence[str], values: Mapping[str, str]
) -> RequestInputs:
    """A stack package (``heat.yaml`` at the root of a ZIP) as a request's inputs: its
    get_file, provider and environment files come from the archive
    (`stoker.definition.archive`), as through the API; ``-e`` files are added after the
    package's own environment. A hostile or broken package is a `PackageError`."""
    try:
        with open(path, "rb") as handle:
            package = read_package(handle.read(), path)
    except OSError as error:
        raise PackageError(f"{path}: cannot read the package: {error.strerror}") from None
    files = dict(package.files)
    for env_path in environments:
        try:
            with open(env_path, encoding="utf-8") as handle:
                files[env_path] = handle.read()
        except (OSError, UnicodeDecodeError) as error:
            raise click.BadParameter(f"cannot read {env_path}: {error}", param_hint="-e") from None
    return RequestInputs(
        template=package.template,
        files=files,
        environment_files=[*package.environment_files, *environments],
        parameters=dict(values),
        label=f"{path}!heat.yaml",
    )
