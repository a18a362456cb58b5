"""One editor buffer checked as ``stoker lint`` checks the file: validation and the rules.

The buffer's text stands for the file on disk (`Package.overlay`), so its environment
files (``<stem>.env``, ``<stem>_env.yaml`` beside it, paired as ``stack create -e`` pairs
them), provider templates and ``get_file`` paths are found relative to it, as the CLI
finds them. The lint's contexts are kept (the parsed template, its resolved types) for
completion, hover and navigation until the next change replaces them.
"""

from __future__ import annotations

import os
from typing import Any

from stoker.blueprint import is_blueprint
from stoker.blueprint.parse import parse_blueprint
from stoker.collector import collector_paused
from stoker.diagnostics import Diagnostic
from stoker.errors import TemplateError
from stoker.lint import (
    LintConfig,
    Profile,
    default_registry,
    enabled_rules,
    find_config,
    load_config,
)
from stoker.lint.context import EnvironmentContext, FileContext, PackageContext, TemplateContext
from stoker.lint.inputs import LINTABLE_SUFFIXES, Package, PackageKind, SourceFile
from stoker.lint.providers import ProviderLoader
from stoker.lint.runner import UnlistedCode, run
from stoker.lint.workspace import build_package
from stoker.template.loader import LoadLimits, load_document

_LIMITS = LoadLimits()


class Analysis:
    """What one check of a buffer found: its findings, and the contexts they came from
    (None for a file the linter could not read, or skipped, such as a blueprint)."""

    def __init__(
        self,
        path: str,
        findings: list[Diagnostic],
        unit: FileContext | None,
        package: PackageContext,
    ) -> None:
        self.path = path
        self.findings = findings
        self.unit = unit
        self.package = package

    @property
    def template(self) -> TemplateContext | None:
        unit = self.unit
        if isinstance(unit, TemplateContext) and unit.template is not None:
            return unit
        return None

    @property
    def environment(self) -> EnvironmentContext | None:
        return self.unit if isinstance(self.unit, EnvironmentContext) else None

    @property
    def data(self) -> Any:
        return self.unit.data if self.unit is not None else None

    def release(self) -> None:
        self.package.release()


def paired_environment_files(path: str) -> list[str]:
    """Environment files beside ``path`` named ``<stem>.*`` or ``<stem>_env.*`` (the
    linter's pairing, which is how ``stack create -e`` is usually given them)."""
    directory, base = os.path.split(path)
    stem = base.rsplit(".", 1)[0]
    try:
        names = sorted(os.listdir(directory or "."))
    except OSError:
        return []
    found = []
    for name in names:
        if name == base or not name.lower().endswith(LINTABLE_SUFFIXES):
            continue
        other = name.rsplit(".", 1)[0]
        if other in (stem, f"{stem}_env"):
            found.append(os.path.join(directory, name))
    return found


def _config_for(path: str) -> LintConfig:
    """The ``.stoker-lint.yaml`` of the file's directory or above, as ``stoker lint``
    reads it; the defaults when there is none or it cannot be read."""
    found = find_config(os.path.dirname(path) or ".")
    if found is None:
        return LintConfig()
    try:
        return load_config(found)
    except Exception:  # an unreadable config: `stoker lint` reports it; check with defaults
        return LintConfig()


def analyse(path: str, text: str, others: dict[str, str] | None = None) -> Analysis:
    """Check the buffer ``text`` of the file at ``path`` (absolute); ``others`` are other
    open buffers (environment files among them are read from there, unsaved)."""
    package = Package("", PackageKind.FILES)
    package.overlay = {name: content.encode("utf-8") for name, content in (others or {}).items()}
    package.overlay[path] = text.encode("utf-8")
    package.files.append(SourceFile(path, path, path))
    for paired in paired_environment_files(path):
        package.files.append(SourceFile(paired, paired, paired))
    config = _config_for(path)
    registry = default_registry(config.profiles)
    rules = enabled_rules(registry, config)
    if Profile.DEFAULT in config.profiles:  # as `stoker lint` runs them
        rules.append(UnlistedCode({rule.id for rule in registry.rules()}))
    with collector_paused():
        context = build_package(package, _LIMITS, ProviderLoader(_LIMITS))
        report = run([context], rules, config)
    findings = [
        finding for finding in report.findings if finding.span is None or finding.span.file == path
    ]
    unit = next((unit for unit in context.files if unit.source.name == path), None)
    if any(source.name == path for source, _ in context.skipped):
        findings.extend(_blueprint_findings(path, text))
    return Analysis(path, findings, unit, context)


def _blueprint_findings(path: str, text: str) -> list[Diagnostic]:
    """A blueprint's own mistakes (what ``blueprint explain`` reports before it asks a
    cloud anything); lint only says it skipped the file."""
    try:
        document = load_document(text, path)
    except TemplateError as error:
        return list(error.diagnostics)
    if not is_blueprint(document.data):
        return []
    return parse_blueprint(document.data, path)[1]
