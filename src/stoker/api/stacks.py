"""The stack routes of Heat's v1 API: list, create, preview, lookup (the 302 redirects
python-heatclient resolves names with), show, update (PUT/PATCH and their previews),
delete, and the stored template, environment, files and outputs."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from functools import partial
from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from stoker.api import actions, inputs
from stoker.api.context import (
    Api,
    after_marker,
    api_of,
    base_url,
    find_stack,
    flag,
    integer,
    project_of,
    sort_direction,
    stack_links,
    stack_url,
)
from stoker.api.errors import ApiError, bad_request, not_found
from stoker.api.trusts import start_new_stack
from stoker.engine import (
    StackRecord,
    UpdateRequest,
    api_stack_row,
    masked_environment,
    output_list,
    stack_document,
    template_document,
)
from stoker.engine import update_preview as preview_update

# A stack never updated has no updated_time: it sorts before every one that has, as NULL
# does in Heat's ascending order (its databases: MySQL, SQLite), ties broken by id.
_SORT_KEYS: dict[str, Callable[[StackRecord], Any]] = {
    "created_at": lambda s: s.created_at,
    "creation_time": lambda s: s.created_at,
    "updated_at": lambda s: (s.updated_at is not None, s.updated_at),
    "updated_time": lambda s: (s.updated_at is not None, s.updated_at),
    "name": lambda s: s.name,
    "stack_name": lambda s: s.name,
    "status": lambda s: s.status.value,
    "stack_status": lambda s: f"{s.action.value}_{s.status.value}",
}


# ---------------------------------------------------------------------------- list
def _values(request: Request, key: str) -> list[str]:
    return [v for value in request.query_params.getlist(key) for v in value.split(",") if v]


def _matches(request: Request, stack: StackRecord) -> bool:
    """Heat's stack list filters (``id``, ``name``, ``status``, ``action``) and tag
    filters (``tags``: all of them, ``tags_any``, ``not_tags``, ``not_tags_any``)."""
    status = f"{stack.action.value}_{stack.status.value}"
    checks = {
        "id": {stack.id},
        "name": {stack.name},
        "stack_name": {stack.name},
        "status": {stack.status.value, status},
        "action": {stack.action.value},
    }
    for key, allowed in checks.items():
        wanted = request.query_params.getlist(key)
        if wanted and not allowed.intersection(wanted):
            return False
    tags = set(stack.tags)
    if (wanted := _values(request, "tags")) and not tags.issuperset(wanted):
        return False
    if (wanted := _values(request, "tags_any")) and not tags.intersection(wanted):
        return False
    if (wanted := _values(request, "not_tags")) and tags.issuperset(wanted):
        return False
    return not ((wanted := _values(request, "not_tags_any")) and tags.intersection(wanted))


def _listing(request: Request, *, detail: bool = False) -> tuple[list[StackRecord], dict[str, Any]]:
    """The page of stacks the query asks for, and the ``links``/``count`` around it (the
    records without their definitions unless ``detail``)."""
    store = api_of(request).operations.store
    query = request.query_params
    read = store.list_stacks if detail else store.stack_summaries
    records = read(
        project_of(request),
        include_nested=flag(query.get("show_nested")),
        include_deleted=flag(query.get("show_deleted")),
    )
    records = [r for r in records if _matches(request, r)]
    keys = [k for k in _values(request, "sort_keys")] or ["created_at"]
    for key in keys:
        if key not in _SORT_KEYS:
            raise bad_request(f"Sort key '{key}' is not supported.", "HTTPBadRequest")
    direction = sort_direction(request)
    records.sort(
        key=lambda r: (*(_SORT_KEYS[k](r) for k in keys), r.id), reverse=direction == "desc"
    )
    extra: dict[str, Any] = {}
    if flag(query.get("with_count")):
        extra["count"] = len(records)
    marker = query.get("marker")
    records = after_marker(
        records, marker, lambda r: r.id, f"The Stack ({marker}) could not be found."
    )
    limit = integer(request, "limit")
    if limit is not None and len(records) > limit:
        records = records[:limit]
    if limit is not None and records and len(records) == limit:
        params = {k: v for k, v in query.multi_items() if k != "marker"}
        params["marker"] = records[-1].id
        text = "&".join(f"{quote(k)}={quote(v)}" for k, v in params.items())
        extra["links"] = [{"rel": "next", "href": f"{base_url(request)}/stacks?{text}"}]
    return records, extra


async def index(request: Request) -> Response:
    records, extra = await asyncio.to_thread(_listing, request)
    rows = [{**api_stack_row(r), "links": stack_links(request, r)} for r in records]
    return JSONResponse({"stacks": rows, **extra})


async def detail(request: Request) -> Response:
    """``GET /stacks/detail``: the list with each stack's whole document (no outputs)."""
    records, extra = await asyncio.to_thread(partial(_listing, detail=True), request)
    engine = api_of(request).operations.engine(project_of(request))

    def documents() -> list[dict[str, Any]]:
        shown = []
        for record in records:
            document = stack_document(engine, record, resolve_outputs=False)
            document["links"] = stack_links(request, record)
            document["project"] = record.project
            shown.append(document)
        return shown

    return JSONResponse({"stacks": await asyncio.to_thread(documents), **extra})


