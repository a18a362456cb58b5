"""``stoker template capabilities`` and ``capabilities-find``: what templates can stand for.

The introspection half of the capabilities spec: a person or a UI looks at a set of
templates and environments to see which choices a composition offers (``deployment:
[puppet, docker]``; ``OS::TripleO::Controller`` can be either of two files) before picking
one with ``requires:``. The JSON both commands print is the interface a UI builds its
choices from, so its shape is documented in each command's help and kept stable.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import click

from stoker.cli.options import environments_option
from stoker.cli.output import (
    FORMATS,
    emit,
    emit_rows,
    output_format,
    record_options,
    report,
    simple_table,
)
from stoker.codes import NOT_A_MAPPING, SYNTAX
from stoker.diagnostics import Diagnostic, Span
from stoker.environment import load_environment_file, merge_environments, template_location
from stoker.environment.capabilities import (
    RESOURCE_TYPE,
    TemplateCapabilities,
    describe_values,
    offers,
    template_capabilities,
    unmet,
)
from stoker.environment.registry_section import (
    RegistryBlock,
    RegistryEntry,
    is_glob,
)
from stoker.errors import Rejected, TemplateError
from stoker.template.loader import read_file
from stoker.template.versions import VERSION_KEYS

if TYPE_CHECKING:  # Rich only for a table: `template validate` imports this module
    from rich.console import Console

# What a directory walk reads; files named on the command line are read whatever their name.
DOCUMENT_SUFFIXES = (".yaml", ".yml", ".json", ".template")


@dataclass(slots=True)
class _Templates:
    """Templates read so far, each once (by real path), with every finding."""

    found: list[Diagnostic] = field(default_factory=list)
    by_real_path: dict[str, TemplateCapabilities | None] = field(default_factory=dict)
    order: list[tuple[str, TemplateCapabilities]] = field(default_factory=list)

    def read(self, path: str, *, must_be_template: bool) -> TemplateCapabilities | None:
        """The capabilities of ``path``; None when it cannot be read or is not a template."""
        real = os.path.realpath(path)
        if real in self.by_real_path:
            return self.by_real_path[real]
        declared = self._load(path, must_be_template)
        self.by_real_path[real] = declared
        if declared is not None:
            self.order.append((path, declared))
        return declared

    def _load(self, path: str, must_be_template: bool) -> TemplateCapabilities | None:
        if "://" in path:
            message = "it is a URL, and stoker reads templates from files only"
            self._found(SYNTAX, f"cannot read the template: {message}", path)
            return None
        try:
            document = read_file(path)
        except TemplateError as error:
            self.found.extend(error.diagnostics)
            return None
        except OSError as error:
            self._found(SYNTAX, f"cannot read the template: {error.strerror or error}", path)
            return None
        declared = template_capabilities(document)
        if declared is None:
            if must_be_template:
                versions = ", ".join(VERSION_KEYS)
                message = f"not a template: a template is a mapping with a version key ({versions})"
                self._found(NOT_A_MAPPING, message, path)
            return None
        self.found.extend(declared.diagnostics)
        return declared if declared.ok else None

    def _found(self, code: str, message: str, path: str) -> None:
        """A finding about the file as a whole (its first line)."""
        self.found.append(Diagnostic(code, message, span=Span(path, 1, 1)))


def _plain_capabilities(declared: TemplateCapabilities) -> dict[str, list[str]]:
    return {str(key): [str(v) for v in values] for key, values in declared.capabilities.items()}


# --------------------------------------------------------------------------- capabilities


_CAPABILITIES_HELP = """List the capabilities the given templates and environments offer.

\b
For the templates named with -t, and for every template a resource_registry list of the
environments (-e, merged in order) offers, this prints:
  - each capability with every value the templates offer (deployment: [puppet, docker]);
  - each type named by a resource_type capability, with the templates claiming it;
  - each resource_registry list with its options: the capabilities of each, whether it
    meets the merged requires, and the one chosen when exactly one does.

\b
JSON (-f json) has this shape; every capability value is a list of strings:
  {"capabilities":   {"deployment": ["puppet", "docker"]},
   "resource_types": {"OS::TripleO::Controller": ["puppet/controller.yaml", ...]},
   "templates":      [{"file": "puppet/controller.yaml",
                       "capabilities": {"deployment": ["puppet"], ...}}],
   "requires":       {"deployment": ["puppet"]},
   "choices":        [{"type": "OS::TripleO::Controller",
                       "entry": "resource_registry.OS::TripleO::Controller",
                       "environment": "env.yaml",
                       "options": [{"template": "puppet/controller.yaml",
                                    "file": "puppet/controller.yaml",
                                    "capabilities": {...},
                                    "meets_requires": true, "reason": null}, ...],
                       "chosen": "puppet/controller.yaml"}]}
