"""Loading a template from the command line's options (``--parameter``, ``-e``, a ZIP
package): what `stack create` and `template validate` share, in a module of its own so
that `stack create` does not import the rest of the template commands (Rich among them).
"""

from __future__ import annotations

import gc

import click

from stoker.definition.loading import LoadOptions, LoadResult, load_definition
from stoker.engine.heap import keep_loaded
from stoker.limits import active_limits
from stoker.template.loader import LoadLimits


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
) -> tuple[LoadResult, dict[str, str]]:
    """Load a definition from command-line options; also return the explicit parameters."""
    values = parameter_values(parameters, parameter_files)
    options = LoadOptions(
        limits=LoadLimits.of(active_limits()),
        restrict_files=restrict_files,
        require_all_parameters=require_all,
        stack_name=stack_name,
        project_id=project_id,
    )
    # A load makes a few hundred thousand objects that live as long as the command and
    # almost no cyclic garbage, so the collector is paused while it runs: otherwise each
    # full collection walks the growing definition again (a third of the load of a
    # 1,000-resource template with functions). The command is one thread, one load.
    collecting = gc.isenabled()
    gc.disable()
    try:
        if template_file.lower().endswith(".zip"):
            return _load_package(template_file, environments, values, options), values
        return load_definition(template_file, environments, values, options), values
    finally:
        keep_loaded()  # a single command's definition is never collected (see there)
        if collecting:
            gc.enable()


def _load_package(
    path: str, environments: tuple[str, ...], values: dict[str, str], options: LoadOptions
) -> LoadResult:
    """A stack package (``heat.yaml`` at the root of a ZIP): its get_file and environment
    files come from the archive (`stoker.definition.archive`); ``-e`` files are added
    after the package's own environment."""
    from stoker.definition.archive import read_package
    from stoker.definition.requests import RequestInputs, load_request

    with open(path, "rb") as handle:
        package = read_package(handle.read(), path)
    files = dict(package.files)
    for env_path in environments:
        with open(env_path, encoding="utf-8") as handle:
            files[env_path] = handle.read()
    inputs = RequestInputs(
        template=package.template,
        files=files,
        environment_files=[*package.environment_files, *environments],
        parameters=values,
        label=f"{path}!heat.yaml",
    )
    return load_request(inputs, options)
