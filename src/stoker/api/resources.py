"""Resource and event routes: lists (``nested_depth``, filters, ``with_detail``; events
with ``sort_dir``, ``marker``, ``limit`` — what ``openstack stack create --wait``
polls), one resource, its metadata, signals and mark-unhealthy, one event."""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from stoker.api.context import (
    after_marker,
    api_of,
    body_of,
    find_stack,
    flag,
    integer,
    project_of,
    sort_direction,
    stack_url,
)
from stoker.api.errors import bad_request, not_found
from stoker.engine import (
    StackRecord,
    Store,
    api_event_row,
    child_stacks,
    live_child,
    resource_document,
    resource_metadata,
    resource_rows,
    stack_events,
)

#: a list's filters: query parameter -> (the row's column, how a wanted value matches:
#: ``is`` equal, ``status`` the status or ``ACTION_STATUS``, ``action`` its ACTION)
_RESOURCE_FILTERS = {
    "name": ("resource_name", "is"),
    "status": ("resource_status", "status"),
    "action": ("resource_status", "action"),
    "type": ("resource_type", "is"),
    "id": ("physical_resource_id", "is"),
    "physical_resource_id": ("physical_resource_id", "is"),
}
_EVENT_FILTERS = {
    "resource_name": ("resource_name", "is"),
    "resource_action": ("resource_status", "action"),
    "resource_status": ("resource_status", "status"),
    "resource_type": ("resource_type", "is"),
}


def _tree(store: Store, project: str, stack: StackRecord, depth: int) -> list[StackRecord]:
    """The stack and its nested stacks down to ``depth``."""
    found = [stack]
    if depth > 0:
        for child in child_stacks(store, project, store.resources(stack.id)):
            found.extend(_tree(store, project, child, depth - 1))
    return found


def _resource_links(
    request: Request, stack: StackRecord, name: str, nested: StackRecord | None = None
) -> list[dict[str, str]]:
    """Heat's links of a resource: itself, its stack and, for one backed by a nested
    stack (a provider template, a group, a chain, ``OS::Heat::Stack``), that stack
    (``rel: nested``), which clients follow to walk the tree."""
    url = stack_url(request, stack)
    links = [
        {"href": f"{url}/resources/{name}", "rel": "self"},
        {"href": url, "rel": "stack"},
    ]
    if nested is not None:
        links.append({"href": stack_url(request, nested), "rel": "nested"})
    return links


def _keep(request: Request, row: dict[str, Any], filters: dict[str, tuple[str, str]]) -> bool:
    for key, (column, how) in filters.items():
        wanted = request.query_params.getlist(key)
        if not wanted:
            continue
        value = str(row.get(column, ""))
        if how == "status":
            ok = any(value == w or value.endswith(f"_{w}") for w in wanted)
        elif how == "action":
            ok = any(value.startswith(f"{w}_") for w in wanted)
        else:
            ok = value in wanted
        if not ok:
            return False
    return True


async def index(request: Request) -> Response:
    stack = await find_stack(request)
    depth = integer(request, "nested_depth", 0) or 0
    detail = flag(request.query_params.get("with_detail"))
    api = api_of(request)
    project = project_of(request)
    store = api.operations.store

    def rows() -> list[dict[str, Any]]:
        shown = []
        engine = api.operations.engine(project) if detail else None
        for member in _tree(store, project, stack, depth):
            records = {r.name: r for r in store.resources(member.id)}
            for row in resource_rows(store, project, member, 0):
                if not _keep(request, row, _RESOURCE_FILTERS):
                    continue
                name = row["resource_name"]
                if engine is not None:
                    row = resource_document(engine, member, records, name)
                nested = live_child(store, project, records.get(name))
                row["links"] = _resource_links(request, member, name, nested)
                if member.id != stack.id:
                    row["parent_resource"] = member.parent_resource
                shown.append(row)
        return shown

    return JSONResponse({"resources": await asyncio.to_thread(rows)})


async def _resource(request: Request) -> tuple[StackRecord, dict[str, Any], str]:
    stack = await find_stack(request)
    name = str(request.path_params["resource_name"])
    store = api_of(request).operations.store
    records = {r.name: r for r in await asyncio.to_thread(store.resources, stack.id)}
    if name not in records:
        raise not_found(f"The Resource ({name}) could not be found.")
    return stack, records, name