# ---------------------------------------------------------------------------- create
async def create(request: Request) -> Response:
    api = api_of(request)
    project = project_of(request)
    payload = await inputs.create_payload(request)
    name = payload.name
    if payload.adopt_data is not None:
        return await actions.adopt(request, payload)
    create_request = await asyncio.to_thread(inputs.create_request, api, project, payload)
    create_request.stack_id = str(uuid.uuid4())
    began = await start_new_stack(
        request.scope.get("state", {}).get("grant"),
        api.operations,
        project,
        create_request.stack_id,
        name,
        lambda engine: engine.create(create_request),
    )
    if began is None:  # pragma: no cover - a create always writes its first event
        raise ApiError(500, "InternalError", f"The create of {name} did not start")
    return await actions.created(request, api, project, began.stack_id)


async def preview(request: Request) -> Response:
    """``POST /stacks/preview``: the stack as it would be created, resources INIT, nested
    stacks' resources nested (`stoker.engine.preview`)."""
    api = api_of(request)
    project = project_of(request)
    payload = await inputs.create_payload(request)
    create_request = await asyncio.to_thread(inputs.create_request, api, project, payload)
    document = await asyncio.to_thread(inputs.create_preview, api, project, create_request)
    return JSONResponse({"stack": document})


# ---------------------------------------------------------------------------- lookup
def _redirect(request: Request, stack: StackRecord, rest: str) -> Response:
    target = stack_url(request, stack) + (f"/{rest}" if rest else "")
    if request.url.query:
        target += f"?{request.url.query}"
    return RedirectResponse(target, status_code=302)


async def lookup(request: Request) -> Response:
    """``/stacks/{name_or_id}[/{subpath}...]``: a 302 to the stack's canonical URL (the
    rest of the path and the query kept), as Heat answers python-heatclient."""
    name = str(request.path_params["stack_name"])
    rest = "/".join(
        part for part in (request.path_params.get("sub"), request.path_params.get("rest")) if part
    )
    store = api_of(request).operations.store
    found = await asyncio.to_thread(store.get_stack, name, project_of(request))
    if found is None:
        raise not_found(f"The Stack ({name}) could not be found.")
    return _redirect(request, found, rest)


async def arn_lookup(request: Request) -> Response:
    """``/stacks/arn:openstack:heat::{project}:stacks/{name}/{id}[/...]``."""
    head = str(request.path_params["arn"])
    rest = str(request.path_params.get("rest") or "")
    parts = rest.split("/")
    arn_project = head.split(":")[4] if head.count(":") >= 5 else ""
    if arn_project != project_of(request) or len(parts) < 2 or not head.endswith(":stacks"):
        raise not_found(f"The Stack ({head}/{rest}) could not be found.")
    name, stack_id, tail = parts[0], parts[1], "/".join(parts[2:])
    store = api_of(request).operations.store
    found = await asyncio.to_thread(store.get_stack, stack_id, project_of(request))
    if found is None or found.name != name:
        raise not_found(f"The Stack ({name}) could not be found.")
    return _redirect(request, found, tail)


