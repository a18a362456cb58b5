"""The steps in one place, for the CLI and the API: read a blueprint (a file, or a ZIP
package with ``heat.yaml`` or ``blueprint.yaml`` at its root), resolve it against the
library, ask the cloud, compile."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from stoker.blueprint import SOURCE_FILE, is_blueprint
from stoker.blueprint.cloudfacts import CloudFacts
from stoker.blueprint.compile import Compiled, ContentReader, compile_blueprint
from stoker.blueprint.decisions import Decisions
from stoker.blueprint.existing import ExistingLookup
from stoker.blueprint.fulfil import decide
from stoker.blueprint.library import load_library
from stoker.blueprint.model import Blueprint
from stoker.blueprint.parse import parse_blueprint
from stoker.definition import read_package
from stoker.diagnostics import Diagnostic
from stoker.errors import TemplateError
from stoker.template.loader import load_document
from stoker.template.nodes import plain


@dataclass(slots=True)
class Source:
    """A blueprint's text and where its ``content`` references are read from."""

    text: str
    label: str
    read: ContentReader | None = None
    #: the package's other members (text), kept with the stack
    files: dict[str, str] = field(default_factory=dict)


def _inside(base: str, reference: str) -> str:
    """``reference`` below ``base``, refusing absolute paths and ``..`` that leave it."""
    if os.path.isabs(reference) or ".." in reference.replace("\\", "/").split("/"):
        raise ValueError("content must be a URL or a relative path inside the blueprint's tree")
    return os.path.join(base, reference)


def file_source(path: str) -> Source:
    """A blueprint on disk (YAML or JSON); content resolves beside it."""
    if path.lower().endswith(".zip"):
        with open(path, "rb") as archive:
            return package_source(archive.read(), path)
    with open(path, encoding="utf-8") as document:
        text = document.read()
    base = os.path.dirname(os.path.abspath(path))

    def read(reference: str) -> bytes:
        with open(_inside(base, reference), "rb") as handle:
            return handle.read()

    return Source(text, path, read)


def package_source(data: bytes, label: str) -> Source:
    """A ZIP package; content resolves to its members (`stoker.definition.archive`'s
    limits and refusals apply)."""
    package = read_package(data, label)

    def read(reference: str) -> bytes:
        key = posixpath.normpath(_inside("", reference).replace("\\", "/"))
        if key in package.binary:
            return package.binary[key]
        if key in package.files:
            return package.files[key].encode("utf-8")
        raise KeyError(f"the package has no member {key}")

    return Source(package.template, f"{label}!{package.entry}", read, dict(package.files))


def parse_source(source: Source) -> tuple[Blueprint | None, list[Diagnostic]]:
    try:
        document = load_document(source.text, source.label)
    except TemplateError as error:
        return None, error.diagnostics
    blueprint, found = parse_blueprint(document.data, source.label)
    return blueprint, [*document.warnings, *found]


@dataclass(slots=True)
class Analysis:
    blueprint: Blueprint | None
    decisions: Decisions | None
    diagnostics: list[Diagnostic]

    @property
    def ok(self) -> bool:
        return self.decisions is not None and not any(d.is_error for d in self.diagnostics)


def analyse(
    source: Source, libraries: Sequence[str] = (), existing: ExistingLookup | None = None
) -> Analysis:
    """Parse and resolve (types and fulfilment); every finding, located. ``existing``
    finds the stack resources a fulfillment names (`stoker.blueprint.existing`)."""
    blueprint, found = parse_source(source)
    library, library_found = load_library(list(libraries))
    found.extend(library_found)
    if blueprint is None or any(d.is_error for d in found):
        return Analysis(blueprint, None, found)
    decisions = decide(blueprint, library, existing)
    return Analysis(blueprint, decisions, [*found, *decisions.diagnostics])


def parameter_defaults(environments: Sequence[str]) -> dict[str, Any]:
    """The ``parameter_defaults`` of the given environment files, later ones winning (the
    blueprint reads ``blueprint_locations`` from them)."""
    merged: dict[str, Any] = {}
    for path in environments:
        with open(path, encoding="utf-8") as handle:
            document = load_document(handle.read(), path, yaml_only=True)
        data = plain(document.data)
        if isinstance(data, Mapping) and isinstance(data.get("parameter_defaults"), Mapping):
            merged.update(data["parameter_defaults"])
    return merged


def compile_source(
    source: Source,
    facts: CloudFacts | None,
    *,
    libraries: Sequence[str] = (),
    defaults: Mapping[str, Any] | None = None,
    how_to_choose: str = "",
    existing: ExistingLookup | None = None,
) -> tuple[Analysis, Compiled | None]:
    analysis = analyse(source, libraries, existing)
    if not analysis.ok or analysis.decisions is None:
        return analysis, None
    compiled = compile_blueprint(
        analysis.decisions,
        facts,
        read=source.read,
        parameter_defaults=dict(defaults or {}),
        how_to_choose=how_to_choose,
    )
    analysis.diagnostics.extend(compiled.diagnostics)
    return analysis, compiled


#: the compiled environment's name among a stack's files
ENVIRONMENT_FILE = "blueprint.env.yaml"


def stack_files(source: Source, compiled: Compiled) -> dict[str, str]:
    """What a stack made from a blueprint carries as its files: the package's members,
    the library templates, the compiled environment (`ENVIRONMENT_FILE`) and the
    blueprint itself (`stoker.blueprint.SOURCE_FILE`, for ``template show --source``)."""
    files = {**source.files, **compiled.files}
    files[ENVIRONMENT_FILE] = compiled.environment_text()
    files[SOURCE_FILE] = source.text
    return files


def looks_like_blueprint(text: str, label: str) -> bool:
    """The API's and the CLI's test of a template's text (`stoker.blueprint.is_blueprint`),
    after a cheap look for the word ``components`` so a template is not read twice."""
    if "components" not in text:
        return False
    try:
        return is_blueprint(load_document(text, label).data)
    except TemplateError:
        return False  # the template path reports it


@dataclass(frozen=True, slots=True)
class CompiledRequest:
    """A blueprint compiled into what a Heat request carries."""

    template: str
    files: dict[str, str]
    environment_files: list[str]


def compile_request(
    source: Source,
    facts: CloudFacts | None,
    *,
    environment_files: Sequence[str] = (),
    how_to_choose: str = "",
    existing: ExistingLookup | None = None,
) -> CompiledRequest:
    """Compile an uploaded blueprint (the API's ``POST /stacks`` with YAML or a ZIP):
    ``environment_files`` name members of ``source.files`` (a package's
    ``environment.yaml``), whose ``parameter_defaults`` the compiler reads too. Raises
    `TemplateError` with every finding when it cannot be compiled."""
    defaults: dict[str, Any] = {}
    for name in environment_files:
        text = source.files.get(name)
        if text is None:
            continue
        data = plain(load_document(text, name, yaml_only=True).data)
        if isinstance(data, Mapping) and isinstance(data.get("parameter_defaults"), Mapping):
            defaults.update(data["parameter_defaults"])
    analysis, compiled = compile_source(
        source, facts, defaults=defaults, how_to_choose=how_to_choose, existing=existing
    )
    if compiled is None or not analysis.ok:
        raise TemplateError([d for d in analysis.diagnostics if d.is_error])
    return CompiledRequest(
        compiled.text,
        stack_files(source, compiled),
        [ENVIRONMENT_FILE, *environment_files],
    )
