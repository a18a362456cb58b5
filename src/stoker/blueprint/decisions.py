"""What analysing a blueprint decides (`Decisions`): each component's library type and
each requirement's fulfillers, with every rejected candidate kept beside the choice.

These records are shared by the two halves of deciding (`stoker.blueprint.inference`
chooses types, `stoker.blueprint.fulfil` chooses fulfillers) and by everything that reads
the outcome: the compiler, ``blueprint explain`` and the flow checks. (Called decisions,
not a resolution: `stoker.resolution` is the resolution of a resource's type.)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from stoker.blueprint.existing import ExistingResource
from stoker.blueprint.library import Library, LibraryType
from stoker.blueprint.model import Blueprint, Requirement, requirement_of
from stoker.diagnostics import Diagnostic

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
class Decisions:
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
        return requirement_of(self.blueprint.requires, kind)

    def host_of(self, component_id: str) -> str | None:
        for f in self.for_component(component_id):
            if f.requirement.type == HOST and f.fulfillers:
                return f.fulfillers[0]
        return None

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)


def listed(rejections: list[Rejection]) -> str:
    return "; ".join(r.render() for r in rejections) if rejections else "the library has none"
