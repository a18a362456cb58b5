"""The statement catalog: every statement the store runs through its executor
(`stoker.store.executor`), by name, built with SQLAlchemy Core on the models, with named
bind parameters; the executor runs these constructs with the models' types on both
backends. A query with optional filters is one entry per variant.

Parameters that a ``SET`` or ``VALUES`` clause assigns are named ``new_<column>`` where a
``WHERE`` of the same statement names the column (SQLAlchemy reserves a column's own
name there). A constant NULL is written ``null()``, never a Python ``None`` (which would
be a parameter of its own).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from sqlalchemy import (
    JSON,
    ClauseElement,
    Select,
    bindparam,
    delete,
    func,
    insert,
    null,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.sql.dml import Update
from sqlalchemy.types import TypeEngine

from stoker.store.bulk import select_events, select_resources
from stoker.store.driver import one_row
from stoker.store.fence import FENCE_FIELDS, FenceCheck
from stoker.store.models import Document, RawTemplate, Resource, Snapshot, Stack, StoreMeta
from stoker.store.rows import (
    ACTION_SLOTS,
    STACK_INSERT_FIELDS,
    SUMMARY_NULLS,
    stack_list_name,
)
from stoker.store.types import UTCDateTime

P = bindparam
# a raw template's documents, each joined as a table of its own
_TEMPLATE = Document.__table__.alias("template_document")
_FILES = Document.__table__.alias("files_document")
_SHARED = Document.__table__.alias("shared_environment")
_DEFAULTS = Document.__table__.alias("parameter_defaults")

STACK_COLUMNS = (
    Stack.id,
    Stack.name,
    Stack.project,
    Stack.action,
    Stack.status,
    Stack.status_reason,
    _TEMPLATE.c.body.label("template"),
    RawTemplate.environment,
    _FILES.c.body.label("files"),
    Stack.parameters,
    Stack.created_at,
    Stack.updated_at,
    Stack.deleted_at,
    Stack.parent_id,
    Stack.parent_resource,
    Stack.tags,
    Stack.timeout_mins,
    Stack.disable_rollback,
    Stack.template_file,
    Stack.cloud,
    _SHARED.c.body.label("shared_environment"),
    _DEFAULTS.c.body.label("parameter_defaults"),
)


def _with_documents(query: Select[Any], raw_template_id: Any) -> Select[Any]:
    """``query`` joined with the raw template ``raw_template_id`` names and its
    documents (`stoker.store.documents`)."""
    return (
        query.join(RawTemplate, RawTemplate.id == raw_template_id)
        .join(_TEMPLATE, _TEMPLATE.c.id == RawTemplate.template_id)
        .join(_FILES, _FILES.c.id == RawTemplate.files_id)
        .outerjoin(_SHARED, _SHARED.c.id == RawTemplate.environment_id)
        .outerjoin(_DEFAULTS, _DEFAULTS.c.id == RawTemplate.parameter_defaults_id)
    )


# A stack joined with its template: what every stack read selects.
SELECT_STACKS = _with_documents(select(*STACK_COLUMNS), Stack.raw_template_id)
# A stack without its definition (template, environment, files, parameters: NULL), for
# listings: decoding those JSON columns is most of the time of listing many stacks.
SELECT_SUMMARIES = select(
    *(null().label(c.name) if c.name in SUMMARY_NULLS else c for c in STACK_COLUMNS)
)
_ORDER = (Stack.created_at, Stack.id)


def _typed(name: str, type_: TypeEngine[Any] | type[TypeEngine[Any]]) -> Any:
    return bindparam(name, type_=type_)


def _stack_lists() -> dict[str, Callable[[], ClauseElement]]:
    """`list_stacks` and `stack_summaries`, one entry per pair of filters."""
    entries: dict[str, Callable[[], ClauseElement]] = {}
    for summaries in (False, True):
        for nested in (False, True):
            for deleted in (False, True):
                base = SELECT_SUMMARIES if summaries else SELECT_STACKS
                conditions: list[Any] = [Stack.project == P("project")]
                if not nested:
                    conditions.append(Stack.parent_id.is_(None))
                if not deleted:
                    conditions.append(Stack.deleted_at.is_(None))
                query = base.where(*conditions).order_by(*_ORDER)
                name = stack_list_name(summaries=summaries, nested=nested, deleted=deleted)
                entries[name] = functools.partial(_same, query)
    return entries


def _same(statement: ClauseElement) -> ClauseElement:
    return statement


def _events(after: bool, limit: bool) -> ClauseElement:
    return select_events(
        P("stack_id"), P("after_id") if after else None, P("limit") if limit else None
    )


def _tree_summaries() -> ClauseElement:
    """The live stacks below ``stack_id`` at any depth, as summaries, oldest first: a
    recursive query on the indexed ``parent_id``, so walking a tree of nested stacks (the
    taints of TripleO's 238) is one read, not one per stack. Only live stacks are
    descended through, as a walk of the live children would; ``UNION`` (not ``ALL``)
    ends even on a cycle of parents no write makes."""
    below = (
        select(Stack.id)
        .where(Stack.parent_id == P("stack_id"), Stack.deleted_at.is_(None))
        .cte("below", recursive=True)
    )
    below = below.union(
        select(Stack.id).where(Stack.parent_id == below.c.id, Stack.deleted_at.is_(None))
    )
    return SELECT_SUMMARIES.where(Stack.id.in_(select(below.c.id))).order_by(*_ORDER)


def _count_live_top_level() -> ClauseElement:
    return select(func.count()).where(
        Stack.project == P("project"), Stack.deleted_at.is_(None), Stack.parent_id.is_(None)
    )


def _insert_stack() -> ClauseElement:
    table = Stack.__table__
    return insert(Stack).values({n: _typed(n, table.c[n].type) for n in STACK_INSERT_FIELDS})


def _change_definition() -> ClauseElement:
    table = Stack.__table__
    names = (
        "raw_template_id",
        "parameters",
        "template_file",
        "tags",
        "timeout_mins",
        "disable_rollback",
        "prev_raw_template_id",
        "prev_parameters",
        "prev_template_file",
    )
    values = {n: _typed(f"new_{n}", table.c[n].type) for n in names}
    return update(Stack).where(Stack.id == P("stack_id")).values(values)


def _release_lease() -> Update:
    """Give the claim up if it is still ``engine_id``'s (someone else's is left alone);
    also run on the driver, in an operation's last write (`compile_fence`)."""
    return (
        update(Stack)
        .where(Stack.id == P("stack_id"), Stack.lease_engine_id == P("engine_id"))
        .values(lease_engine_id=null(), lease_expires_at=null())
    )


