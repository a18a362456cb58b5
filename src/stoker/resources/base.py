"""The resource-type plugin interface: what a type declares and what the engine calls.

A plugin declares its property and attribute schemas; the engine validates properties
against them, drives the async handlers, records every transition, and answers
``get_attr``/``get_resource`` from what the handlers stored. No engine code names a type.
"""

from __future__ import annotations

from abc import ABC
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple

from stoker.errors import ActionNotSupported
from stoker.errors import ResourceFailure as ResourceFailure
from stoker.resources.schema import AttributeSchema, PropertySchema


class ResourceView(NamedTuple):
    """What the engine knows about one resource, as plugins see it (read-only)."""

    name: str
    type: str
    physical_id: str | None
    properties: Mapping[str, Any]
    data: Mapping[str, Any]
    action: str
    status: str


def _no_time_limit() -> float | None:
    return None


@dataclass(slots=True)
class ResourceContext:
    """Everything a handler may use. ``data`` is the plugin's own persisted state:
    whatever a handler puts there is recorded with the resource (JSON-native values only)
    and comes back in later handlers and attribute lookups."""

    stack_name: str
    stack_id: str
    project_id: str
    resource_name: str
    #: "<stack>-<resource>-<12 random>", for types that name things
    physical_name: str
    properties: Mapping[str, Any]  # validated, defaults applied
    data: dict[str, Any] = field(default_factory=dict)
    physical_id: str | None = None
    #: seconds left before the stack operation times out (None: no limit)
    time_left: Callable[[], float | None] = _no_time_limit
    #: the current state of another resource of this stack, by its reference id
    #: (physical id) or name; used by WaitCondition to read its handle's signals
    lookup: Callable[[str], Awaitable[ResourceView | None]] | None = None
    #: sleep that returns early (raising asyncio.CancelledError) when the operation
    #: stops
    sleep: Callable[[float], Awaitable[None]] | None = None
    #: record ``physical_id`` and ``data`` durably now, mid-handler (the resource stays
    #: IN_PROGRESS): a cloud type calls it the moment the cloud names what it made, so
    #: a process killed while polling resumes with that id instead of making a second
    checkpoint: Callable[[], Awaitable[None]] | None = None


class Traits(NamedTuple):
    """What the engine may and must do with a resource of a type, beyond its handlers.

    Declared together, as one value a plugin sets (``traits = Traits(...)``), so a type's
    author reads in one place how the engine treats it; every default is what an
    ordinary cloud resource needs. A subclass that changes one trait of its parent's
    writes ``traits = Parent.traits._replace(...)``.
    """

    #: any attribute name is accepted (OS::Heat::None, provider templates, groups)
    dynamic_attributes: bool = False
    #: any property is accepted, unchecked (OS::Heat::None stands in for any type)
    dynamic_properties: bool = False
    #: the property names whose change can be applied in place (the rest replace)
    #: are the schema's update_allowed ones; this type never updates or replaces
    never_updates: bool = False
    #: ``show`` too comes from ``attribute`` (OS::Heat::None answers every attribute,
    #: ``show`` included, with null, as Heat's NoneResource does)
    own_show: bool = False
    #: whether ``deletion_policy: Snapshot`` is supported (Heat: only types that can
    #: snapshot what they delete: a Cinder volume, backed up first); such a type's delete
    #: is then `ResourcePlugin.snapshot_and_delete`
    snapshot_delete: bool = False
    #: a FAILED resource of this type is replaced by an update (Heat's
    #: ``needs_replace_failed``); a type that can mend itself in place says False
    replace_failed: bool = True
    #: an update always reaches the resource, changed or not (Heat's StackResource: the
    #: nested stack's own resources decide whether anything changes)
    always_updates: bool = False
    #: whether the handlers act outside stoker's own records (a server, a file, a wait
    #: for a signal). A type without one (OS::Heat::None, Value, RandomString) is created
    #: and deleted with its IN_PROGRESS and its result in one commit: nothing happens
    #: between the two that a crash could leave behind, so state first still holds
    #: (`stoker.engine.operation.Operation.act`); that commit is not waited for
    #: (`stoker.engine.recorder.Recorder.defer`), so a chain shares a few commits.
    external_effect: bool = True
    #: whether the handlers read `ResourceContext.physical_name`; a type that never does
    #: (OS::Heat::None) gets "" there instead of a name with 12 random characters made
    #: for each of its resources
    reads_physical_name: bool = True


class ResourcePlugin(ABC):  # noqa: B024 - handlers are optional, each has a default
    """Base of every resource type. Subclasses set the class attributes and override the
    handlers they need; a handler that is not overridden completes at once."""

    type_name: ClassVar[str]
    properties_schema: ClassVar[Mapping[str, PropertySchema]] = {}
    attributes_schema: ClassVar[Mapping[str, AttributeSchema]] = {}
    #: what the engine may and must do with a resource of this type, in one place
    traits: ClassVar[Traits] = Traits()

    def validate(self, properties: Mapping[str, Any]) -> list[str]:
        """Problems across validated properties that no single property schema can express
        (RandomString: the minimums must fit in the length). Empty when all is well."""
        return []

    async def create(self, context: ResourceContext) -> None:  # noqa: B027 - optional hook
        """Make the resource. Set ``context.physical_id`` (and ``context.data``)."""

    def needs_replace(self, previous: ResourceView, properties: Mapping[str, Any]) -> bool:
        """Whether an update to ``properties`` must replace the resource even though every
        changed property is update_allowed (Heat's ``needs_replace_with_prop_diff``)."""
        return False

    async def update(self, context: ResourceContext, previous: ResourceView) -> None:  # noqa: B027 - optional hook
        """Apply new properties (``context.properties``) in place; ``previous`` is the
        resource as it was. Called only when no replacement is needed."""

    async def delete(self, context: ResourceContext) -> None:  # noqa: B027 - optional hook
        """Remove the resource. Must succeed for a resource whose create never finished."""

    async def snapshot_and_delete(self, context: ResourceContext) -> None:
        """Keep a copy, then remove (``deletion_policy: Snapshot``, for a type whose
        `Traits.snapshot_delete` is set)."""
        await self.delete(context)

    async def adopt(self, physical_id: str, data: Mapping[str, Any]) -> None:  # noqa: B027 - optional hook
        """Check that ``physical_id`` (an adopted stack's resource, with its recorded
        ``data``) can be taken over; raise ResourceFailure if not. Types backed by a
        cloud ask it, as the adopting stack's owner: another project's resource is the
        cloud's own 404."""

    async def suspend(self, context: ResourceContext) -> None:  # noqa: B027 - optional hook
        """Pause the resource (stack suspend)."""

    async def resume(self, context: ResourceContext) -> None:  # noqa: B027 - optional hook
        """Undo `suspend` (stack resume)."""

    async def signal(self, context: ResourceContext, details: Any) -> None:
        """Receive a signal (``stoker stack signal``); store what later handlers need in
        ``context.data``. Types that take no signals refuse it, in Heat's words."""
        raise ActionNotSupported("signal is not supported for resource.")

    def reference_id(self, view: ResourceView) -> str | None:
        """What get_resource / Ref returns: the physical id, else the logical name."""
        return view.physical_id or view.name

    def attribute(self, view: ResourceView, name: str) -> Any:
        """The value of attribute ``name`` (already checked to be declared)."""
        return view.data.get("attributes", {}).get(name)