async def show(request: Request) -> Response:
    stack, records, name = await _resource(request)
    engine = api_of(request).operations.engine(project_of(request))
    store = api_of(request).operations.store
    document = await asyncio.to_thread(resource_document, engine, stack, records, name)
    nested = await asyncio.to_thread(live_child, store, project_of(request), records[name])
    document["links"] = _resource_links(request, stack, name, nested)
    if stack.parent_resource:  # a nested stack's resource names its facade, as in Heat
        document["parent_resource"] = stack.parent_resource
    document.setdefault("description", "")
    return JSONResponse({"resource": document})


async def metadata(request: Request) -> Response:
    stack, records, name = await _resource(request)
    engine = api_of(request).operations.engine(project_of(request))
    value = await asyncio.to_thread(resource_metadata, engine, stack, records, name)
    return JSONResponse({"metadata": value})


async def signal(request: Request) -> Response:
    stack, _, name = await _resource(request)
    details = await body_of(request)
    operations = api_of(request).operations
    engine = operations.engine(project_of(request))
    credentials = operations.credentials
    # a signal's work acts as the stack's owner (its trust), as Heat's stored context
    acting = await asyncio.to_thread(credentials.for_stack, stack) if credentials else None
    if acting is None:
        await engine.signal(stack.id, name, details or None)
    else:
        from stoker.cloud.acting import acting_as

        with acting_as(acting):
            await engine.signal(stack.id, name, details or None)
    return JSONResponse(None)


async def mark_unhealthy(request: Request) -> Response:
    """``PATCH .../resources/{name}`` with ``mark_unhealthy`` (and a reason)."""
    stack, _, name = await _resource(request)
    body = await body_of(request)
    if "mark_unhealthy" not in body or not isinstance(body["mark_unhealthy"], bool):
        raise bad_request('"mark_unhealthy" (true or false) is required')
    reason = str(body.get("resource_status_reason") or "")
    engine = api_of(request).operations.engine(project_of(request))
    await engine.mark_unhealthy(stack.id, name, body["mark_unhealthy"], reason)
    return JSONResponse(None)


# ---------------------------------------------------------------------------- events
def _event_links(request: Request, stack: StackRecord, row: dict[str, Any]) -> list[Any]:
    url = stack_url(request, stack)
    resource = f"{url}/resources/{row['resource_name']}"
    return [
        {"href": f"{resource}/events/{row['id']}", "rel": "self"},
        {"href": resource, "rel": "resource"},
        {"href": url, "rel": "stack"},
    ]


async def events(request: Request) -> Response:
    """Stack events (``GET .../events``) or one resource's (``.../resources/{name}/
    events``): newest first unless ``sort_dir=asc``, as Heat lists them."""
    stack = await find_stack(request)
    resource = request.path_params.get("resource_name")
    depth = integer(request, "nested_depth", 0) or 0
    direction = sort_direction(request)
    marker = request.query_params.get("marker")
    limit = integer(request, "limit")
    api = api_of(request)
    project = project_of(request)
    store = api.operations.store

    def rows() -> list[dict[str, Any]]:
        stacks = {s.id: s for s in _tree(store, project, stack, depth)}
        found = stack_events(store, project, stack, depth)
        found.sort(key=lambda e: (e.time, e.id or 0), reverse=direction == "desc")
        shown = []
        for event in found:
            owner = stacks.get(event.stack_id, stack)
            row = api_event_row(event, owner.name)
            if resource is not None and row["resource_name"] != resource:
                continue
            if not _keep(request, row, _EVENT_FILTERS):
                continue
            row["links"] = _event_links(request, owner, row)
            shown.append(row)
        missing = f"The Event ({marker}) could not be found."
        shown = after_marker(shown, marker, lambda r: r["id"], missing)
        return shown[:limit] if limit is not None else shown

    return JSONResponse({"events": await asyncio.to_thread(rows)})


async def event_show(request: Request) -> Response:
    stack = await find_stack(request)
    resource = str(request.path_params["resource_name"])
    event_id = str(request.path_params["event_id"])
    store = api_of(request).operations.store
    found = await asyncio.to_thread(store.events, stack.id)
    for event in found:
        if str(event.id) == event_id and event.resource_name == resource:
            row = api_event_row(event, stack.name)
            row["links"] = _event_links(request, stack, row)
            row["resource_properties"] = {}
            return JSONResponse({"event": row})
    raise not_found(f"The Event ({event_id}) could not be found.")
