"""From paths on disk to a `StackDefinition`: what the CLI (and later the API) calls.

Every problem, from an unreadable file to a failed constraint, comes back as a
Diagnostic; nothing here raises for a user mistake.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from stoker import codes
from stoker.definition.declared import TemplateReads, client_declared, declared_types
from stoker.definition.files import collect_files
from stoker.definition.stack import StackDefinition, define_stack
from stoker.definition.template import Template
from stoker.definition.template_parser import parse_template
from stoker.diagnostics import Diagnostic, Severity, Span
from stoker.environment import (
    environment_from_data,
    load_environment_file,
    merge_environments,
    overlay_environment,
)
from stoker.environment.environment import Environment
from stoker.errors import TemplateError
from stoker.template.loader import Document, LoadLimits, read_file


@dataclass(frozen=True, slots=True)
class LoadOptions:
    limits: LoadLimits = LoadLimits()
    #: read get_file paths only below the top template's directory (``--restrict-files``)
    restrict_files: bool = False
    require_all_parameters: bool = False
    stack_name: str | None = None
    #: the project the stack will belong to (``OS::project_id`` is known before create)
    project_id: str | None = None
    #: the stack's id when it exists already (an update: ``OS::stack_id`` is known)
    stack_id: str | None = None
    #: where the templates python-heatclient would send are kept as they are read from
    #: disk: a caller that reads the same files again later (the engine's provider
    #: templates, `StackEngine.share_reads`) takes them from there instead
    reads: TemplateReads | None = field(default=None, compare=False)


@dataclass(slots=True)
class LoadResult:
    """A definition when the template could be read at all, and every finding."""

    definition: StackDefinition | None
    diagnostics: list[Diagnostic]

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)


def load_template(
    path: str, limits: LoadLimits | None = None, reads: TemplateReads | None = None
) -> tuple[Template | None, list[Diagnostic]]:
    """The template file at ``path`` parsed, or why not; ``reads``: where the command
    already read it (`TemplateReads.top`)."""
    try:
        document = read_file(path, limits) if reads is None else reads.top(path, limits)
    except TemplateError as error:
        return None, error.diagnostics
    except OSError as error:
        return None, [
            Diagnostic(
                codes.SYNTAX, f"cannot read the template: {error.strerror}", span=Span(path, 1, 1)
            )
        ]
    template = parse_template(document)
    return template, []


def encrypted_names_finding(span: Span | None, for_create: bool) -> Diagnostic:
    """Heat writes ``encrypted_param_names`` itself when it encrypts hidden parameters;
    its validate accepts a user's environment carrying it, and its create fails on it
    (an internal error): an error for a create or update, a warning for validate."""
    return Diagnostic(
        codes.ENVIRONMENT if for_create else codes.ENVIRONMENT_NONPORTABLE,
        "encrypted_param_names is written by Heat itself when it encrypts hidden parameters; "
        "an environment a user supplies may not carry it (Heat's create fails on it)",
        ("encrypted_param_names",),
        span,
        Severity.ERROR if for_create else Severity.WARNING,
    )


def _encrypted_names(path: str, for_create: bool) -> Diagnostic:
    """`encrypted_names_finding` at the section's line of an environment file."""
    line = 1
    try:
        with open(path, encoding="utf-8") as handle:
            for number, text in enumerate(handle, 1):
                if text.lstrip().startswith(("encrypted_param", '"encrypted_param')):
                    line = number
                    break
    except OSError:
        pass
    return encrypted_names_finding(Span(path, line, 1), for_create)


def _environment_files(
    paths: Sequence[str], options: LoadOptions, found: list[Diagnostic]
) -> list[Environment]:
    """The environment files, read in order; their findings go to ``found``."""
    environments = []
    for env_path in paths:
        environment, env_found = load_environment_file(env_path, options.limits)
        found.extend(env_found)
        if environment.encrypted_param_names:
            found.append(_encrypted_names(env_path, options.require_all_parameters))
        environments.append(environment)
    return environments


def _define(
    template: Template,
    environments: list[Environment],
    parameters: Mapping[str, str],
    options: LoadOptions,
    found: list[Diagnostic],
    base_dir: str | None,
    *,
    stored: Environment | None = None,
    kept_files: Mapping[str, str] | None = None,
) -> LoadResult:
    """The definition from a template read from ``base_dir``: the environments merged (over
    ``stored``, a PATCH's), its get_file files read there; ``kept_files``: a PATCH without
    a template runs with the stored files (the client sends none, nor any template)."""
    restrict_to = base_dir if options.restrict_files else None
    # Heat's all_param_schemata(files): every template the client sends declares names
    sent_from = base_dir if kept_files is None else None
    declared = client_declared(
        template, environments, sent_from, options.limits, restrict_to, options.reads
    )
    environment = merged_environment(environments, parameters, declared, found, stored)
    if kept_files is None and base_dir is not None:
        collected = collect_files(template.calls_of("get_file"), base_dir, restrict_to=restrict_to)
        found.extend(collected.diagnostics)
        files, unread = collected.files, frozenset(collected.unread)
    else:
        files, unread = dict(kept_files or {}), frozenset()
    return define_with(template, environment, files, options, found, unread)


