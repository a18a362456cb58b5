"""Template capabilities: what a provider template declares, and choosing one by it.

This is stoker's reading of the heat-specs "resource-capabilities" spec, which Heat never
implemented (heat-semantics §9): a HOT template (from 2015-10-15) may carry a top-level
``capabilities:`` mapping (``deployment: puppet``, ``resource_type: OS::TripleO::Controller``),
an environment may carry ``requires:`` with the same shape, and a ``resource_registry``
entry may list several templates. `choose_provider` picks the one template of such a list
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

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from stoker import codes
from stoker.diagnostics import Diagnostic, Path, Span
from stoker.environment.registry import ResolvedType, ResourceRegistry, TemplateRef
from stoker.environment.registry_section import RESOURCES_KEY, describe_kind
from stoker.errors import TemplateError
from stoker.template.loader import Document, read_file
from stoker.template.nodes import MappingNode, key_span, span_of, value_span
from stoker.template.versions import (
    CAPABILITIES_FROM,
    VERSION_KEYS,
    Format,
    TemplateVersion,
    accepted_values,
    lookup,
)

CAPABILITIES = "capabilities"
RESOURCE_TYPE = "resource_type"  # the one key with a meaning: the types a template implements

Capabilities = Mapping[str, Sequence[str]]
Reader = Callable[[str], Document]


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
        found.append(
            Diagnostic(
                code,
                f'{section} "{key}" has no value; give a string or a list of strings',
                path,
                span,
            )
        )
        return None
    if not isinstance(item, list):
        hint = ""
        if isinstance(item, bool | int | float):
            hint = "; quote it so it compares as the text you wrote"
        found.append(
            Diagnostic(
                code,
                f'{section} "{key}" must be a string or a list of strings '
                f"(got {describe_kind(item)}){hint}",
                path,
                span,
            )
        )
        return None
    if not item:
        found.append(
            Diagnostic(
                code,
                f'{section} "{key}" is an empty list; give at least one value',
                path,
                span,
            )
        )
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


def read_capabilities(data: Any) -> dict[str, list[str]]:
    """The well-formed entries of a template document's ``capabilities`` section.

    ``data`` is a whole template (the loaded top-level mapping). Lenient on purpose, for
    callers that only want to look; `template_capabilities` also reports what is wrong.
    """
    if not isinstance(data, dict):
        return {}
    mapping, _ = check_capability_values(data.get(CAPABILITIES))
    return {key: list(values) for key, values in mapping.items()}


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


def is_template_data(data: Any) -> bool:
    """A mapping with a version key: what a search through a tree treats as a template.

    Environments, role data and other YAML files in the same tree have none.
    """
    return isinstance(data, dict) and any(key in data for key in VERSION_KEYS)


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
        found.append(
            Diagnostic(
                codes.VERSION,
                f'The template version is invalid: "{key}: {value}". "{key}" should be one '
                f"of: {', '.join(accepted_values(key))}",
                (key,),
                value_span(data, key) or Span(file, 1, 1),
            )
        )
    return version


# --------------------------------------------------------------------------- matching


def _as_list(values: str | Sequence[str]) -> list[str]:
    return [values] if isinstance(values, str) else list(values)


def describe_values(values: str | Sequence[str]) -> str:
    """``puppet`` or ``[puppet, docker]``: a value as it would be written in flow YAML."""
    items = _as_list(values)
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
    return bool(set(_as_list(offered)) & set(_as_list(values)))


def unmet(
    capabilities: Capabilities, requires: Capabilities, types: Sequence[str] = ()
) -> str | None:
    """Why a template declaring ``capabilities`` cannot be chosen, or None when it can.

    ``types`` are the resource types the registry mapped through to the list; a declared
    ``resource_type`` must name one of them.
    """
    declared = capabilities.get(RESOURCE_TYPE)
    if declared is not None and types and not set(_as_list(declared)) & set(types):
        wanted = types[0] if len(types) == 1 else "any of " + describe_values(types)
        return f"its resource_type is {describe_values(declared)}, not {wanted}"
    for key, wanted_values in requires.items():
        offered = capabilities.get(key)
        if offered is None:
            return f"it declares no {key}"
        if not offers(capabilities, key, wanted_values):
            values = _as_list(wanted_values)
            target = values[0] if len(values) == 1 else "any of " + describe_values(values)
            return f"its {key} is {describe_values(offered)}, not {target}"
    return None


# --------------------------------------------------------------------------- choosing


def caching_read(read: Reader = read_file) -> Reader:
    """``read`` remembering each document it loaded, for one validation or operation.

    Every resource of a list-mapped type asks for the same candidates (a ResourceGroup of
    a thousand members would read each file a thousand times); pass one of these as
    ``read`` to `choose_provider`/`resolve_provider` for the duration of one run. Failures
    are not remembered, so each caller still sees the error.
    """
    memo: dict[str, Document] = {}

    def cached(location: str) -> Document:
        document = memo.get(location)
        if document is None:
            document = memo[location] = read(location)
        return document

    return cached


class _Candidate(NamedTuple):
    """A provider template that may fulfil a type (a named tuple: cheaper to create at
    import than a frozen dataclass, see `merge._Chosen`)."""

    ref: TemplateRef
    declared: TemplateCapabilities | None  # None: could not be read as a template
    reason: str | None = None  # why it is not chosen, None when it qualifies


def choose_provider(
    resolved: ResolvedType,
    requires: Capabilities,
    *,
    read: Reader = read_file,
    resource_name: str | None = None,
) -> tuple[TemplateRef | None, list[Diagnostic]]:
    """The template of a registry list that ``requires`` selects, with what went wrong.

    For a type that resolved to one template the answer is that template, and for a
    plugin type None, both without findings. For a list: every candidate is read with
    ``read`` (a location on disk, as `TemplateRef.location` gives it; pass another reader
    to serve templates from a request's ``files``), and exactly one must qualify (see the
    module docstring). An unreadable or invalid candidate is an error even if another
    qualifies, because it might have qualified too; so is zero or several qualifying. The
    errors point at the registry entry and name the type, the requirement, and each
    candidate with its capabilities; notes give the positions of the ``requires`` values
    and of each listed template.
    """
    if not resolved.candidates:
        if resolved.template is None:
            return None, []
        return TemplateRef(resolved.template, resolved.base_dir, None, resolved.user), []
    found: list[Diagnostic] = []
    wanted = {key: _as_list(values) for key, values in requires.items()}
    types = resolved.mapped_types
    candidates: list[_Candidate] = []
    for ref in resolved.candidates:
        declared = _read_candidate(ref, resolved, read, found)
        reason = None if declared is None else unmet(declared.capabilities, wanted, types)
        candidates.append(_Candidate(ref, declared, reason))
    if any(candidate.declared is None for candidate in candidates):
        return None, found
    chosen = [candidate for candidate in candidates if candidate.reason is None]
    if len(chosen) == 1:
        return chosen[0].ref, found
    found.append(_choice_error(resolved, requires, wanted, candidates, chosen, resource_name))
    return None, found


def _read_candidate(
    ref: TemplateRef, resolved: ResolvedType, read: Reader, found: list[Diagnostic]
) -> TemplateCapabilities | None:
    location = ref.location
    listed = f'"{ref.path}", listed for {resolved.type_name}'
    looked = f" (looked for {location})" if location != ref.path else ""
    if "://" in location:
        found.append(
            Diagnostic(
                codes.PROVIDER_CHOICE,
                f"cannot read {listed}: it is a URL, and stoker reads provider templates from "
                "files only; give a path",
                _entry_path(resolved),
                ref.span,
            )
        )
        return None
    try:
        document = read(location)
    except TemplateError as error:
        found.extend(error.diagnostics)
        found.append(
            Diagnostic(
                codes.PROVIDER_CHOICE,
                f"cannot read the capabilities of {listed}: it is not a valid document{looked}",
                _entry_path(resolved),
                ref.span,
            )
        )
        return None
    except OSError as error:
        reason = error.strerror or str(error)
        found.append(
            Diagnostic(
                codes.PROVIDER_CHOICE,
                f"cannot read {listed}: {reason}{looked}; no template can be chosen without it",
                _entry_path(resolved),
                ref.span,
            )
        )
        return None
    declared = template_capabilities(document)
    if declared is None:
        found.append(
            Diagnostic(
                codes.PROVIDER_CHOICE,
                f"{listed}, is not a template: it has no heat_template_version{looked}",
                _entry_path(resolved),
                ref.span,
            )
        )
        return None
    found.extend(declared.diagnostics)
    return declared if declared.ok else None


def _entry_path(resolved: ResolvedType) -> Path:
    """Where the list entry is in the environment: ``resource_registry[.resources...].KEY``."""
    if not resolved.chain:
        return ("resource_registry",)
    step = resolved.chain[-1]
    scope: Path = (RESOURCES_KEY, *step.scope) if step.scope else ()
    return ("resource_registry", *scope, step.key)


def _choice_error(
    resolved: ResolvedType,
    requires: Capabilities,
    wanted: Mapping[str, list[str]],
    candidates: list[_Candidate],
    chosen: list[_Candidate],
    resource_name: str | None,
) -> Diagnostic:
    subject = f'"{resolved.requested}"'
    if resolved.type_name != resolved.requested:
        subject += f" (mapped to {resolved.type_name})"
    if resource_name is not None:
        subject += f' of resource "{resource_name}"'
    requirement = f"requires {describe_capabilities(wanted)}" if wanted else "no requires"

    def has(candidate: _Candidate) -> str:
        assert candidate.declared is not None
        return f"{candidate.ref.path} has {describe_capabilities(candidate.declared.capabilities)}"

    if not chosen:
        listed = "; ".join(f"{has(c)} ({c.reason})" for c in candidates)
        message = (
            f"cannot choose a template for {subject}: none of the {len(candidates)} listed "
            f"meets {requirement}: {listed}"
        )
    else:
        listed = "; ".join(has(c) for c in chosen)
        qualify = f"{len(chosen)} of the {len(candidates)} listed"
        if wanted:
            qualify += f" meet {requirement}"
        else:
            qualify += " qualify and no requires is set to choose between them"
        message = (
            f"cannot choose a template for {subject}: {qualify}: {listed}; {_tell_apart(chosen)}"
        )
    notes: list[str] = []
    for key in wanted:
        span = value_span(requires, key)
        if span is not None:
            notes.append(f"requires {key} is set at {span}")
    if not wanted:
        notes.append("no environment has a requires: section")
    for candidate in candidates:
        ref, declared = candidate.ref, candidate.declared
        assert declared is not None
        where = f" at {ref.span}" if ref.span is not None else ""
        note = f"{ref.path} is listed{where}"
        if ref.location != ref.path:
            note += f" (read from {ref.location})"
        if declared.span is not None:
            note += f"; its capabilities are at {declared.span}"
        else:
            note += "; it has no capabilities section"
        notes.append(note)
    step_span = resolved.chain[-1].span if resolved.chain else None
    return Diagnostic(
        codes.PROVIDER_CHOICE, message, _entry_path(resolved), step_span, notes=tuple(notes)
    )


def _tell_apart(chosen: list[_Candidate]) -> str:
    """A hint naming a capability whose values differ between the qualifying templates.

    A capability that gives each of them a value of its own is preferred, since setting it
    in ``requires`` always leaves exactly one.
    """
    declared = [c.declared.capabilities for c in chosen if c.declared is not None]
    keys: list[str] = []
    for capabilities in declared:
        keys.extend(key for key in capabilities if key not in keys and key != RESOURCE_TYPE)
    differing = []
    for key in keys:
        seen = [tuple(capabilities.get(key, ())) for capabilities in declared]
        if len(set(seen)) > 1:
            differing.append((len(set(seen)) == len(seen) and all(seen), key))
    if differing:
        differing.sort(key=lambda item: not item[0])
        key = differing[0][1]
        values: list[str] = []
        for capabilities in declared:
            values.extend(v for v in capabilities.get(key, ()) if v not in values)
        return f"set requires {key} to one of {', '.join(values)} to pick one"
    return (
        "they declare nothing that tells them apart; give each a capability of its own "
        "(e.g. deployment: puppet) and set it in requires"
    )


def resolve_provider(
    registry: ResourceRegistry,
    requires: Capabilities,
    type_name: str,
    resource_name: str | None = None,
    nested_path: tuple[str, ...] = (),
    *,
    read: Reader = read_file,
    known: Callable[[str], bool] | None = None,
) -> tuple[ResolvedType, list[Diagnostic]]:
    """`ResourceRegistry.resolve`, then the choice a registry list leaves open.

    When the type resolves to a list, the result has ``template`` and ``base_dir`` of the
    chosen candidate (``candidates`` keeps the list, and ``describe()`` shows the choice);
    when no single candidate qualifies, the result is returned unchosen (``template``
    None) with the errors. Any other resolution is returned as is, without findings.
    Raises `RegistryLoopError` as ``resolve`` does. Use `caching_read` as ``read`` when
    resolving many resources in one run.
    """
    resolved = registry.resolve(type_name, resource_name, nested_path, known=known)
    if not resolved.candidates:
        return resolved, []
    chosen, found = choose_provider(resolved, requires, read=read, resource_name=resource_name)
    if chosen is None:
        return resolved, found
    return resolved._replace(template=chosen.path, base_dir=chosen.base_dir), found
