"""From a request's data to a `StackDefinition`: what Heat's REST API is given.

`stoker.definition.loading` reads paths on disk; an API request carries everything in its
body instead: the template (data, or YAML/JSON text), the ``files`` map that ``get_file``
and ``environment_files`` name, the environment and the parameters. Nothing here touches
the filesystem: a name the ``files`` map lacks is a finding, never a path to open.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from stoker import codes
from stoker.definition.declared import declared_parameters, request_templates
from stoker.definition.loading import (
    CurrentInputs,
    LoadOptions,
    LoadResult,
    define_with,
    encrypted_names_finding,
    kept_inputs,
    merged_environment,
)
from stoker.definition.template import Template
from stoker.definition.template_parser import parse_template
from stoker.diagnostics import Diagnostic
from stoker.environment import environment_from_data
from stoker.environment.environment import Environment
from stoker.environment.parse import parse_environment
from stoker.errors import TemplateError
from stoker.template.loader import Document, LoadLimits, load_document


@dataclass(frozen=True, slots=True)
class RequestInputs:
    """What one request supplies (every field as sent; ``template`` None: keep the
    stored one, for PATCH)."""

    template: Any
    files: Mapping[str, str] = field(default_factory=dict)
    environment: Mapping[str, Any] | None = None
    environment_files: Sequence[str] = ()
    parameters: Mapping[str, Any] = field(default_factory=dict)
    label: str = "<template>"


def read_template(
    data: Any, label: str, limits: LoadLimits | None = None
) -> tuple[Template | None, list[Diagnostic]]:
    """A template given as data (a JSON body's object) or as YAML/JSON text."""
    if isinstance(data, str | bytes):
        try:
            document = load_document(data, label, limits)
        except TemplateError as error:
            return None, error.diagnostics
    elif isinstance(data, dict):
        document = Document(data, "json", label)
    else:
        problem = Diagnostic(codes.SYNTAX, "the template must be a mapping (or its text)")
        return None, [problem]
    return parse_template(document), list(document.warnings)


def _environments(
    inputs: RequestInputs, limits: LoadLimits | None
) -> tuple[list[Environment], list[Diagnostic]]:
    """The body's ``environment`` first, then each of ``environment_files`` from the
    files map, in order (Heat merges them so)."""
    environments: list[Environment] = []
    found: list[Diagnostic] = []
    if inputs.environment:
        environment, env_found = environment_from_data(dict(inputs.environment), "<environment>")
        found.extend(env_found)
        environments.append(environment)
    for name in inputs.environment_files:
        text = inputs.files.get(name)
        if text is None:
            found.append(
                Diagnostic(
                    codes.ENVIRONMENT,
                    f'environment file "{name}" is not in the request\'s files',
                )
            )
            continue
        try:
            document = load_document(text, name, limits)
        except TemplateError as error:
            found.extend(error.diagnostics)
            continue
        environment, env_found = parse_environment(document)
        found.extend(env_found)
        environments.append(environment)
    return environments, found


def _finish(
    template: Template,
    environments: list[Environment],
    parameters: Mapping[str, Any],
    files: Mapping[str, str],
    options: LoadOptions,
    found: list[Diagnostic],
    stored: Environment | None = None,
    sent: Mapping[str, str] | None = None,
) -> LoadResult:
    """The definition; ``stored`` (a PATCH's) is the environment the request's loads over;
    the environments are merged against every template of ``sent`` (the files the request
    itself sent; None: ``files``), Heat's all_param_schemata(files)."""
    found.extend(
        encrypted_names_finding(None, options.require_all_parameters)
        for environment in environments
        if environment.encrypted_param_names
    )
    sent = files if sent is None else sent
    declared = declared_parameters(template, request_templates(sent, options.limits))
    environment = merged_environment(environments, parameters, declared, found, stored)
    return define_with(template, environment, files, options, found)


def load_request(inputs: RequestInputs, options: LoadOptions | None = None) -> LoadResult:
    """The definition a create, preview or validate request describes."""
    options = options or LoadOptions()
    template, found = read_template(inputs.template, inputs.label, options.limits)
    environments, env_found = _environments(inputs, options.limits)
    found.extend(env_found)
    if template is None:
        return LoadResult(None, found)
    return _finish(template, environments, inputs.parameters, inputs.files, options, found)


def load_update_request(
    inputs: RequestInputs,
    options: LoadOptions,
    *,
    current: CurrentInputs,
    existing: bool,
    clear: Collection[str] = (),
) -> tuple[LoadResult, dict[str, Any]]:
    """The definition an update request asks for, and the parameters to store with it.

    PUT (not ``existing``) is a create's load. PATCH (``existing``, Heat's
    ``existing=True``) keeps the stored template, environment and files unless the request
    gives new ones: the request's environments (and parameters) load over the stored
    environment, whose parameters are the stored ones minus ``clear``."""
    if inputs.template is None and not existing:
        problem = Diagnostic(codes.SYNTAX, "a template is required unless the update is a PATCH")
        return LoadResult(None, [problem]), {}
    if inputs.template is not None:
        template, found = read_template(inputs.template, inputs.label, options.limits)
        files = dict(inputs.files)
        if existing:
            files = {**current.files, **files}
    else:
        label = current.template_file or "<stored template>"
        template = parse_template(Document(dict(current.template), "json", label))
        found, files = [], {**current.files, **inputs.files}
    if template is None:
        return LoadResult(None, found), {}
    # Heat keeps the stored parameters the (new or kept) top template declares
    stored, stored_parameters = (
        kept_inputs(current, set(template.parameters), clear, found) if existing else (None, {})
    )
    environments, env_found = _environments(inputs, options.limits)
    found.extend(env_found)
    # a PATCH runs with the stored files too, but Heat merges the environment files
    # against the templates of the request's own files (all_param_schemata(files))
    result = _finish(
        template, environments, inputs.parameters, files, options, found, stored, inputs.files
    )
    return result, {**stored_parameters, **inputs.parameters}
