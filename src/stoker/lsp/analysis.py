"""One editor buffer checked as ``stoker lint`` checks the file: validation and the rules.

The buffer's text stands for the file on disk (`Package.overlay`), so its environment
files (``<stem>.env``, ``<stem>_env.yaml`` beside it, paired as ``stack create -e`` pairs
them), provider templates and ``get_file`` paths are found relative to it, as the CLI
finds them. The lint's contexts are kept (the parsed template, its resolved types) for
completion, hover and navigation until the next change replaces them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Hashable
from typing import NamedTuple

from stoker.blueprint import is_blueprint
from stoker.blueprint.parse import parse_blueprint
from stoker.collector import collector_paused
from stoker.definition import Placed, Reuse
from stoker.diagnostics import Diagnostic
from stoker.errors import TemplateError
from stoker.lint import LintConfig, default_registry, find_config, load_config
from stoker.lint.config import ConfigError
from stoker.lint.context import EnvironmentContext, FileContext, PackageContext, TemplateContext
from stoker.lint.inputs import LINTABLE_SUFFIXES, Package, PackageKind, SourceFile
from stoker.lint.providers import ProviderLoader
from stoker.lint.runner import rules_to_run, run
from stoker.lint.workspace import build_package
from stoker.lsp.blocks import Blocks, LoadedBlock, load_blocks, resource_blocks, resources_as_cut
from stoker.lsp.outside import Outside, Readers, agrees, outside_parts
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
        carried: Carried | None = None,
        related: list[str] | None = None,
    ) -> None:
        self.path = path
        #: the other files the check read: a template's environments, an environment's
        #: templates
        self.related = related or []
        #: why the lint config could not be used (the defaults were), if it could not
        self.config_error: str | None = None
        #: what the next check of the buffer may reuse
        self.carried = carried
        #: whether the check took over what the last one carried (moved its resources'
        #: nodes and entries to new lines): the last analysis's positions are not its own
        self.consumed = False
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

    def release(self) -> None:
        self.package.release()


def paired_environment_files(path: str) -> list[str]:
    """Environment files beside ``path`` named ``<stem>.*`` or ``<stem>_env.*`` (the
    linter's pairing, which is how ``stack create -e`` is usually given them)."""
    stem = os.path.basename(path).rsplit(".", 1)[0]
    return _beside(path, {stem, f"{stem}_env"})


def paired_template_files(path: str) -> list[str]:
    """Templates beside the environment file ``path`` that pair with it by name
    (``<stem>.*`` for ``<stem>.env`` or ``<stem>_env.*``)."""
    stem = os.path.basename(path).rsplit(".", 1)[0]
    return _beside(path, {stem, stem.removesuffix("_env")})


def _beside(path: str, stems: set[str]) -> list[str]:
    directory, base = os.path.split(path)
    try:
        names = sorted(os.listdir(directory or "."))
    except OSError:
        return []
    return [
        os.path.join(directory, name)
        for name in names
        if name != base
        and name.lower().endswith(LINTABLE_SUFFIXES)
        and name.rsplit(".", 1)[0] in stems
    ]


#: a template's version key, at the start of a line (an environment file has none)
_VERSION_KEY = re.compile(
    r"^[\"']?(heat_template_version|HeatTemplateFormatVersion|AWSTemplateFormatVersion)\b",
    re.MULTILINE,
)


def related_files(path: str, text: str, config: LintConfig) -> tuple[list[str], list[str]]:
    """What a check of the buffer reads besides it: for a template, its environment files
    (those the lint config's ``environments`` names for it, else those named after it);
    for an environment file (no version key), the templates it is paired with (those the
    config pairs it with, and those it is named after that the config says nothing of)."""
    if _VERSION_KEY.search(text):
        configured = config.environments_of(path)
        return list(configured) if configured is not None else paired_environment_files(path), []
    templates = config.templates_of(path)
    templates += [
        template
        for template in paired_template_files(path)
        if template not in templates and config.environments_of(template) is None
    ]
    return [], templates


def _config_for(path: str) -> tuple[LintConfig, str | None]:
    """The ``.stoker-lint.yaml`` of the file's directory or above, as ``stoker lint``
    reads it; the defaults when there is none or it cannot be read (with why)."""
    found = find_config(os.path.dirname(path) or ".")
    if found is None:
        return LintConfig(), None
    try:
        return load_config(found), None
    except ConfigError as error:  # `stoker lint` refuses it; the buffer is checked anyway
        return LintConfig(), str(error)
    except OSError as error:
        return LintConfig(), f"{found}: {error}"


class Carried(NamedTuple):
    """What one check of a buffer hands to the next: its per-resource results, and its
    resources' blocks as loaded."""

    reuse: Reuse
    loaded: dict[str, LoadedBlock]


def analyse(
    path: str, text: str, others: dict[str, str] | None = None, previous: Carried | None = None
) -> Analysis:
    """Check the buffer ``text`` of the file at ``path`` (absolute); ``others`` are other
    open buffers (environment files among them are read from there, unsaved).
    ``previous``: what this buffer's last check carried, reused for the resources this
    change left as they were (`reuse_for`, `stoker.lsp.blocks.load_blocks`). It is
    handed over: what it holds of the resources the change moved to other lines is
    moved in place, and once that happened (`Analysis.consumed`) the last check's
    positions are not to be read (`stoker.lsp.server.Buffer.update`)."""
    others = others or {}
    package = Package("", PackageKind.FILES)
    package.overlay = {name: content.encode("utf-8") for name, content in others.items()}
    package.overlay[path] = text.encode("utf-8")
    package.files.append(SourceFile(path, path, path))
    config, config_error = _config_for(path)
    environments, templates = related_files(path, text, config)
    related = [*environments, *templates]
    for other in related:
        package.files.append(SourceFile(other, other, other))
    blocks = resource_blocks(text)
    outside = outside_parts(text, blocks) if blocks is not None else None
    surroundings = (config, _contents(related, package))
    reuse = reuse_for(path, blocks, outside, surroundings, previous)
    package.reuse[path] = reuse
    loaded: dict[str, LoadedBlock] = {}
    # ``previous`` is handed over: what it holds of a resource that moved is moved in
    # place (`stoker.definition.Move`), after which it is not to be carried on
    consumed = False
    if blocks is not None and len(package.overlay[path]) <= _LIMITS.max_bytes:
        before = previous.loaded if previous is not None else {}
        with collector_paused():
            found = load_blocks(text, path, blocks, before, _LIMITS, reuse.moved)
        if found is not None:
            package.loaded[path], loaded = found.document, found.blocks
            consumed = consumed or found.moved
    rules = rules_to_run(default_registry(config.profiles), config)  # as `stoker lint` does
    with collector_paused():
        pairing = dict(config.environments)
        context = build_package(package, _LIMITS, ProviderLoader(_LIMITS), pairing=pairing)
        unit = next((unit for unit in context.files if unit.source.name == path), None)
        agree = _blocks_agree(blocks, outside, unit)
        consumed = consumed or reuse.relocated > 0
        if (reuse.written or package.loaded) and not agree:
            # the blocks misread the text (a quoted scalar running over lines at a
            # resource's indentation, say): check it again from scratch
            context.release()
            package.reuse[path] = reuse = Reuse()
            package.loaded.clear()
            loaded = {}
            context = build_package(package, _LIMITS, ProviderLoader(_LIMITS), pairing=pairing)
            unit = next((unit for unit in context.files if unit.source.name == path), None)
        report = run([context], rules, config)
    findings = [
        finding for finding in report.findings if finding.span is None or finding.span.file == path
    ]
    if any(source.name == path for source, _ in context.skipped):
        findings.extend(_blueprint_findings(path, text))
    # a check that ran no stage (the text did not parse) passes the last one's on,
    # unless it took things of it over
    if reuse.contexts and agree:
        carried: Carried | None = Carried(reuse, loaded)
    else:
        carried = None if consumed else previous
    analysis = Analysis(path, findings, unit, context, carried, related)
    analysis.consumed = consumed
    analysis.config_error = config_error
    return analysis


def reuse_for(
    path: str,
    blocks: Blocks | None,
    outside: Outside | None,
    surroundings: Hashable,
    previous: Carried | None,
) -> Reuse:
    """What this check may take from ``previous``: the results of each resource whose
    block has the same text (at the same line, or moved), when ``surroundings`` (what
    else the check reads) and the rest of the template are the same but for parts the
    resource does not read (`stoker.lsp.outside`). A block that reads a file (get_file)
    is never reused: the file may have changed on disk."""
    if blocks is None or outside is None:
        return Reuse()
    sources = {
        name: None
        if "get_file" in block
        else Placed(line + 1, line + block.count("\n") + (not block.endswith("\n")), block)
        for name, (line, block) in blocks.resources.items()
    }
    last = previous.reuse if previous is not None else None
    readers = Readers(blocks, previous.loaded if previous is not None else {})
    return Reuse(sources, (outside.rest, surroundings), last, path, outside.shared, readers)


def _contents(paths: list[str], package: Package) -> tuple[tuple[str, bytes | None], ...]:
    """The files a template's check reads besides itself (its environments), as they are
    now: their buffers, else their bytes on disk."""
    found: list[tuple[str, bytes | None]] = []
    for path in paths:
        try:
            found.append((path, package.read(SourceFile(path, path, path))))
        except OSError:
            found.append((path, None))
    return tuple(found)


def _blocks_agree(blocks: Blocks | None, outside: Outside | None, unit: FileContext | None) -> bool:
    """Whether the template parsed into exactly the resources the blocks name, each at its
    block's first line, and the top-level keys and parameters the text outside them was
    cut into (`stoker.lsp.outside.agrees`)."""
    if blocks is None or not isinstance(unit, TemplateContext) or unit.template is None:
        return False
    if outside is None or not agrees(outside, unit.data):
        return False
    return resources_as_cut(unit.data, blocks) is not None


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