def merged_environment(
    environments: list[Environment],
    parameters: Mapping[str, Any],
    declared: Mapping[str, str | None],
    found: list[Diagnostic],
    stored: Environment | None,
) -> Environment:
    """The environments merged (their findings to ``found``) over ``stored``, a PATCH's:
    the one merge of a definition from disk and of one from a request."""
    environment, merge_found = merge_environments(
        environments,
        explicit_parameters=dict(parameters),
        template_parameter_names=declared,
        parameter_types=declared_types(declared),
    )
    found.extend(merge_found)
    return environment if stored is None else overlay_environment(stored, environment, environments)


def define_with(
    template: Template,
    environment: Environment,
    files: Mapping[str, str],
    options: LoadOptions,
    found: list[Diagnostic],
    unread: frozenset[str] = frozenset(),
) -> LoadResult:
    """The definition under ``options``, with every finding."""
    o = options
    definition = define_stack(
        template,
        environment,
        files,
        unread_files=unread,
        require_all_parameters=o.require_all_parameters,
        stack_name=o.stack_name,
        stack_id=o.stack_id,
        project_id=o.project_id,
    )
    return defined(definition, found)


def load_definition(
    template_path: str,
    environment_paths: Sequence[str] = (),
    parameters: Mapping[str, str] | None = None,
    options: LoadOptions | None = None,
) -> LoadResult:
    options = options or LoadOptions()
    template, found = load_template(template_path, options.limits, options.reads)
    environments = _environment_files(environment_paths, options, found)
    if template is None:
        return LoadResult(None, found)
    base_dir = os.path.dirname(os.path.abspath(template_path))
    return _define(template, environments, parameters or {}, options, found, base_dir)


@dataclass(frozen=True, slots=True)
class CurrentInputs:
    """What a stack runs from now (as stored), for an update that keeps some of it."""

    template: Mapping[str, Any]
    environment: Mapping[str, Any]
    files: Mapping[str, str]
    parameters: Mapping[str, Any]
    template_file: str | None = None


def defined(definition: StackDefinition, found: list[Diagnostic]) -> LoadResult:
    """The load's result: what Heat reports only at create or when an output is read is
    shown, not refused; but a file that cannot be read stops python-heatclient before
    Heat sees anything."""
    later = [
        d if d.code == codes.FILE_MISSING else replace(d, severity=Severity.WARNING)
        for d in (*definition.create_findings, *definition.output_findings)
        if d.is_error
    ]
    return LoadResult(definition, found + definition.diagnostics + later)


def kept_inputs(
    current: CurrentInputs,
    declared: Collection[str],
    clear: Collection[str],
    found: list[Diagnostic],
) -> tuple[Environment, dict[str, Any]]:
    """What a PATCH keeps of the stored stack: its environment, whose parameters are the
    stored ones the template declares (minus ``clear``), and the stored parameter values
    to keep. The request's environment is loaded over it (`overlay_environment`). The
    environment's errors go to ``found``."""
    cleared = set(clear)
    data = dict(current.environment)
    kept = data.get("parameters")
    if isinstance(kept, Mapping):
        kept = {k: v for k, v in kept.items() if k in declared and k not in cleared}
    else:
        kept = {}
    data["parameters"] = kept
    stored, env_found = environment_from_data(data, "<stored environment>")
    found.extend(d for d in env_found if d.is_error)
    stored_parameters = {
        k: v for k, v in current.parameters.items() if k in declared and k not in cleared
    }
    return stored, stored_parameters


def load_update_definition(
    template_path: str | None,
    environment_paths: Sequence[str],
    parameters: Mapping[str, str],
    options: LoadOptions,
    *,
    current: CurrentInputs,
    existing: bool,
    clear: Collection[str] = (),
) -> tuple[LoadResult, dict[str, Any]]:
    """The definition a stack update asks for, and the parameters to store with it.

    Without ``existing`` (Heat's PUT) it is loaded like a create's. With it (PATCH) the
    stored template, environment and files are kept unless new ones are given: the new
    files merge with each other and load over the stored environment (`overlay_environment`),
    and the parameters are the
    stored ones minus ``clear``, overlaid with the new ones, dropping any the template
    (new or kept) does not declare."""
    if template_path is None and not existing:
        problem = Diagnostic(codes.SYNTAX, "a template (-t) is required unless --existing is given")
        return LoadResult(None, [problem]), {}
    if template_path is not None:
        template, found = load_template(template_path, options.limits)
        base_dir: str | None = os.path.dirname(os.path.abspath(template_path))
    else:
        label = current.template_file or "<stored template>"
        template, found = parse_template(Document(dict(current.template), "json", label)), []
        base_dir = os.path.dirname(current.template_file) if current.template_file else None
    if template is None:
        return LoadResult(None, found), {}
    # Heat keeps the stored parameters the (new or kept) top template declares
    stored, stored_parameters = (
        kept_inputs(current, set(template.parameters), clear, found) if existing else (None, {})
    )
    environments = _environment_files(environment_paths, options, found)
    # As a create's: the templates the client sends (none of the stored ones, nor the
    # stored template's tree when -t is not given: heatclient sends only what it reads)
    kept_files = current.files if template_path is None else None
    result = _define(
        template,
        environments,
        parameters,
        options,
        found,
        base_dir,
        stored=stored,
        kept_files=kept_files,
    )
    return result, {**stored_parameters, **parameters}
