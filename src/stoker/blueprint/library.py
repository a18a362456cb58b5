"""The library: HOT provider templates whose seed-003 ``capabilities`` say which component
types they implement and how they take part in requirements.

Every capability value is a string or a list of strings (seed 003), so the conventions are
written in the keys (see docs/blueprints.md for the full table):

- ``resource_type``: the resource type the compiled template uses for it (seed 003's own
  key), e.g. ``Blueprint::Nova::Server``; ``implementation``: its name, which the global
  ``providers`` requirement's globs match (``org.openstack.nova.Server``);
- ``component``: the component types it implements, the abstract one first
  (``[server, OS::Nova::Server]``);
- ``requirement.T``: it understands requirement type ``T``; the value is T's default
  attribute (``fulfillment`` for a requirement another component fulfils);
  ``default_requirement``: the type of a requirement written without one;
- ``offers``: the requirement types it fulfils for others; ``match.A``: the values it
  accepts for attribute ``A`` of those requirements;
- ``receive.T``: ``PARAM/OUTPUT``: across a requirement of type T (either side), this
  template's parameter PARAM gets the other party's output OUTPUT (a list parameter
  gathers one value per requirement; ``PARAM/OUTPUT/list``: the output is a list itself,
  and the lists are joined);
- ``needs``: requirement types it must have even when the blueprint writes none (``host``);
- ``default.T``: the value of requirement T when none is written (``default.os: ubuntu``);
- ``cloud.flavor`` / ``cloud.image`` / ``cloud.zone`` / ``cloud.subnet``: the parameter
  that gets what the cloud answers for the cloud requirements (minRam..., os, jurisdiction);
- ``content``: ``script`` (parameter ``script`` gets the text) or ``file`` (parameters
  ``filename`` and ``url``, or ``data`` in base64);
- ``files``: helper templates beside it that it names as resource types, shipped with it;
- ``nest.A``: ``TYPE_PARAM/PROPERTIES_PARAM``: attribute A names a component that is not
  made on its own but handed over as a resource definition (a tier's ``nodespec``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import yaml

from stoker.blueprint import codes
from stoker.diagnostics import Diagnostic, Span
from stoker.environment.capabilities import template_capabilities
from stoker.errors import TemplateError
from stoker.template.loader import read_file
from stoker.template.nodes import plain


@dataclass(slots=True)
class LibraryType:
    """One provider template of the library, read through its capabilities."""

    file: str  # the path it was read from
    name: str  # its file name (what the compiled environment maps the type to)
    text: str
    implementation: str
    resource_type: str
    components: list[str]
    requirements: dict[str, str] = field(default_factory=dict)
    default_requirement: str | None = None
    offers: list[str] = field(default_factory=list)
    match: dict[str, list[str]] = field(default_factory=dict)
    #: requirement type -> (parameter, the other party's output, the output is a list)
    receive: dict[str, tuple[str, str, bool]] = field(default_factory=dict)
    needs: list[str] = field(default_factory=list)
    defaults: dict[str, str] = field(default_factory=dict)
    cloud: dict[str, str] = field(default_factory=dict)
    content: str | None = None
    nest: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: parameter name -> its type (``string``, ``comma_delimited_list``, ...)
    parameters: dict[str, str] = field(default_factory=dict)
    outputs: list[str] = field(default_factory=list)
    #: helper templates it uses by file name (read from its directory): name -> text
    helpers: dict[str, str] = field(default_factory=dict)
    span: Span | None = None

    @property
    def primary(self) -> str:
        return self.components[0]

    def understands(self, requirement_type: str) -> bool:
        return requirement_type in self.requirements

    def describe(self) -> str:
        return f"{self.implementation} ({self.name})"


@dataclass(slots=True)
class Library:
    types: list[LibraryType]
    sources: list[str]

    def implementing(self, component_type: str) -> list[LibraryType]:
        return [t for t in self.types if component_type in t.components]


def builtin_dir() -> str:
    return str(resources.files("stoker.blueprint") / "library")


def _pair(value: str) -> tuple[str, str] | None:
    first, sep, second = value.partition("/")
    return (first, second) if sep and first and second else None


def _portable(path: str, implementation: str, data: Any) -> str:
    """The template as the compiled stack uses it: without its capabilities section,
    which only the library needs and Heat itself rejects, so the output runs on Heat."""
    kept = {key: value for key, value in plain(data).items() if key != "capabilities"}
    head = f"# {implementation}, from the blueprint library ({os.path.basename(path)})\n"
    return head + yaml.safe_dump(kept, sort_keys=False, width=100)


def read_type(path: str) -> tuple[LibraryType | None, list[Diagnostic]]:
    """One library template, or the findings that make it unusable (each located)."""
    try:
        document = read_file(path)
    except TemplateError as error:
        return None, error.diagnostics
    declared = template_capabilities(document)
    if declared is None:
        return None, []  # not a template: a README or an environment beside them
    found = [d for d in declared.diagnostics if d.is_error]
    caps = {key: list(values) for key, values in declared.capabilities.items()}
    where = declared.span or Span(path, 1, 1)

    def bad(message: str) -> tuple[None, list[Diagnostic]]:
        found.append(Diagnostic(codes.BLUEPRINT_LIBRARY, message, ("capabilities",), where))
        return None, found

    if found:
        return None, found
    if "component" not in caps:
        return None, []  # a template of the library that is no component type (a helper)
    for key in ("implementation", "resource_type"):
        if len(caps.get(key, [])) != 1:
            return bad(f"a library template needs one {key} in its capabilities")
    data = document.data
    raw_parameters = data.get("parameters") or {}
    raw_outputs = data.get("outputs") or {}
    entry = LibraryType(
        file=path,
        name=os.path.basename(path),
        text=_portable(path, caps["implementation"][0], data),
        implementation=caps["implementation"][0],
        resource_type=caps["resource_type"][0],
        components=caps["component"],
        offers=caps.get("offers", []),
        needs=caps.get("needs", []),
        parameters={
            str(name): str(plain(spec).get("type", "string")) if isinstance(spec, dict) else ""
            for name, spec in raw_parameters.items()
        },
        outputs=[str(name) for name in raw_outputs],
        span=where,
    )
    if caps.get("default_requirement"):
        entry.default_requirement = caps["default_requirement"][0]
    if caps.get("content"):
        entry.content = caps["content"][0]
    for key, values in caps.items():
        prefix, sep, rest = key.partition(".")
        if not sep:
            continue
        if prefix == "requirement":
            entry.requirements[rest] = values[0]
        elif prefix == "match":
            entry.match[rest] = values
        elif prefix == "default":
            entry.defaults[rest] = values[0]
        elif prefix == "cloud":
            entry.cloud[rest] = values[0]
        elif prefix == "receive":
            param, _, output = values[0].partition("/")
            output, _, how = output.partition("/")
            if not param or not output or how not in ("", "list"):
                return bad(f"{key} must be PARAM/OUTPUT or PARAM/OUTPUT/list (got {values[0]})")
            entry.receive[rest] = (param, output, how == "list")
        elif prefix == "nest":
            pair = _pair(values[0])
            if pair is None:
                return bad(f"{key} must be TYPE_PARAM/PROPERTIES_PARAM (got {values[0]})")
            entry.nest[rest] = pair
    for helper in caps.get("files", []):
        helper_path = os.path.join(os.path.dirname(path), helper)
        if os.path.basename(helper) != helper or not os.path.isfile(helper_path):
            return bad(f"files names {helper}, which is not a file beside the template")
        with open(helper_path, encoding="utf-8") as handle:
            entry.helpers[helper] = handle.read()
    for param in [
        *(p for p, _, _ in entry.receive.values()),
        *entry.cloud.values(),
        *(n for pair in entry.nest.values() for n in pair),
    ]:
        if param not in entry.parameters:
            return bad(f'the capabilities name parameter "{param}", which the template lacks')
    return entry, found


def load_library(directories: list[str]) -> tuple[Library, list[Diagnostic]]:
    """The built-in library, then each directory in order: a later template with the same
    implementation name replaces an earlier one (``--library DIR`` overrides)."""
    found: list[Diagnostic] = []
    by_name: dict[str, LibraryType] = {}
    sources = [builtin_dir(), *directories]
    for directory in sources:
        if not os.path.isdir(directory):
            found.append(
                Diagnostic(
                    codes.BLUEPRINT_LIBRARY,
                    f"the library directory {directory} does not exist",
                    span=Span(directory, 1, 1),
                )
            )
            continue
        for name in sorted(os.listdir(directory)):
            if not name.endswith((".yaml", ".yml", ".json")):
                continue
            entry, problems = read_type(os.path.join(directory, name))
            found.extend(problems)
            if entry is not None:
                by_name[entry.implementation] = entry
    return Library(list(by_name.values()), sources), found


def describe_library(library: Library) -> list[dict[str, Any]]:
    """The library as data, for ``stoker blueprint library``."""
    return [
        {
            "implementation": t.implementation,
            "components": t.components,
            "resource_type": t.resource_type,
            "file": t.file,
            "understands": sorted(t.requirements),
            "offers": t.offers,
        }
        for t in library.types
    ]
