"""Requirements fulfilled by a resource of a stack that already exists (seed 004: "a
Heat-specific URL to a pre-existing component").

A ``fulfillment`` entry names one in the form Heat itself shows a resource in (the
``links`` of ``stack resource show``), or shorter:

- ``http(s)://HOST/v1/PROJECT/stacks/NAME/ID/resources/RES`` (Heat's link, as shown);
- ``stacks/NAME[/ID]/resources/RES`` (the link's path from ``stacks/``);
- ``stack:NAME/RES`` (short).

The stack is looked up by name (or id) in the caller's project of the store; when an id
is given too it must be that stack's. The resource's type decides which library template
it counts as (one whose ``resource_type`` or ``component`` names that type), so it is
checked against the requirement like any other candidate; what flows from it is read from
the stack as ``get_attr`` would read it, and written into the compiled template as a
literal value: the existing stack is not changed, and the new stack does not depend on
it being the same stack later.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from stoker.blueprint import SOURCE_FILE
from stoker.blueprint.flow import resource_of
from stoker.blueprint.library import Library, LibraryType
from stoker.blueprint.model import Requirement
from stoker.errors import StokerError
from stoker.functions.base import Unresolved

if TYPE_CHECKING:
    from stoker.engine import StackEngine

_LINK = re.compile(
    r"^(?:https?://[^/]+(?:/[^/]+)*?/)?stacks/(?P<stack>[^/]+)(?:/(?P<id>[^/]+))?"
    r"/resources/(?P<resource>[^/]+)/?$"
)
_SHORT = re.compile(r"^stack:(?P<stack>[^/]+)/(?P<resource>[^/]+)$")


@dataclass(frozen=True, slots=True)
class StackReference:
    """A resource of an existing stack, as a fulfillment entry names it."""

    text: str  # as written
    stack: str
    stack_id: str | None
    resource: str


def parse_reference(text: str) -> StackReference | None:
    """The stack resource ``text`` names, or None when it names no stack resource (it is
    a component id)."""
    found = _LINK.match(text) or _SHORT.match(text)
    if found is None:
        return None
    groups = found.groupdict()
    return StackReference(text, groups["stack"], groups.get("id"), groups["resource"])


@dataclass(frozen=True, slots=True)
class ExistingResource:
    """What the fulfilment and the compiler need of an existing resource."""

    reference: StackReference
    stack_name: str
    stack_id: str
    type: str
    status: str  # ``CREATE_COMPLETE`` ...
    physical_id: str | None
    #: its attribute's value, as ``get_attr`` reads it; raises `LookupError` with the
    #: reason when it cannot be read
    attribute: Callable[[str], Any]

    @property
    def label(self) -> str:
        return f'resource "{self.reference.resource}" ({self.type}) of stack "{self.stack_name}"'


#: finds what a reference names: the resource, or why there is none
ExistingLookup = Callable[[StackReference], "ExistingResource | str"]

#: the states in which a resource's attributes can be read and it can serve
USABLE = frozenset(
    f"{action}_COMPLETE" for action in ("CREATE", "UPDATE", "RESUME", "CHECK", "SNAPSHOT")
)


def engine_lookup(engine: StackEngine, project: str) -> ExistingLookup:
    """References resolved in ``engine``'s store, in ``project`` only."""

    def lookup(reference: StackReference) -> ExistingResource | str:
        stack = engine.store.get_stack(reference.stack, project)
        if stack is None:
            return f'there is no stack "{reference.stack}" in project "{project}"'
        if reference.stack_id is not None and reference.stack_id not in (stack.id, stack.name):
            return f'stack "{reference.stack}" has the id {stack.id}, not {reference.stack_id}'
        records = {r.name: r for r in engine.store.resources(stack.id)}
        record = records.get(reference.resource)
        if record is None:
            names = ", ".join(sorted(records)) or "none"
            return (
                f'stack "{stack.name}" has no resource "{reference.resource}" '
                f"(its resources: {names})"
            )

        def read(resource: str, name: str) -> Any:
            try:
                runtime = engine.runtime(engine.definition_of(stack), records)
                return runtime.attribute(resource, name, ())
            except (StokerError, Unresolved) as error:
                raise LookupError(str(error)) from None

        def attribute(name: str) -> Any:
            try:
                return read(record.name, name)
            except LookupError:
                # a software component (a database) has no address of its own: in a stack
                # compiled from a blueprint it is its host's, as within one blueprint
                for host in _hosts(stack.files, record.name):
                    if host in records:
                        try:
                            return read(host, name)
                        except LookupError:
                            continue
                raise

        return ExistingResource(
            reference,
            stack.name,
            stack.id,
            record.type,
            f"{record.action.value}_{record.status.value}",
            record.physical_id,
            attribute,
        )

    return lookup


def existing_types(found: ExistingResource, library: Library) -> list[LibraryType]:
    """The library templates an existing resource counts as: those whose ``resource_type``
    or ``component`` names its type."""
    return [t for t in library.types if found.type in (t.resource_type, *t.components)]


def unchanged_reason(
    requirement: Requirement, owner: LibraryType, candidate: LibraryType
) -> str | None:
    """Why an existing resource would have to change to fulfil ``requirement``."""
    assert requirement.type is not None
    if requirement.type in candidate.receive:
        param = candidate.receive[requirement.type][0]
        return (
            f"across {requirement.type} it would receive its {param} from "
            f"{requirement.owner}, and an existing resource is not changed"
        )
    for key in requirement.attributes:
        if key not in candidate.match and key not in owner.parameters:
            return (
                f"its attribute {key} would have to be set, and an existing resource is not changed"
            )
    return None


def _hosts(files: Mapping[str, Any], resource: str) -> list[str]:
    """The resources hosting ``resource`` (its host, its host's host ...) in a stack
    compiled from a blueprint, found by resolving the blueprint it keeps among its files
    (`stoker.blueprint.SOURCE_FILE`) against the built-in library; none for another
    stack, or one whose blueprint no longer resolves."""
    # here, not at the top: stoker.blueprint.build imports this module's lookups
    from stoker.blueprint.build import Source, analyse

    text = files.get(SOURCE_FILE)
    if not isinstance(text, str):
        return []
    decisions = analyse(Source(text, SOURCE_FILE)).decisions
    if decisions is None or not decisions.ok:
        return []
    found: list[str] = []
    current = decisions.host_of(resource)
    while current is not None and current not in found:
        found.append(current)
        current = decisions.host_of(current)
    return [resource_of(decisions, host) for host in found]
