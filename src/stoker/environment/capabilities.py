"""Template capabilities: what a provider template declares, and the rule that chooses
one by it (the choosing itself, which reads the candidates, is
`stoker.resolution.choice`).

This is stoker's reading of the heat-specs "resource-capabilities" spec, which Heat never
implemented (heat-semantics §9): a HOT template (from 2015-10-15) may carry a top-level
``capabilities:`` mapping (``deployment: puppet``, ``resource_type: OS::TripleO::Controller``),
an environment may carry ``requires:`` with the same shape, and a ``resource_registry``
entry may list several templates. `stoker.resolution.choice` picks the one template of such a list
whose capabilities meet ``requires``; zero or several is a validation error that names
every candidate and what it offers, because "it picked the wrong one" is the failure this
feature must never have silently.

The rule, as the spec states it: a candidate qualifies when, for every key of
``requires``, its capabilities have that key with a value in common (a list on either
side matches any member), and when its ``resource_type``, if it declares one, names one of
the types the resource was mapped through. A ``requires`` key that a candidate does not
declare disqualifies it: every template of a list has to declare every required key.

Values are strings or lists of strings, nothing else: an unquoted ``2`` or ``true`` would
compare unequal to the string a template author wrote, so they are reported, not coerced.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from stoker import codes
from stoker.diagnostics import Diagnostic, Path, Span
from stoker.environment.registry_section import describe_kind
from stoker.template.loader import Document
from stoker.template.nodes import MappingNode, key_span, span_of, value_span
from stoker.template.versions import (
    CAPABILITIES_FROM,
    VERSION_KEYS,
    Format,
    TemplateVersion,
    is_template_data,
    lookup,
    unknown_version,
)

CAPABILITIES = "capabilities"
RESOURCE_TYPE = "resource_type"  # the one key with a meaning: the types a template implements

Capabilities = Mapping[str, Sequence[str]]


# --------------------------------------------------------------------------- value shapes


def check_capability_values(
    value: Any,
    *,
    section: str = CAPABILITIES,
    code: str = codes.CAPABILITY_VALUE,
    span: Span | None = None,
) -> tuple[MappingNode, list[Diagnostic]]:
    """Read a ``capabilities`` (or ``requires``) mapping into ``name -> [values]``.

    Every value becomes a list of strings (a lone string is a one-item list, repeats are
    dropped), keeping the positions of keys and values so a failed choice can point at
    them. Bad entries are reported and left out; the rest is still returned.
    """
    found: list[Diagnostic] = []
    result = MappingNode(span_of(value) or span)
    if value is None:
        return result, found
    if not isinstance(value, dict):
        found.append(
            Diagnostic(
                code,
                f'The "{section}" section must be a mapping of names to a string or a list of '
                f"strings (got {describe_kind(value)})",
                (section,),
                span_of(value) or span,
            )
        )
        return result, found
    for key, item in value.items():
        path: Path = (section, str(key))
        k_span = key_span(value, key) or span
        if not isinstance(key, str):
            found.append(Diagnostic(code, f"{section} name {key!r} must be a string", path, k_span))
            continue
        values = _values(section, key, item, path, value_span(value, key) or k_span, code, found)
        if values is None:
            continue
        result[key] = values
        if k_span is not None:
            result.key_spans[key] = k_span
        v_span = value_span(value, key)
        if v_span is not None:
            result.value_spans[key] = v_span
    return result, found


def _values(
    section: str,
    key: str,
    item: Any,
    path: Path,
    span: Span | None,
    code: str,
    found: list[Diagnostic],
) -> list[str] | None:
    if isinstance(item, str):
        return [str(item)]
    if item is None:
        problem = f'{section} "{key}" has no value; give a string or a list of strings'
    elif not isinstance(item, list):
        hint = ""
        if isinstance(item, bool | int | float):
            hint = "; quote it so it compares as the text you wrote"
        problem = (
            f'{section} "{key}" must be a string or a list of strings '
            f"(got {describe_kind(item)}){hint}"
        )
    elif not item:
        problem = f'{section} "{key}" is an empty list; give at least one value'
    else:
        problem = None
    if problem is not None:
        found.append(Diagnostic(code, problem, path, span))
        return None
    values: list[str] = []
    ok = True
    for index, member in enumerate(item):
        if not isinstance(member, str):
            found.append(
                Diagnostic(
                    code,
                    f'{section} "{key}": item {index + 1} must be a string '
                    f"(got {describe_kind(member)})",
                    (*path, index),
                    value_span(item, index) or span,
                )
            )
            ok = False
        elif member not in values:
            values.append(str(member))
    return values if ok else None


def capabilities_section_hint(version: TemplateVersion) -> str:
    """What to say when a template of ``version`` has a capabilities section it may not."""
    if version.format is Format.HOT:
        return (
            f" (capabilities need heat_template_version {CAPABILITIES_FROM} or later, and Heat "
            f"itself has none; this is {version})"
        )
    return (
        f" (capabilities is a HOT section, from heat_template_version {CAPABILITIES_FROM} on; "
        "Heat itself has none)"
    )


class TemplateCapabilities(NamedTuple):
    """What one template declares, with its findings (an empty mapping when it has none)."""

    file: str
    version: TemplateVersion | None
    capabilities: MappingNode
    span: Span | None  # of the ``capabilities`` key, when present
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)


def template_capabilities(document: Document) -> TemplateCapabilities | None:
    """The capabilities of a loaded template, checked; None when it is not a template.

    Reports an unknown version, a capabilities section in a version without one (the same
    message template validation gives) and badly shaped values, each with its position.
    """
    data = document.data
    if not is_template_data(data):
        return None
    found: list[Diagnostic] = []
    version = _version_of(data, document.file, found)
    section_span = key_span(data, CAPABILITIES)
    if CAPABILITIES not in data:
        return TemplateCapabilities(document.file, version, MappingNode(), None, tuple(found))
    if version is not None and not version.has_capabilities:
        found.append(
            Diagnostic(
                codes.SECTION,
                "The template section is invalid: capabilities"
                + capabilities_section_hint(version),
                (CAPABILITIES,),
                section_span or Span(document.file, 1, 1),
            )
        )
    mapping, shape = check_capability_values(data[CAPABILITIES], span=section_span)
    found.extend(shape)
    return TemplateCapabilities(document.file, version, mapping, section_span, tuple(found))


def _version_of(data: dict[Any, Any], file: str, found: list[Diagnostic]) -> TemplateVersion | None:
    present = [key for key in VERSION_KEYS if key in data]
    key = present[0]
    value = data[key]
    version = lookup(key, value) if isinstance(value, str) else None
    if version is None:
        found.append(unknown_version(key, value, value_span(data, key) or Span(file, 1, 1)))
    return version


# --------------------------------------------------------------------------- matching


def as_list(values: str | Sequence[str]) -> list[str]:
    """A capability's value as a list (one string is a list of one)."""
    return [values] if isinstance(values, str) else list(values)


