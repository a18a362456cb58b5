"""Building the contexts: each file loaded once, classified, parsed, paired, validated.

A file is a template when its top level has a version key, an environment when it has
none and its top-level keys are all environment sections (or include one only an
environment has, such as resource_registry); anything else found in a directory or zip is a
template too (so a missing version key is reported), unless a template of the package
reads it with get_file (then it is content), its top level is not a mapping (data of some
other kind, such as a JSON list), or it is a blueprint (`stoker.blueprint.is_blueprint`:
``components`` and no version key), which is compiled against a cloud, not linted: it is
listed as skipped with an info finding (I0102), never misread as a template. Other files
named on the command line are always linted.
Each template is paired with the environment files beside it named ``<stem>.<ext>`` or
``<stem>_env.<ext>`` and validated as ``stoker template validate`` would with those
environments.

The ONAP profile reads a package as ONAP's validation does, by name first: every
``.yaml``/``.yml`` file is a template and every ``.env`` file an environment, whatever
they hold (`stoker.lint.onap.modules.kind_by_name`); other files are classified as above.

A stack package (`stoker.lint.inputs`, outside the ONAP profile) is not classified at all:
it is what ``stack create -t pkg.zip`` reads, its entry the template and its
``environment.yaml`` the environment applied to it (whatever the other members' names),
its other members reached only through the entry (get_file, provider templates). An entry
that is a blueprint (`stoker.blueprint.is_blueprint`, the CLI's and the API's test) is
compiled against a cloud, which lint has not: it is listed as skipped, never misread as a
template.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping
from typing import Any

from stoker import codes
from stoker.blueprint import is_blueprint
from stoker.definition import (
    client_declared,
    declared_types,
    define_stack,
    parse_sections_as,
    parse_template,
)
from stoker.diagnostics import Diagnostic, Span
from stoker.environment import SECTION_NAMES, merge_environments, parse_environment
from stoker.environment.environment import ENCRYPTED_PARAMETERS_ALIAS
from stoker.errors import LimitExceeded, TemplateError
from stoker.lint.codes import INTERNAL_ERROR
from stoker.lint.context import (
    EnvironmentContext,
    FileContext,
    FileKind,
    PackageContext,
    TemplateContext,
)
from stoker.lint.files import files_for
from stoker.lint.inputs import Package, PackageKind, SourceFile, display_name, is_lintable
from stoker.lint.onap.modules import kind_by_name
from stoker.lint.providers import ProviderLoader
from stoker.lint.suppress import Directives, read_directives
from stoker.template.loader import Document, LoadLimits, load_document
from stoker.template.versions import LATEST_HOT, VERSION_KEYS

_ENVIRONMENT_KEYS = frozenset({*SECTION_NAMES, ENCRYPTED_PARAMETERS_ALIAS})
#: sections only an environment has (a template has parameters too)
_ENVIRONMENT_ONLY = _ENVIRONMENT_KEYS - {"parameters"}


def internal_error(source: SourceFile, what: str, error: BaseException) -> Diagnostic:
    return Diagnostic(
        INTERNAL_ERROR,
        f"internal error while {what}: {type(error).__name__}: {error} (please report it)",
        span=Span(source.name, 1, 1),
    )


def looks_like_environment(data: Any) -> bool:
    """No version key, and only environment sections, or at least one section only an
    environment has (so an environment with a misspelt section is still one, and its
    mistake is reported as an environment's)."""
    if not isinstance(data, dict) or not data or looks_like_template(data):
        return False
    keys = [key for key in data if isinstance(key, str)]
    return len(keys) == len(data) and (
        all(key in _ENVIRONMENT_KEYS for key in keys)
        or any(key in _ENVIRONMENT_ONLY for key in keys)
    )


def looks_like_template(data: Any) -> bool:
    return isinstance(data, dict) and any(key in data for key in VERSION_KEYS)


def build_package(
    package: Package,
    limits: LoadLimits,
    providers: ProviderLoader,
    by_name: bool = False,
    pairing: Mapping[str, tuple[str, ...]] | None = None,
) -> PackageContext:
    """Every file of ``package`` as a context, environments paired with their templates.

    ``by_name``: classify ``.yaml``/``.yml``/``.env`` files by their suffix (ONAP's reading).
    ``pairing``: a template's absolute path -> its environment files' (the lint config's
    ``environments``); such a template is paired with those, in that order, read from
    disk when the package does not hold them, instead of by file name.
    """
    context = PackageContext(package, providers, problems=list(package.problems))
    if package.kind is PackageKind.STACK:
        _build_stack(context, limits)
        return context
    undecided: list[tuple[SourceFile, Document, Directives]] = []
    explicit = package.kind is PackageKind.FILES
    for source in package.files:
        loaded = _load(context, source, limits)
        if loaded is None:
            continue
        document, directives = loaded
        named = kind_by_name(source.relpath) if by_name else None
        if named == FileKind.ENVIRONMENT:
            _add_environment(context, source, document, directives)
        elif named == FileKind.TEMPLATE:
            context.templates.append(_parse(context, source, document, directives, True))
        elif looks_like_environment(document.data):
            _add_environment(context, source, document, directives)
        elif is_blueprint(document.data):
            context.skipped.append((source, BLUEPRINT_SKIPPED))
        elif looks_like_template(document.data) or explicit:
            context.templates.append(_parse(context, source, document, directives))
        elif not isinstance(document.data, dict):
            context.skipped.append((source, "not a mapping: neither template nor environment"))
        else:
            undecided.append((source, document, directives))
    if undecided:
        read = _get_file_targets(context)
        for source, document, directives in undecided:
            if source.name in read:
                context.skipped.append((source, "read by get_file: content, not a template"))
            else:
                context.templates.append(_parse(context, source, document, directives))
    context.templates.sort(key=lambda unit: unit.source.relpath)
    index = _EnvironmentIndex(context)
    for template in context.templates:
        disk_path = template.source.disk_path
        configured = (pairing or {}).get(os.path.abspath(disk_path)) if disk_path else None
        if configured is None:
            _define(context, template, index.paired(template.source))
        else:
            _define(context, template, _configured(context, configured, limits))
    return context


def _configured(
    context: PackageContext, paths: tuple[str, ...], limits: LoadLimits
) -> list[EnvironmentContext]:
    """The environment files at ``paths`` (absolute), as contexts: the package's own, else
    loaded from disk now (and linted with the package, as the files it reads)."""
    found: list[EnvironmentContext] = []
    for path in paths:
        known = [
            unit
            for unit in context.environments
            if unit.source.disk_path and os.path.abspath(unit.source.disk_path) == path
        ]
        if not known:
            name = display_name(path)
            source = SourceFile(name, name, path)
            loaded = _load(context, source, limits)
            before = len(context.environments)
            if loaded is not None:
                _add_environment(context, source, *loaded)
            known = context.environments[before:]  # none when it could not be read
        found.extend(known[:1])
    return found


#: why a stack package's blueprint entry is not linted
BLUEPRINT_SKIPPED = (
    "a blueprint: stack create compiles it against a cloud first; "
    "check it with stoker blueprint explain"
)


def _build_stack(context: PackageContext, limits: LoadLimits) -> None:
    """A stack package as the stack commands read it: the entry with the package's
    environment applied, whatever either holds (their mistakes are reported as theirs)."""
    package = context.package
    stack = package.stack
    if stack is None:  # refused: the package's problem says why
        return
    entry = package.member(stack.entry)
    for source in package.files[1:]:  # the package's environment.yaml
        loaded = _load(context, source, limits)
        if loaded is not None:
            _add_environment(context, source, *loaded)
    linted = {source.relpath for source in package.files}
    for relative in sorted({*stack.files, *stack.binary}):
        hidden = any(part.startswith(".") for part in relative.split("/"))
        if relative not in linted and is_lintable(relative) and not hidden:
            reason = f"a member of the stack package: read through {stack.entry}, not alone"
            context.skipped.append((package.member(relative), reason))
    loaded = _load(context, entry, limits)
    if loaded is None:
        return
    document, directives = loaded
    if is_blueprint(document.data):
        context.skipped.append((entry, BLUEPRINT_SKIPPED))
        return
    unit = _parse(context, entry, document, directives)
    context.templates.append(unit)
    _define(context, unit, list(context.environments))


def _load(
    context: PackageContext, source: SourceFile, limits: LoadLimits
) -> tuple[Document, Directives] | None:
    directives: Directives = {}
    try:
        raw = context.package.read(source, limits.max_bytes)
        size = context.package.size(source) if len(raw) > limits.max_bytes else None
        directives = read_directives(raw)
        loaded = context.package.loaded.get(source.name)
        if loaded is not None:
            return loaded, directives
        return load_document(raw, source.name, limits, size), directives
    except TemplateError as error:
        problems = error.diagnostics
    except OSError as error:
        reason = error.strerror or str(error)
        problems = [
            Diagnostic(
                codes.SYNTAX, f"cannot read the file: {reason}", span=Span(source.name, 1, 1)
            )
        ]
    except Exception as error:  # a loader bug must not stop the run
        problems = [internal_error(source, "loading the file", error)]
    unit = FileContext(source, context, FileKind.UNREADABLE, None, problems, directives)
    context.unreadable.append(unit)
    return None


def _add_environment(
    context: PackageContext, source: SourceFile, document: Document, directives: Directives
) -> None:
    try:
        environment, found = parse_environment(document)
    except Exception as error:
        problem = internal_error(source, "reading the environment", error)
        unit = FileContext(source, context, FileKind.UNREADABLE, document, [problem], directives)
        context.unreadable.append(unit)
        return
    unit = EnvironmentContext(source, context, FileKind.ENVIRONMENT, document, found, directives)
    unit.environment = environment
    context.environments.append(unit)


def _parse(
    context: PackageContext,
    source: SourceFile,
    document: Document,
    directives: Directives,
    by_name: bool = False,
) -> TemplateContext:
    """The parsed template. A template by name whose version is missing or wrong is read
    as the latest HOT version, so the rules about its sections still apply; Heat's answer
    for it (`TemplateContext.version_problems`) stays the version error alone."""
    unit = TemplateContext(source, context, FileKind.TEMPLATE, document, [], directives)
    try:
        unit.template = parse_template(document, context.package.reuse.get(source.name))
        version_problems = [d for d in unit.template.diagnostics if d.code == codes.VERSION]
        if by_name and version_problems and isinstance(document.data, dict):
            unit.version_problems = version_problems
            unit.template = parse_sections_as(document, LATEST_HOT)
    except LimitExceeded as error:  # the template asks for more than the budget allows
        unit.template, unit.core = None, error.diagnostics
    except Exception as error:
        unit.core = [internal_error(source, "parsing the template", error)]
    context.providers.add(source, unit.template)
    return unit


def _get_file_targets(context: PackageContext) -> set[str]:
    """Names of the package's files that some template reads with get_file."""
    names: set[str] = set()
    for unit in context.templates:
        if unit.template is None:
            continue
        for call in unit.template.calls_of("get_file"):
            if isinstance(call.args, str):
                target = context.package.resolve(unit.source, str(call.args))
                if target is not None:
                    names.add(target.name)
    return names


class _EnvironmentIndex:
    """A package's environment files by (directory, stem): pairing every template is
    then one lookup, not a scan of every environment file."""

    def __init__(self, context: PackageContext) -> None:
        self.places: dict[tuple[str, str], list[EnvironmentContext]] = {}
        for environment in context.environments:
            key = (environment.source.directory, environment.source.stem)
            self.places.setdefault(key, []).append(environment)

    def paired(self, source: SourceFile) -> list[EnvironmentContext]:
        directory, stem = source.directory, source.stem
        found = [
            *self.places.get((directory, stem), ()),
            *self.places.get((directory, f"{stem}_env"), ()),
        ]
        return sorted(found, key=lambda environment: posixpath.basename(environment.source.relpath))


def _define(
    context: PackageContext, unit: TemplateContext, environments: list[EnvironmentContext]
) -> None:
    template = unit.template
    if template is None:
        return
    unit.environments = environments
    try:
        given = [paired.environment for paired in unit.environments]
        # merged as a create of these files merges them: against every template the client
        # would send (a template inside an archive: those its environments name)
        disk_path = unit.source.disk_path
        base_dir = os.path.dirname(os.path.abspath(disk_path)) if disk_path else None
        declared = client_declared(
            template, given, base_dir, context.providers.limits, reads=context.reads
        )
        environment, merged = merge_environments(
            given,
            explicit_parameters={},
            template_parameter_names=declared,
            parameter_types=declared_types(declared),
        )
        collected = files_for(template.calls_of("get_file"), context.package, unit.source)
        unit.definition = define_stack(
            template,
            environment,
            collected.files,
            unread_files=frozenset(collected.unread),
            reuse=context.package.reuse.get(unit.source.name),
        )
    except LimitExceeded as error:
        unit.template, unit.core = None, error.diagnostics
        return
    except Exception as error:
        unit.template = None
        unit.core = [internal_error(unit.source, "validating the template", error)]
        return
    if unit.version_problems:
        unit.core = [*merged, *unit.version_problems]  # Heat stops at the version
        return
    unit.core = [
        *merged,
        *collected.diagnostics,
        *unit.definition.diagnostics,
        *unit.definition.output_findings,
        *unit.definition.create_findings,
    ]