def _acquire_lease() -> ClauseElement:
    claimable = or_(
        Stack.lease_engine_id.is_(None),
        Stack.lease_expires_at <= P("now"),
        Stack.lease_engine_id == P("engine_id"),
    )
    return (
        update(Stack)
        .where(Stack.id == P("stack_id"), claimable)
        .values(
            lease_engine_id=P("new_engine_id"),
            lease_expires_at=_typed("expires_at", UTCDateTime()),
            lease_generation=Stack.lease_generation + 1,
            cancel_request=null(),  # a request was for the operation that held it before
        )
    )


def _request_cancel() -> ClauseElement:
    """The actions are ``ACTION_SLOTS`` parameters, the unused ones NULL (which matches
    nothing): one statement for any number of actions, compiled once."""
    slots: list[Any] = [P(f"action_{i}") for i in range(ACTION_SLOTS)]
    return (
        update(Stack)
        .where(
            Stack.id == P("stack_id"),
            Stack.status == "IN_PROGRESS",
            Stack.action.in_(slots),
            Stack.lease_engine_id.is_not(None),
        )
        .values(cancel_request=P("request"))
    )


def _snapshot_values() -> dict[str, Any]:
    table = Snapshot.__table__
    names = ("stack_id", "name", "status", "status_reason", "data", "created_at")
    return {n: _typed(f"new_{n}", table.c[n].type) for n in names}


