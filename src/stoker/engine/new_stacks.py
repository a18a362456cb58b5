"""A new stack's first records, for every action that makes one (create and adopt).

A stack is born in one transaction: its row (already claimed by the operation that makes
it, see `leases.claim_new`), each of its resources as INIT in the order of its
definition, and the stack's ``<ACTION>_IN_PROGRESS`` event. The operation then runs
under that claim from its first write on, so no other process can take the stack
between its insert and its first resource.
"""

from __future__ import annotations

import asyncio
import string
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from stoker.definition import StackDefinition
from stoker.engine import leases
from stoker.engine.state import Action, ResourceRecord, StackExists, StackRecord, Status
from stoker.errors import OperationRefused, StackLimitReached

if TYPE_CHECKING:
    from stoker.engine.stacks import StackEngine

_NAME_CHARS = string.ascii_letters + string.digits + "_.-"


@dataclass(slots=True)
class CreateRequest:
    name: str
    definition: StackDefinition  # validated with every parameter required
    template: dict[str, Any]  # the template as data (what is stored)
    environment: dict[str, Any]  # the merged environment as data
    parameters: dict[str, Any] = field(default_factory=dict)  # as given on the command line
    timeout_mins: int | None = None
    disable_rollback: bool = True
    tags: tuple[str, ...] = ()
    template_file: str | None = None
    #: the clouds.yaml entry the stack's cloud resources are made in (kept with it)
    cloud: str | None = None
    #: the new stack's id, when the caller keeps something under it before the stack
    #: exists (`stoker serve`'s trust: a takeover of the create must find it); else new
    stack_id: str | None = None


def check_stack_name(name: str) -> None:
    """Heat's rule: a letter, then up to 254 letters, digits, '_', '.' or '-'
    (OperationRefused otherwise)."""
    if not name or not name[0].isascii() or not name[0].isalpha():
        raise OperationRefused(f'Invalid stack name "{name}": it must start with a letter')
    if len(name) > 255 or any(c not in _NAME_CHARS for c in name):
        raise OperationRefused(
            f'Invalid stack name "{name}": use at most 255 letters, digits, "_", "." and "-"'
        )


@contextmanager
def refused_as_heat(name: str) -> Iterator[None]:
    """A new stack ``name`` refused in Heat's words (OperationRefused): its name taken by
    a live stack (StackExists), or its project at its stack limit (StackLimitReached).
    The refusal keeps what it came from as its context: it tells the API Heat's error
    type (`stoker.api.errors.from_stoker`)."""
    try:
        yield
    except StackExists:
        raise OperationRefused(f"The Stack ({name}) already exists.") from None
    except StackLimitReached as error:
        raise OperationRefused(str(error)) from None


async def write_new(
    engine: StackEngine,
    stack: StackRecord,
    definition: StackDefinition,
    types: Mapping[str, str],
) -> tuple[list[ResourceRecord], leases.Fence]:
    """Insert ``stack`` (``<its action>_IN_PROGRESS``) with its resources INIT, typed as
    the registry resolved them (``types``; the template's type otherwise), claimed by
    ``engine``: the records written and the claim's fence. A top-level stack counts
    toward its project's limit (StackLimitReached); a taken name raises StackExists."""
    assert definition.graph is not None
    requires = definition.graph.requires
    resources = definition.template.resources
    initial = [
        ResourceRecord(
            stack_id=stack.id,
            name=name,
            type=types.get(name, resources[name].type),
            action=Action.INIT,
            status=Status.COMPLETE,
            requires=tuple(requires[name]),
            created_at=stack.created_at,
        )
        for name in definition.resource_order()
    ]
    event = engine.stack_event(
        stack, stack.action, Status.IN_PROGRESS, stack.status_reason, stack.created_at
    )
    claim, fence = leases.claim_new(stack.id, engine.engine_id, engine.settings.lease_seconds)
    limit = engine.settings.max_stacks_per_project if stack.parent_id is None else None
    await asyncio.to_thread(engine.store.create_stack, stack, initial, [event], claim, limit)
    if engine.stack_listener is not None:
        engine.stack_listener(stack, len(initial))
    engine.notify([event])
    return initial, fence
