"""Choosing the provider template of a registry list, and resolving a type to it.

A ``resource_registry`` entry may list several templates; the environment's ``requires``
selects the one whose declared capabilities meet it (`stoker.environment.capabilities`
reads what a template declares and states the rule). Choosing needs each candidate read,
so it belongs with the resolution of types, which reads provider templates, rather than
with the environment, which only holds the registry: `resolve_provider` is the registry's
own walk (`ResourceRegistry.resolve`) followed by this choice.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple

from stoker import codes
from stoker.diagnostics import Diagnostic, Path
from stoker.environment.capabilities import (
    RESOURCE_TYPE,
    Capabilities,
    TemplateCapabilities,
    as_list,
    describe_capabilities,
    template_capabilities,
    unmet,
)
from stoker.environment.registry import ResourceRegistry
from stoker.environment.registry_section import RESOURCES_KEY
from stoker.environment.resolved import ResolvedType, TemplateRef
from stoker.errors import TemplateError
from stoker.resolution.providers import Reader
from stoker.template.loader import read_file
from stoker.template.nodes import value_span


class _Candidate(NamedTuple):
    """A provider template that may fulfil a type (a named tuple: cheaper to create at
    import than a frozen dataclass, see `stoker.environment.merge._Chosen`)."""

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
    wanted = {key: as_list(values) for key, values in requires.items()}
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
        problem = (
            f"cannot read {listed}: it is a URL, and stoker reads provider templates from "
            "files only; give a path"
        )
    else:
        try:
            document = read(location)
        except TemplateError as error:
            found.extend(error.diagnostics)
            problem = (
                f"cannot read the capabilities of {listed}: it is not a valid document{looked}"
            )
        except OSError as error:
            reason = error.strerror or str(error)
            problem = (
                f"cannot read {listed}: {reason}{looked}; no template can be chosen without it"
            )
        else:
            declared = template_capabilities(document)
            if declared is not None:
                found.extend(declared.diagnostics)
                return declared if declared.ok else None
            problem = f"{listed}, is not a template: it has no heat_template_version{looked}"
    found.append(Diagnostic(codes.PROVIDER_CHOICE, problem, _entry_path(resolved), ref.span))
    return None


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
    *,
    read: Reader = read_file,
    known: Callable[[str], bool] | None = None,
) -> tuple[ResolvedType, list[Diagnostic]]:
    """`ResourceRegistry.resolve`, then the choice a registry list leaves open.

    When the type resolves to a list, the result has ``template`` and ``base_dir`` of the
    chosen candidate (``candidates`` keeps the list, and ``describe()`` shows the choice);
    when no single candidate qualifies, the result is returned unchosen (``template``
    None) with the errors. Any other resolution is returned as is, without findings.
    Raises `RegistryLoopError` as ``resolve`` does. Read through one
    `ProviderTemplates` when resolving many resources in one run (a ResourceGroup of a
    thousand members would read each candidate a thousand times).
    """
    resolved = registry.resolve(type_name, resource_name, known=known)
    if not resolved.candidates:
        return resolved, []
    chosen, found = choose_provider(resolved, requires, read=read, resource_name=resource_name)
    if chosen is None:
        return resolved, found
    return resolved._replace(template=chosen.path, base_dir=chosen.base_dir), found