#: name -> builder of the construct
CATALOG: dict[str, Callable[[], ClauseElement]] = {
    # -- stacks
    "stack_by_id": lambda: SELECT_STACKS.where(
        Stack.id == P("stack_id"), Stack.project == P("project")
    ),
    "stack_by_name": lambda: SELECT_STACKS.where(
        Stack.name == P("name"), Stack.project == P("project"), Stack.deleted_at.is_(None)
    ),
    **_stack_lists(),
    "stacks_in_progress": lambda: SELECT_STACKS.where(
        Stack.parent_id.is_(None), Stack.deleted_at.is_(None), Stack.status == "IN_PROGRESS"
    ).order_by(*_ORDER),
    "stack_summary_by_id": lambda: SELECT_SUMMARIES.where(
        Stack.id == P("stack_id"), Stack.project == P("project")
    ),
    "tree_summaries": _tree_summaries,
    "count_stacks": _count_live_top_level,
    "stack_parameters": lambda: select(Stack.parameters).where(Stack.id == P("stack_id")),
    "stack_exists": lambda: select(Stack.id).where(Stack.id == P("stack_id")),
    "live_stack_id": lambda: select(Stack.id).where(
        Stack.project == P("project"), Stack.name == P("name"), Stack.deleted_at.is_(None)
    ),
    "insert_raw_template": lambda: (
        insert(RawTemplate)
        .values(
            template_id=P("template_id"),
            environment=_typed("environment", JSON()),
            environment_id=P("environment_id"),
            parameter_defaults_id=P("parameter_defaults_id"),
            files_id=P("files_id"),
        )
        .returning(RawTemplate.id)
    ),
    "insert_stack": _insert_stack,
    "mark_deleted": lambda: (
        update(Stack)
        .where(Stack.id == P("stack_id"), Stack.deleted_at.is_(None))
        .values(deleted_at=_typed("time", UTCDateTime()))
    ),
    "current_definition": lambda: select(
        Stack.raw_template_id, Stack.prev_raw_template_id, Stack.parameters, Stack.template_file
    ).where(Stack.id == P("stack_id")),
    "change_definition": _change_definition,
    "previous_definition": lambda: _with_documents(
        select(
            _TEMPLATE.c.body,
            RawTemplate.environment,
            _SHARED.c.body,
            _DEFAULTS.c.body,
            _FILES.c.body,
            Stack.prev_parameters,
            Stack.prev_template_file,
        ),
        Stack.prev_raw_template_id,
    ).where(Stack.id == P("stack_id")),
    # -- resources and events
    "resources": lambda: select_resources(P("stack_id")),
    "count_resources": lambda: select(func.count()).where(Resource.stack_id == P("stack_id")),
    "events": lambda: _events(False, False),
    "events_after": lambda: _events(True, False),
    "events_limit": lambda: _events(False, True),
    "events_after_limit": lambda: _events(True, True),
    # -- leases and cancel requests
    "lease": lambda: select(
        Stack.lease_engine_id, Stack.lease_expires_at, Stack.lease_generation
    ).where(Stack.id == P("stack_id")),
    "acquire_lease": _acquire_lease,
    "renew_lease": lambda: (
        update(Stack)
        .where(Stack.id == P("stack_id"), Stack.lease_engine_id == P("engine_id"))
        .values(lease_expires_at=_typed("expires_at", UTCDateTime()))
    ),
    "release_lease": _release_lease,
    "request_cancel": _request_cancel,
    # -- snapshots
    "snapshots": lambda: (
        select(Snapshot)
        .where(Snapshot.stack_id == P("stack_id"))
        .order_by(Snapshot.created_at, Snapshot.id)
    ),
    "update_snapshot": lambda: (
        update(Snapshot).where(Snapshot.id == P("snapshot_id")).values(_snapshot_values())
    ),
    "insert_snapshot": lambda: insert(Snapshot).values(id=P("snapshot_id"), **_snapshot_values()),
    "delete_snapshot": lambda: delete(Snapshot).where(Snapshot.id == P("snapshot_id")),
    # -- the store itself
    "secret_check": lambda: select(StoreMeta.value).where(StoreMeta.name == P("name")),
    "insert_secret_check": lambda: insert(StoreMeta).values(
        name=P("new_name"), value=P("new_value")
    ),
}

#: entries only PostgreSQL runs (advisory locks)
POSTGRESQL_ONLY: dict[str, Callable[[], ClauseElement]] = {
    "advisory_lock": lambda: text("SELECT pg_advisory_xact_lock(:key)"),
    "advisory_lock_shared": lambda: text("SELECT pg_advisory_xact_lock_shared(:key)"),
}


def compile_fence(dialect: Any) -> FenceCheck:
    """`FenceCheck`'s statement for ``dialect``: a no-op UPDATE of the stack row that
    returns its cancel request, matching only while the claim holds."""
    statement = (
        update(Stack)
        .where(
            Stack.id == P("stack_id"),
            Stack.lease_engine_id == P("engine_id"),
            Stack.lease_generation == P("generation"),
        )
        .values(lease_generation=Stack.lease_generation)
        .returning(Stack.cancel_request)
    )
    compiled = statement.compile(dialect=dialect)
    order = tuple(compiled.positiontup or ()) if compiled.positional else None
    if order is not None and set(order) != set(FENCE_FIELDS):
        raise AssertionError(f"the fence's parameters are {order}")
    release = one_row(_release_lease(), dialect, ("stack_id", "engine_id"))
    return FenceCheck(compiled.string, order, release)