# ---------------------------------------------------------------------------- one stack
async def show(request: Request) -> Response:
    stack = await find_stack(request)
    engine = api_of(request).operations.engine(project_of(request))
    resolve = request.query_params.get("resolve_outputs")
    resolve_outputs = resolve is None or flag(resolve)
    document = await asyncio.to_thread(stack_document, engine, stack, resolve_outputs)
    document["links"] = stack_links(request, stack)
    document["project"] = stack.project
    document["tags"] = document["tags"] or []
    return JSONResponse({"stack": document})


async def _asked_update(request: Request) -> tuple[Api, str, StackRecord, UpdateRequest]:
    """The stack an update or its preview names and the update its body asks for: PUT is
    a whole new definition, PATCH Heat's ``existing`` (keep what is not given)."""
    api = api_of(request)
    project = project_of(request)
    stack = await find_stack(request, deleted=False)
    payload = await inputs.update_payload(request)
    existing = request.method == "PATCH"
    update_request = await asyncio.to_thread(
        inputs.update_request, api, project, stack, payload, existing
    )
    return api, project, stack, update_request


async def update(request: Request) -> Response:
    """PUT (a whole new definition) or PATCH (Heat's ``existing``: keep what is not
    given); 202 once the update began."""
    api, project, stack, update_request = await _asked_update(request)
    await api.operations.start(
        project, lambda engine: engine.update(stack.id, update_request), stack=stack
    )
    return Response(status_code=202)


async def update_preview(request: Request) -> Response:
    api, project, stack, update_request = await _asked_update(request)
    show_nested = flag(request.query_params.get("show_nested"))
    engine = api.operations.engine(project)
    plan = await engine.preview_update(stack.id, update_request, show_nested)
    changes = await asyncio.to_thread(
        preview_update, api.operations.store, stack, plan, show_nested=show_nested
    )
    for kind in ("unchanged", "updated", "replaced", "added", "deleted"):
        changes.setdefault(kind, [])
    return JSONResponse({"resource_changes": changes})


async def delete(request: Request) -> Response:
    api = api_of(request)
    stack = await find_stack(request, deleted=False)
    await api.operations.start(
        project_of(request), lambda engine: engine.delete(stack.id), stack=stack
    )
    return Response(status_code=204)


async def template(request: Request) -> Response:
    stack = await find_stack(request)
    engine = api_of(request).operations.engine(project_of(request))
    return JSONResponse(await asyncio.to_thread(template_document, engine, stack))


async def environment(request: Request) -> Response:
    stack = await find_stack(request)
    engine = api_of(request).operations.engine(project_of(request))
    data = await asyncio.to_thread(masked_environment, engine, stack)
    shown = {
        "resource_registry": {"resources": {}},
        "parameters": {},
        "parameter_defaults": {},
        "event_sinks": [],
        "encrypted_param_names": [],
        **data,
    }
    return JSONResponse(shown)


async def files(request: Request) -> Response:
    stack = await find_stack(request)
    return JSONResponse(dict(stack.files))


async def outputs(request: Request) -> Response:
    stack = await find_stack(request)
    engine = api_of(request).operations.engine(project_of(request))
    found = await asyncio.to_thread(engine.outputs, stack)
    return JSONResponse({"outputs": output_list(found)})


async def output_show(request: Request) -> Response:
    stack = await find_stack(request)
    key = str(request.path_params["output_key"])
    engine = api_of(request).operations.engine(project_of(request))
    found = await asyncio.to_thread(engine.outputs, stack)
    for output in found:
        if output.get("output_key") == key:
            return JSONResponse({"output": output})
    raise not_found(f"Specified output key {key} not found.", "NotFound")