"chosen" is null when no option or several meet requires; "reason" says why an option
does not. A file that cannot be read or is not a valid template is reported as
file:line:column and the command exits 1 without printing a summary.
"""


@click.command("capabilities", help=_CAPABILITIES_HELP)
@click.option(
    "-t",
    "--template",
    "files",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False),
    metavar="TEMPLATE",
    help="A template to inspect; repeatable.",
)
@environments_option
@output_format(FORMATS, "table")
def capabilities(files: tuple[str, ...], environments: tuple[str, ...], fmt: str) -> None:
    if not files and not environments:
        raise click.UsageError("give at least one template (-t TEMPLATE) or environment (-e ENV)")
    templates = _Templates()
    for path in files:
        templates.read(path, must_be_template=True)
    choices: list[dict[str, Any]] = []
    requires: dict[str, list[str]] = {}
    if environments:
        choices, requires = _registry_choices(environments, templates)
    if any(d.is_error for d in templates.found):
        report([d for d in templates.found if d.is_error])
        raise Rejected("a template or environment could not be read")
    emit(_summary(templates, choices, requires), fmt, _summary_table)


def _registry_choices(
    environments: tuple[str, ...], templates: _Templates
) -> tuple[list[dict[str, Any]], dict[str, list[str]]]:
    loaded = []
    for path in environments:
        environment, found = load_environment_file(path)
        templates.found.extend(found)
        loaded.append(environment)
    merged, found = merge_environments(loaded)
    templates.found.extend(found)
    requires = {str(key): [str(v) for v in values] for key, values in merged.requires.items()}
    choices = []
    for where, entry in _list_entries(merged.resource_registry.user_block, ("resource_registry",)):
        types: tuple[str, ...] = () if is_glob(entry.key) else (entry.key,)
        options = []
        matching = []
        for option in entry.options:
            location = template_location(option, entry.base_dir)
            declared = templates.read(location, must_be_template=True)
            row: dict[str, Any] = {"template": option, "file": location}
            if declared is None:
                row.update(capabilities=None, meets_requires=False, reason="cannot be read")
            else:
                reason = unmet(declared.capabilities, requires, types)
                row.update(
                    capabilities=_plain_capabilities(declared),
                    meets_requires=reason is None,
                    reason=reason,
                )
                if reason is None:
                    matching.append(option)
            options.append(row)
        choices.append(
            {
                "type": entry.key,
                "entry": ".".join(where),
                "environment": entry.file,
                "options": options,
                "chosen": matching[0] if len(matching) == 1 else None,
            }
        )
    return choices, requires


def _list_entries(
    block: RegistryBlock, path: tuple[str, ...]
) -> Iterator[tuple[tuple[str, ...], RegistryEntry]]:
    """Every list entry of a registry, general ones first, then per-resource blocks."""
    for key, item in block.items.items():
        if isinstance(item, RegistryEntry) and item.is_choice:
            yield (*path, key), item
    for key, child in block.blocks():
        yield from _list_entries(child, (*path, key))


def _summary(
    templates: _Templates, choices: list[dict[str, Any]], requires: dict[str, list[str]]
) -> dict[str, Any]:
    offered: dict[str, list[str]] = {}
    types: dict[str, list[str]] = {}
    listed = []
    for path, declared in templates.order:
        capabilities = _plain_capabilities(declared)
        listed.append({"file": path, "capabilities": capabilities})
        for key, values in capabilities.items():
            target = types if key == RESOURCE_TYPE else offered
            for value in values:
                if key == RESOURCE_TYPE:
                    claimed = target.setdefault(value, [])
                    if path not in claimed:
                        claimed.append(path)
                elif value not in target.setdefault(key, []):
                    target[key].append(value)
    return {
        "capabilities": offered,
        "resource_types": types,
        "templates": listed,
        "requires": requires,
        "choices": choices,
    }


def _summary_table(data: dict[str, Any], console: Console) -> None:
    if data["capabilities"]:
        rows = [{"capability": k, "values": ", ".join(v)} for k, v in data["capabilities"].items()]
        console.print(simple_table(rows, ["capability", "values"], "Capabilities", ["capability"]))
    if data["resource_types"]:
        rows = [
            {"resource_type": k, "templates": "\n".join(v)}
            for k, v in data["resource_types"].items()
        ]
        console.print(
            simple_table(rows, ["resource_type", "templates"], "Resource types", ["resource_type"])
        )
    if not data["capabilities"] and not data["resource_types"]:
        console.print("No capabilities declared.")
    if data["requires"]:
        requires = ", ".join(f"{k}: {describe_values(v)}" for k, v in data["requires"].items())
        from rich.text import Text

        console.print(Text("Requires: ", style="bold") + Text(requires))
    if data["choices"]:
        rows = []
        for choice in data["choices"]:
            lines = []
            for option in choice["options"]:
                mark = "*" if option["template"] == choice["chosen"] else "-"
                caps = option["capabilities"]
                shown = (
                    ", ".join(f"{k}: {describe_values(v)}" for k, v in caps.items())
                    if caps
                    else "(no capabilities)"
                    if caps is not None
                    else "(cannot be read)"
                )
                lines.append(f"{mark} {option['template']} {{{shown}}}")
            rows.append(
                {
                    "type": choice["type"],
                    "options": "\n".join(lines),
                    "chosen": choice["chosen"] or "(none: fix requires)",
                }
            )
        console.print(
            simple_table(rows, ["type", "options", "chosen"], "Registry choices", ["type"])
        )


# --------------------------------------------------------------------------- capabilities-find


_FIND_HELP = """Find the templates whose capabilities match every --capability KEY=VALUE.

