"""Fulfilment: which component fulfils each requirement of a blueprint, once
`stoker.blueprint.inference` has chosen every component's type.

The rule is seed 003's, applied to components: a candidate qualifies when it declares the
capability asked for (a component type in ``component``, a requirement type in ``offers``,
each matched attribute's value in ``match.A``) and the global ``providers`` requirement
allows its implementation name. Exactly one qualifying candidate is chosen; none or
several is an error at the requirement (or component) that names every candidate and why
it was rejected, so a wrong choice is never made silently. A requirement nobody in the
blueprint fulfils is fulfilled by a component added from the library (a WAR's app
server, an app server's host), which in turn has its own requirements fulfilled.
"""

from __future__ import annotations

import re
from typing import Any

from stoker.blueprint import codes
from stoker.blueprint.decisions import (
    CLOUD_TYPES,
    GLOBAL_TYPES,
    PROVIDERS,
    Decisions,
    Fulfilment,
    Rejection,
    TypeChoice,
    listed,
)
from stoker.blueprint.existing import (
    USABLE,
    ExistingLookup,
    StackReference,
    existing_types,
    parse_reference,
    unchanged_reason,
)
from stoker.blueprint.flow import find_cycle
from stoker.blueprint.inference import TypeInference
from stoker.blueprint.library import Library, LibraryType
from stoker.blueprint.model import Blueprint, Component, Requirement, fresh_id
from stoker.diagnostics import Diagnostic, Span


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]+", "_", re.split(r"[.:]", text)[-1]).strip("_").lower()


