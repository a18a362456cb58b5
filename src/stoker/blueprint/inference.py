"""Type inference: which library template each component of a blueprint is.

Types are settled before any requirement is fulfilled, because the fulfilment rule matches
a requirement against the capabilities the chosen types offer. A component without a type
gets the one template that offers everything pointed at it and understands its own
requirements; none or several is an error naming every near miss and why it missed.
"""

from __future__ import annotations

import fnmatch

from stoker.blueprint import codes
from stoker.blueprint.decisions import GLOBAL_TYPES, Decisions, Rejection, TypeChoice, listed
from stoker.blueprint.library import Library, LibraryType
from stoker.blueprint.model import FULFILLMENT, Blueprint, Component, Requirement
from stoker.diagnostics import Diagnostic, Span


class TypeInference:
    """Chooses component types into ``result``; `stoker.blueprint.fulfil` extends it with
    the fulfilment of requirements, which needs the same helpers."""

    def __init__(self, blueprint: Blueprint, library: Library) -> None:
        self.blueprint = blueprint
        self.library = library
        self.result = Decisions(blueprint, library)
        #: the global providers requirement's globs (set before types are chosen)
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
                f"requirement (rejected: {listed(rejected)})",
                component,
            )
        else:
            self.error(
                codes.BLUEPRINT_TYPE,
                f'component "{component.id}": no library template qualifies as {wanted}: '
                f"{listed(rejected)}",
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


def _related(candidate: LibraryType, pointing: list[Requirement], own: list[str]) -> bool:
    return any(r.type in candidate.offers for r in pointing) or any(
        candidate.understands(kind) for kind in own
    )