\b
A template matches --capability KEY=VALUE when its capabilities have KEY with VALUE (or a
list holding VALUE); with several it must match each of them, so two for one key find
templates offering both values. --capability resource_type=TYPE finds the templates that
can stand in for TYPE.

\b
PATH is a file or, with -r, a directory searched recursively for .yaml, .yml, .json and
.template files (hidden directories skipped). Documents without a version key
(environments, other data) are passed over; files named directly are always read.

\b
JSON (-f json) is a list, one object per matching template, in the order found:
  [{"file": "puppet/controller.yaml",
    "capabilities": {"deployment": ["puppet"],
                     "resource_type": ["OS::TripleO::Controller"]}}]
Files that cannot be read or are invalid templates are reported as file:line:column; the
matches found are still printed and the command exits 1.
"""


@click.command("capabilities-find", help=_FIND_HELP)
@click.option("-r", "--recursive", is_flag=True, help="Search directories recursively.")
@click.option(
    "--capability",
    "wanted",
    multiple=True,
    required=True,
    metavar="KEY=VALUE",
    help="A capability to match; repeatable (all must match).",
)
@record_options
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True), metavar="PATH...")
def capabilities_find(
    recursive: bool,
    wanted: tuple[str, ...],
    fmt: str,
    columns: tuple[str, ...],
    paths: tuple[str, ...],
) -> None:
    requirements = _requirements(wanted)
    for path in paths:
        if os.path.isdir(path) and not recursive:
            raise click.UsageError(f"{path} is a directory; give -r to search it")
    templates = _Templates()
    for path in _walk(paths):
        templates.read(path, must_be_template=False)
    rows = []
    for path, declared in templates.order:
        if all(offers(declared.capabilities, key, value) for key, value in requirements):
            rows.append({"file": path, "capabilities": _plain_capabilities(declared)})
    if rows and fmt == "table" and not columns:
        emit(rows, fmt, _find_table)
    elif rows or fmt != "table":
        emit_rows(rows, fmt, columns, ["file", "capabilities"])
    else:
        shown = " ".join(f"{key}={value}" for key, value in requirements)
        click.echo(f"No template matches {shown}.", err=True)
    errors = [d for d in templates.found if d.is_error]
    if errors:
        report(errors)
        raise Rejected("some files could not be read")


def _requirements(wanted: tuple[str, ...]) -> list[tuple[str, str]]:
    result = []
    for item in wanted:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"expected KEY=VALUE, got {item!r}", param_hint="--capability")
        result.append((key.strip(), value))
    return result


def _walk(paths: tuple[str, ...]) -> Iterator[str]:
    """Files to read, in order: each named file, and each document under each directory.

    Named files are read whatever their name (the user asked for them); a walk reads only
    document suffixes, so READMEs and scripts in a template tree are not errors.
    """
    for path in paths:
        if not os.path.isdir(path):
            yield path
            continue
        for directory, subdirectories, names in os.walk(path):
            subdirectories[:] = sorted(d for d in subdirectories if not d.startswith("."))
            for name in sorted(names):
                if name.endswith(DOCUMENT_SUFFIXES):
                    yield os.path.normpath(os.path.join(directory, name))


def _find_table(rows: list[dict[str, Any]], console: Console) -> None:
    shown = [
        {
            "file": row["file"],
            "capabilities": "\n".join(
                f"{k}: {describe_values(v)}" for k, v in row["capabilities"].items()
            ),
        }
        for row in rows
    ]
    console.print(simple_table(shown, ["file", "capabilities"], no_wrap=["file"]))
