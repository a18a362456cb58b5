"""Type inference and fulfilment: which library template each component is, and which
component fulfils each requirement.

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

import fnmatch
import re
from dataclasses import dataclass, field
from typing import Any

from stoker.blueprint import codes
from stoker.blueprint.existing import (
    USABLE,
    ExistingLookup,
    ExistingResource,
    StackReference,
    existing_types,
    parse_reference,
    unchanged_reason,
)
from stoker.blueprint.flow import find_cycle
from stoker.blueprint.library import Library, LibraryType
from stoker.blueprint.model import FULFILLMENT, Blueprint, Component, Requirement
from stoker.diagnostics import Diagnostic, Span

PROVIDERS = "providers"
JURISDICTION = "jurisdiction"
GLOBAL_TYPES = (PROVIDERS, JURISDICTION)
#: requirements the cloud answers (a flavor, an image), not another component
CLOUD_TYPES = ("minRam", "minCpu", "minDisk", "os")
HOST = "host"


@dataclass(frozen=True, slots=True)
class Rejection:
    candidate: str
    reason: str

    def render(self) -> str:
        return f"{self.candidate}: {self.reason}"


@dataclass(slots=True)
class TypeChoice:
    chosen: LibraryType | None
    how: str  # "explicit", or what it was inferred from
    rejected: list[Rejection] = field(default_factory=list)


@dataclass(slots=True)
class Fulfilment:
    requirement: Requirement
    kind: str  # "component", "cloud", "global"
    fulfillers: list[str] = field(default_factory=list)
    why: str = ""
    rejected: list[Rejection] = field(default_factory=list)


@dataclass(slots=True)
class Resolution:
    blueprint: Blueprint
    library: Library
    choices: dict[str, TypeChoice] = field(default_factory=dict)
    fulfilments: list[Fulfilment] = field(default_factory=list)
    #: a nested component (a tier's nodespec) -> the component it is made inside
    nested_in: dict[str, str] = field(default_factory=dict)
    #: a fulfillment entry naming a resource of an existing stack -> that resource
    #: (its type is in ``choices`` under the same key)
    existing: dict[str, ExistingResource] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def type_of(self, component_id: str) -> LibraryType | None:
        choice = self.choices.get(component_id)
        return choice.chosen if choice else None

    def for_component(self, component_id: str) -> list[Fulfilment]:
        return [f for f in self.fulfilments if f.requirement.owner == component_id]

    def global_requirement(self, kind: str) -> Requirement | None:
        for requirement in self.blueprint.requires:
            if requirement.type == kind:
                return requirement
        return None

    def host_of(self, component_id: str) -> str | None:
        for f in self.for_component(component_id):
            if f.requirement.type == HOST and f.fulfillers:
                return f.fulfillers[0]
        return None

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]+", "_", re.split(r"[.:]", text)[-1]).strip("_").lower()


def _listed(rejections: list[Rejection]) -> str:
    return "; ".join(r.render() for r in rejections) if rejections else "the library has none"


class _Resolver:
    def __init__(
        self, blueprint: Blueprint, library: Library, existing: ExistingLookup | None = None
    ) -> None:
        self.blueprint = blueprint
        self.library = library
        self.existing = existing
        self.result = Resolution(blueprint, library)
        self.allow: list[str] = []
        self.deny: list[str] = []

    # ----------------------------------------------------------------- helpers
    def error(self, code: str, message: str, subject: Requirement | Component) -> None:
        span = subject.span or Span(self.blueprint.file, 1, 1)
        self.result.diagnostics.append(Diagnostic(code, message, subject.path, span))

    def provider_reason(self, candidate: LibraryType) -> str | None:
        name = candidate.implementation
        for pattern in self.deny:
            if fnmatch.fnmatchcase(name, pattern):
                return f"the global providers requirement denies it ({pattern})"
        if self.allow and not any(fnmatch.fnmatchcase(name, p) for p in self.allow):
            allowed = ", ".join(self.allow)
            return f"the global providers requirement allows only {allowed}"
        return None

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

    # ----------------------------------------------------------------- types
    def pointing(self, component_id: str) -> list[Requirement]:
        everyone = [r for c in self.blueprint.components.values() for r in c.requires]
        return [r for r in everyone if component_id in r.fulfillment]

    def choose_type(self, component: Component) -> None:
        if component.type is not None:
            self.choose_explicit(component, component.type)
        else:
            self.infer_type(component)

    def choose_explicit(self, component: Component, kind: str) -> None:
        candidates = self.library.implementing(kind)
        rejected = []
        for candidate in candidates:
            reason = self.provider_reason(candidate)
            if reason:
                rejected.append(Rejection(candidate.describe(), reason))
        chosen = [c for c in candidates if self.provider_reason(c) is None]
        if len(chosen) == 1:
            self.result.choices[component.id] = TypeChoice(chosen[0], "explicit", rejected)
            return
        if not candidates:
            known = sorted({name for t in self.library.types for name in t.components})
            self.error(
                codes.BLUEPRINT_TYPE,
                f'component "{component.id}": unknown component type "{kind}"; '
                f"the library has {', '.join(known)}",
                component,
            )
        else:
            self.type_error(component, f'type "{kind}"', chosen, rejected)
        self.result.choices[component.id] = TypeChoice(None, "explicit", rejected)

    def infer_type(self, component: Component) -> None:
        pointing = [r for r in self.pointing(component.id) if r.type]
        own = [r.type for r in component.requires if r.type and r.type not in GLOBAL_TYPES]
        reasons: list[str] = []
        if pointing:
            reasons.append(
                "the requirements pointing at it ("
                + ", ".join(f"{r.type} of {r.owner}" for r in pointing)
                + ")"
            )
        if own:
            reasons.append("its own requirements (" + ", ".join(own) + ")")
        if component.content is not None:
            reasons.append("its content")
        if not reasons:
            self.error(
                codes.BLUEPRINT_TYPE,
                f'component "{component.id}" has no type, and nothing to infer one from: give '
                "it a type, requirements, or point a requirement at it with fulfillment",
                component,
            )
            self.result.choices[component.id] = TypeChoice(None, "")
            return
        how = "inferred from " + " and ".join(reasons)
        chosen: list[LibraryType] = []
        rejected: list[Rejection] = []
        for candidate in self.library.types:
            reason = self.inference_reason(candidate, pointing, own, component)
            if reason is None:
                reason = self.provider_reason(candidate)
            if reason is None:
                chosen.append(candidate)
            elif _related(candidate, pointing, own):
                # only near misses are worth showing: a template that offers or
                # understands something asked for here
                rejected.append(Rejection(candidate.describe(), reason))
        if len(chosen) == 1:
            self.result.choices[component.id] = TypeChoice(chosen[0], how, rejected)
            component.type = chosen[0].primary
            component.type_from = how
            return
        self.type_error(component, "a type " + how, chosen, rejected)
        self.result.choices[component.id] = TypeChoice(None, how, rejected)

    @staticmethod
    def inference_reason(
        candidate: LibraryType, pointing: list[Requirement], own: list[str], component: Component
    ) -> str | None:
        for requirement in pointing:
            assert requirement.type is not None
            if requirement.type not in candidate.offers:
                return f"it does not offer {requirement.type}"
        for kind in own:
            if not candidate.understands(kind):
                return f"it does not understand requirement {kind}"
        if component.content is not None and candidate.content is None:
            return "it takes no content"
        return None

    def type_error(
        self,
        component: Component,
        wanted: str,
        chosen: list[LibraryType],
        rejected: list[Rejection],
    ) -> None:
        if chosen:
            names = ", ".join(c.describe() for c in chosen)
            self.error(
                codes.BLUEPRINT_AMBIGUOUS,
                f'component "{component.id}": {len(chosen)} library templates qualify as '
                f"{wanted}: {names}; give it an explicit type or narrow the global providers "
                f"requirement (rejected: {_listed(rejected)})",
                component,
            )
        else:
            self.error(
                codes.BLUEPRINT_TYPE,
                f'component "{component.id}": no library template qualifies as {wanted}: '
                f"{_listed(rejected)}",
                component,
            )

    def settle_requirements(self, component: Component) -> None:
        """Give untyped requirements the type's default requirement type and abbreviated
        values the requirement type's default attribute."""
        kind = self.result.type_of(component.id)
        if kind is None:
            return
        for requirement in component.requires:
            if requirement.type is None:
                if kind.default_requirement is None:
                    self.error(
                        codes.BLUEPRINT_TYPE,
                        f'{requirement.label}: it has no type, and type "{kind.primary}" '
                        "declares no default requirement type; write the type",
                        requirement,
                    )
                    continue
                requirement.type = kind.default_requirement
                requirement.type_from = f"the default requirement type of {kind.primary}"
            if requirement.abbreviated and requirement.value is not None:
                attribute = kind.requirements.get(requirement.type)
                if attribute is None:
                    continue  # reported by fulfil(): not understood
                if attribute == FULFILLMENT:
                    values = requirement.value
                    for item in values if isinstance(values, list) else [values]:
                        requirement.fulfillment.append(str(item).removeprefix("id:"))
                        requirement.fulfillment_spans.append(requirement.span)
                else:
                    requirement.attributes[attribute] = requirement.value
                requirement.value = None

    def infer_all(self) -> None:
        pending = list(self.blueprint.components.values())
        for component in pending:
            if component.type is not None:
                self.choose_type(component)
                self.settle_requirements(component)
        pending = [c for c in pending if c.id not in self.result.choices]
        while pending:
            ready = [c for c in pending if all(r.type for r in self.pointing(c.id))]
            batch = ready or pending  # what is left points at itself: try anyway
            for component in batch:
                self.choose_type(component)
                self.settle_requirements(component)
            pending = [c for c in pending if c.id not in self.result.choices]
        for component in self.blueprint.components.values():
            kind = self.result.type_of(component.id)
            if kind is None:
                continue
            for attribute in kind.nest:
                nested = component.attributes.get(attribute)
                if isinstance(nested, str) and nested in self.blueprint.components:
                    self.result.nested_in[nested] = component.id

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
                    f"requirement (rejected: {_listed(fulfilment.rejected)})",
                    requirement,
                )
            else:
                self.error(
                    codes.BLUEPRINT_UNFULFILLED,
                    f"{requirement.label}: nothing fulfils it: no component of the blueprint "
                    f"offers {kind}, and no library template qualifies: "
                    f"{_listed(fulfilment.rejected)}",
                    requirement,
                )
            return None
        added = Component(
            id=self.fresh_id(f"{component.id}_{_slug(kind)}"),
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

    def fresh_id(self, wanted: str) -> str:
        candidate, number = wanted, 2
        while candidate in self.blueprint.components:
            candidate = f"{wanted}_{number}"
            number += 1
        return candidate


def _related(candidate: LibraryType, pointing: list[Requirement], own: list[str]) -> bool:
    return any(r.type in candidate.offers for r in pointing) or any(
        candidate.understands(kind) for kind in own
    )


def _globs(value: Any) -> list[str]:
    if value is None:
        return []
    return [str(v) for v in (value if isinstance(value, list) else [value])]


def resolve(
    blueprint: Blueprint, library: Library, existing: ExistingLookup | None = None
) -> Resolution:
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
