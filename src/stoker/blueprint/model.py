"""The located model of a blueprint: what both syntaxes (map and list, YAML and JSON)
are read into, so every later stage (inference, fulfilment, compile, explain) sees one
shape and every error can point at the line the author wrote."""

from __future__ import annotations

from collections.abc import Container, Iterable
from dataclasses import dataclass, field
from typing import Any

from stoker.diagnostics import Path, Span

FULFILLMENT = "fulfillment"


def fresh_id(wanted: str, taken: Container[str]) -> str:
    """``wanted``, or the first of ``wanted_2``, ``wanted_3``, ... not ``taken``."""
    candidate, number = wanted, 2
    while candidate in taken:
        candidate = f"{wanted}_{number}"
        number += 1
    return candidate


@dataclass(slots=True)
class Requirement:
    """One requirement, of a component or global.

    ``type`` is None until the owner's default requirement type is known (a requirement
    written without one). ``value`` holds an abbreviated requirement's value (``minRam:
    4gb``), which becomes the type's default attribute once the library says which."""

    type: str | None
    #: how the type is known: "explicit", "key" (map syntax), "list key" (a one-key item),
    #: or "default requirement type of X" once inferred
    type_from: str
    attributes: dict[str, Any] = field(default_factory=dict)
    value: Any = None
    abbreviated: bool = False
    #: component ids named by ``fulfillment`` (``id:`` prefix removed)
    fulfillment: list[str] = field(default_factory=list)
    #: where each fulfillment entry was written
    fulfillment_spans: list[Span | None] = field(default_factory=list)
    owner: str | None = None  # the component id; None for a global requirement
    path: Path = ()
    span: Span | None = None

    @property
    def label(self) -> str:
        """``requirement "minRam" of component "my_server"`` (how errors name it)."""
        kind = self.type or "(untyped)"
        where = f'component "{self.owner}"' if self.owner else "the blueprint (global)"
        return f'requirement "{kind}" of {where}'


@dataclass(slots=True)
class Component:
    id: str
    type: str | None
    #: how the type is known: "explicit", or what it was inferred from
    type_from: str
    requires: list[Requirement] = field(default_factory=list)
    content: Any = None
    attributes: dict[str, Any] = field(default_factory=dict)
    #: False when the id was made up (list syntax without ``id``, an in-line component,
    #: a component the fulfilment added)
    id_given: bool = True
    #: "blueprint", "in-line" (written as a requirement's value) or "added" (by fulfilment)
    origin: str = "blueprint"
    path: Path = ()
    span: Span | None = None


@dataclass(slots=True)
class Blueprint:
    name: str | None
    components: dict[str, Component]
    requires: list[Requirement]
    file: str
    #: where artifact ``content`` references resolve: a directory, or a ZIP's members
    base: str | None = None


def requirement_of(requirements: Iterable[Requirement], kind: str) -> Requirement | None:
    """The first of ``requirements`` of type ``kind``."""
    return next((requirement for requirement in requirements if requirement.type == kind), None)