def describe_values(values: str | Sequence[str]) -> str:
    """``puppet`` or ``[puppet, docker]``: a value as it would be written in flow YAML."""
    items = as_list(values)
    return items[0] if len(items) == 1 else "[" + ", ".join(items) + "]"


def describe_capabilities(capabilities: Capabilities) -> str:
    """``{deployment: puppet, resource_type: [A, B]}`` (``{}`` when empty)."""
    inner = ", ".join(f"{key}: {describe_values(v)}" for key, v in capabilities.items())
    return "{" + inner + "}"


def offers(capabilities: Capabilities, key: str, values: str | Sequence[str]) -> bool:
    """True when ``capabilities`` has ``key`` with at least one of ``values``."""
    offered = capabilities.get(key)
    if offered is None:
        return False
    return bool(set(as_list(offered)) & set(as_list(values)))


def unmet(
    capabilities: Capabilities, requires: Capabilities, types: Sequence[str] = ()
) -> str | None:
    """Why a template declaring ``capabilities`` cannot be chosen, or None when it can.

    ``types`` are the resource types the registry mapped through to the list; a declared
    ``resource_type`` must name one of them.
    """
    declared = capabilities.get(RESOURCE_TYPE)
    if declared is not None and types and not set(as_list(declared)) & set(types):
        wanted = types[0] if len(types) == 1 else "any of " + describe_values(types)
        return f"its resource_type is {describe_values(declared)}, not {wanted}"
    for key, wanted_values in requires.items():
        offered = capabilities.get(key)
        if offered is None:
            return f"it declares no {key}"
        if not offers(capabilities, key, wanted_values):
            values = as_list(wanted_values)
            target = values[0] if len(values) == 1 else "any of " + describe_values(values)
            return f"its {key} is {describe_values(offered)}, not {target}"
    return None