class _Resolver(TypeInference):
    def __init__(
        self, blueprint: Blueprint, library: Library, existing: ExistingLookup | None = None
    ) -> None:
        super().__init__(blueprint, library)
        self.existing = existing

    def globals_first(self) -> None:
        for requirement in self.blueprint.requires:
            if requirement.type is None:
                self.error(
                    codes.BLUEPRINT_SHAPE,
                    f"a global requirement needs a type (one of {', '.join(GLOBAL_TYPES)}); "
                    f"got the value {requirement.value!r}",
                    requirement,
                )
                continue
            if requirement.type not in GLOBAL_TYPES:
                self.error(
                    codes.BLUEPRINT_TYPE,
                    f'unknown global requirement type "{requirement.type}"; the global ones '
                    f"are {', '.join(GLOBAL_TYPES)}",
                    requirement,
                )
                continue
            why = "global requirement"
            if requirement.type == PROVIDERS:
                for key in requirement.attributes:
                    if key not in ("allow", "deny"):
                        self.error(
                            codes.BLUEPRINT_SHAPE,
                            f'providers takes allow and deny (lists of globs), not "{key}"',
                            requirement,
                        )
                self.allow = _globs(requirement.attributes.get("allow"))
                self.deny = _globs(requirement.attributes.get("deny"))
                why = f"allow {self.allow or ['*']}, deny {self.deny or []}"
            self.result.fulfilments.append(Fulfilment(requirement, "global", why=why))

    # ----------------------------------------------------------------- fulfilment
    def attribute_reason(
        self, requirement: Requirement, owner: LibraryType, candidate: LibraryType
    ) -> str | None:
        assert requirement.type is not None
        if requirement.type not in candidate.offers:
            return f"it does not offer {requirement.type}"
        for key, value in requirement.attributes.items():
            text = str(value).lower() if isinstance(value, bool) else str(value)
            if key in candidate.match:
                if text not in candidate.match[key]:
                    accepted = ", ".join(candidate.match[key])
                    return f"its {key} is one of {accepted}, not {text}"
            elif key not in owner.parameters and key not in candidate.parameters:
                return f"neither it nor {owner.primary} understands attribute {key}"
        return self.provider_reason(candidate)

    def fulfil_all(self) -> None:
        queue = list(self.blueprint.components.values())
        while queue:
            component = queue.pop(0)
            kind = self.result.type_of(component.id)
            if kind is None:
                continue
            for need in kind.needs:
                if component.id in self.result.nested_in:
                    continue
                if not any(r.type == need for r in component.requires):
                    component.requires.append(
                        Requirement(
                            need,
                            f"needed by type {kind.primary}",
                            owner=component.id,
                            path=component.path,
                            span=component.span,
                        )
                    )
            for requirement in component.requires:
                added = self.fulfil(requirement, component, kind)
                if added is not None:
                    queue.append(added)

    def fulfil(
        self, requirement: Requirement, component: Component, owner: LibraryType
    ) -> Component | None:
        kind = requirement.type
        if kind is None:
            return None
        if kind in GLOBAL_TYPES:
            self.error(
                codes.BLUEPRINT_TYPE,
                f"{requirement.label}: {kind} is a global requirement; write it under the "
                "blueprint's requires",
                requirement,
            )
            return None
        if not owner.understands(kind):
            understood = ", ".join(sorted(owner.requirements)) or "none"
            self.error(
                codes.BLUEPRINT_TYPE,
                f"{requirement.label}: type {owner.primary} ({owner.implementation}) does not "
                f"understand requirement {kind}; it understands {understood}",
                requirement,
            )
            return None
        if kind in CLOUD_TYPES:
            self.result.fulfilments.append(
                Fulfilment(requirement, "cloud", why="answered by the cloud at compile time")
            )
            return None
        fulfilment = Fulfilment(requirement, "component")
        self.result.fulfilments.append(fulfilment)
        if requirement.fulfillment:
            self.named(requirement, owner, fulfilment)
            return None
        return self.search(requirement, component, owner, fulfilment)

    def named(self, requirement: Requirement, owner: LibraryType, fulfilment: Fulfilment) -> None:
        for index, ident in enumerate(requirement.fulfillment):
            span = (
                requirement.fulfillment_spans[index]
                if index < len(requirement.fulfillment_spans)
                else requirement.span
            )
            target = self.blueprint.components.get(ident)
            reference = parse_reference(ident) if target is None else None
            if reference is not None:
                self.named_existing(requirement, owner, fulfilment, reference, span)
                continue
            if target is None:
                known = ", ".join(self.blueprint.components)
                self.result.diagnostics.append(
                    Diagnostic(
                        codes.BLUEPRINT_UNFULFILLED,
                        f'{requirement.label}: fulfillment names "{ident}", which is no '
                        f"component of the blueprint (it has {known})",
                        requirement.path,
                        span or requirement.span,
                    )
                )
                continue
            candidate = self.result.type_of(ident)
            if candidate is None:
                continue  # its type could not be chosen: reported there
            reason = self.attribute_reason(requirement, owner, candidate)
            if reason is not None:
                fulfilment.rejected.append(Rejection(f"{ident} ({candidate.describe()})", reason))
                self.error(
                    codes.BLUEPRINT_UNFULFILLED,
                    f'{requirement.label}: the named component "{ident}" cannot fulfil it: '
                    f"{reason}",
                    requirement,
                )
                continue
            fulfilment.fulfillers.append(ident)
        fulfilment.why = "named by fulfillment"
        for ident in fulfilment.fulfillers:
            found = self.result.existing.get(ident)
            if found is not None:
                fulfilment.why += (
                    f"; {ident} is the existing {found.label}, physical id {found.physical_id}"
                )

    def named_existing(
        self,
        requirement: Requirement,
        owner: LibraryType,
        fulfilment: Fulfilment,
        reference: StackReference,
        span: Span | None,
    ) -> None:
        """A fulfillment naming a resource of an existing stack (`stoker.blueprint.existing`):
        it qualifies as the library template its type is, like any candidate, and must
        not need to be changed (receive a value, take an attribute)."""

        def fail(reason: str) -> None:
            self.result.diagnostics.append(
                Diagnostic(
                    codes.BLUEPRINT_UNFULFILLED,
                    f"{requirement.label}: fulfillment names the existing stack resource "
                    f'"{reference.text}", which cannot fulfil it: {reason}',
                    requirement.path,
                    span or requirement.span,
                )
            )

        if self.existing is None:
            fail("there is no store of stacks to look it up in here")
            return
        found = self.existing(reference)
        if isinstance(found, str):
            fail(found)
            return
        if found.status not in USABLE:
            fail(f"the {found.label} is {found.status}")
            return
        candidates = existing_types(found, self.library)
        chosen: list[LibraryType] = []
        rejected: list[Rejection] = []
        for candidate in candidates:
            reason = self.attribute_reason(requirement, owner, candidate)
            if reason is None:
                reason = unchanged_reason(requirement, owner, candidate)
            if reason is None:
                chosen.append(candidate)
            else:
                rejected.append(Rejection(f"{reference.text} as {candidate.describe()}", reason))
        fulfilment.rejected.extend(rejected)
        if not candidates:
            fail(
                f"its type {found.type} is no component type of the library (no template "
                "has it as resource_type or component)"
            )
        elif not chosen:
            fail("; ".join(r.render() for r in rejected))
        elif len(chosen) > 1:
            names = ", ".join(c.describe() for c in chosen)
            fail(f"its type {found.type} is {len(chosen)} library templates: {names}")
        else:
            how = f"the existing {found.label}"
            self.result.existing[reference.text] = found
            self.result.choices[reference.text] = TypeChoice(chosen[0], how, rejected)
            fulfilment.fulfillers.append(reference.text)

    def search(
        self,
        requirement: Requirement,
        component: Component,
        owner: LibraryType,
        fulfilment: Fulfilment,
    ) -> Component | None:
        kind = requirement.type
        assert kind is not None
        local: list[str] = []
        # a requirement nobody wrote (a type's ``needs``) gets a component of its own: an
        # app server and a database are not put on one host unless the author says so
        needed = requirement.type_from.startswith("needed by")
        others = [] if needed else list(self.blueprint.components.values())
        for other in others:
            candidate = self.result.type_of(other.id)
            if other.id == component.id or candidate is None or kind not in candidate.offers:
                continue
            reason = self.attribute_reason(requirement, owner, candidate)
            if reason is None:
                local.append(other.id)
            else:
                fulfilment.rejected.append(
                    Rejection(f"{other.id} ({candidate.describe()})", reason)
                )
        if len(local) == 1:
            fulfilment.fulfillers = local
            fulfilment.why = f"the one component of the blueprint that offers {kind}"
            return None
        if len(local) > 1:
            self.error(
                codes.BLUEPRINT_AMBIGUOUS,
                f"{requirement.label}: {len(local)} components of the blueprint fulfil it "
                f"({', '.join(local)}); name one with fulfillment",
                requirement,
            )
            return None
        chosen: list[LibraryType] = []
        for candidate in self.library.types:
            if kind not in candidate.offers:
                continue
            reason = self.attribute_reason(requirement, owner, candidate)
            if reason is None:
                chosen.append(candidate)
            else:
                fulfilment.rejected.append(Rejection(candidate.describe(), reason))
        if len(chosen) != 1:
            if chosen:
                names = ", ".join(c.describe() for c in chosen)
                self.error(
                    codes.BLUEPRINT_AMBIGUOUS,
                    f"{requirement.label}: {len(chosen)} library templates fulfil it: {names}; "
                    "name a component with fulfillment, or narrow the global providers "
                    f"requirement (rejected: {listed(fulfilment.rejected)})",
                    requirement,
                )
            else:
                self.error(
                    codes.BLUEPRINT_UNFULFILLED,
                    f"{requirement.label}: nothing fulfils it: no component of the blueprint "
                    f"offers {kind}, and no library template qualifies: "
                    f"{listed(fulfilment.rejected)}",
                    requirement,
                )
            return None
        added = Component(
            id=fresh_id(f"{component.id}_{_slug(kind)}", self.blueprint.components),
            type=chosen[0].primary,
            type_from=f"added to fulfil {kind} of {component.id}",
            id_given=False,
            origin="added",
            path=requirement.path,
            span=requirement.span,
        )
        self.blueprint.components[added.id] = added
        self.result.choices[added.id] = TypeChoice(chosen[0], added.type_from)
        fulfilment.fulfillers = [added.id]
        fulfilment.why = (
            f"no component of the blueprint offers {kind}; added {added.id} from the library's "
            f"one qualifying template {chosen[0].describe()}"
        )
        return added


def _globs(value: Any) -> list[str]:
    if value is None:
        return []
    return [str(v) for v in (value if isinstance(value, list) else [value])]


def decide(
    blueprint: Blueprint, library: Library, existing: ExistingLookup | None = None
) -> Decisions:
    """Choose every component's type and every requirement's fulfiller (see the module);
    ``existing`` finds the stack resources a fulfillment may name."""
    resolver = _Resolver(blueprint, library, existing)
    resolver.globals_first()
    resolver.infer_all()
    resolver.fulfil_all()
    if resolver.result.ok:
        cycle = find_cycle(resolver.result)
        if cycle is not None:
            resolver.result.diagnostics.append(cycle)
    return resolver.result
