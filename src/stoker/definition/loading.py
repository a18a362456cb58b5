"""From paths on disk to a `StackDefinition`: what the CLI (and later the API) calls.

Every problem, from an unreadable file to a failed constraint, comes back as a
Diagnostic; nothing here raises for a user mistake.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from stoker import codes
from stoker.definition.files import collect_files
from stoker.definition.stack import StackDefinition, define_stack
from stoker.definition.template import Template, parse_template
from stoker.diagnostics import Diagnostic, Severity, Span
from stoker.environment import load_environment_file, merge_environments
from stoker.errors import TemplateError
from stoker.template.loader import LoadLimits, read_file


@dataclass(frozen=True, slots=True)
class LoadOptions:
    limits: LoadLimits = LoadLimits()
    #: read get_file paths only below the top template's directory (``--restrict-files``)
    restrict_files: bool = False
    require_all_parameters: bool = False
    stack_name: str | None = None
    #: the project the stack will belong to (``OS::project_id`` is known before create)
    project_id: str | None = None


@dataclass(slots=True)
class LoadResult:
    """A definition when the template could be read at all, and every finding."""

    definition: StackDefinition | None
    diagnostics: list[Diagnostic]

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)


def load_template(
    path: str, limits: LoadLimits | None = None
) -> tuple[Template | None, list[Diagnostic]]:
    try:
        document = read_file(path, limits)
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


def _encrypted_names(path: str, for_create: bool) -> Diagnostic:
    """Heat writes ``encrypted_param_names`` itself when it encrypts hidden parameters;
    its validate accepts a user's environment carrying it, and its create fails on it."""
    line = 1
    try:
        with open(path, encoding="utf-8") as handle:
            for number, text in enumerate(handle, 1):
                if text.lstrip().startswith(("encrypted_param", '"encrypted_param')):
                    line = number
                    break
    except OSError:
        pass
    return Diagnostic(
        codes.ENVIRONMENT if for_create else codes.ENVIRONMENT_NONPORTABLE,
        "encrypted_param_names is written by Heat itself when it encrypts hidden parameters; "
        "an environment a user supplies may not carry it (Heat's create fails on it)",
        ("encrypted_param_names",),
        Span(path, line, 1),
        Severity.ERROR if for_create else Severity.WARNING,
    )


def load_definition(
    template_path: str,
    environment_paths: Sequence[str] = (),
    parameters: Mapping[str, str] | None = None,
    options: LoadOptions | None = None,
) -> LoadResult:
    options = options or LoadOptions()
    template, found = load_template(template_path, options.limits)
    environments = []
    for env_path in environment_paths:
        environment, env_found = load_environment_file(env_path, options.limits)
        found.extend(env_found)
        if environment.encrypted_param_names:
            found.append(_encrypted_names(env_path, options.require_all_parameters))
        environments.append(environment)
    if template is None:
        return LoadResult(None, found)
    environment, merge_found = merge_environments(
        environments,
        explicit_parameters=dict(parameters or {}),
        template_parameter_names=set(template.parameters),
        parameter_types={name: p.type.value for name, p in template.parameters.items()},
    )
    found.extend(merge_found)
    calls = template.calls_of("get_file")
    base_dir = os.path.dirname(os.path.abspath(template_path))
    collected = collect_files(
        calls, base_dir, restrict_to=base_dir if options.restrict_files else None
    )
    found.extend(collected.diagnostics)
    definition = define_stack(
        template,
        environment,
        collected.files,
        unread_files=frozenset(collected.unread),
        require_all_parameters=options.require_all_parameters,
        stack_name=options.stack_name,
        project_id=options.project_id,
    )
    # What Heat reports only at create or when an output is read is shown, not refused;
    # but a file that cannot be read stops python-heatclient before Heat sees anything.
    later = [
        d if d.code == codes.FILE_MISSING else replace(d, severity=Severity.WARNING)
        for d in (*definition.create_findings, *definition.output_findings)
        if d.is_error
    ]
    return LoadResult(definition, found + definition.diagnostics + later)
