"""The dashboard's read-only pages: the stack list, a stack's page (its topology,
resources, events and outputs, each also served alone as a fragment the page swaps in
while an operation runs), the state the page polls, one resource, one output revealed,
and the stored template and environment with their validation findings at their lines.

Everything shown comes from the library's Heat-shaped views (`stoker.engine`'s `*_views`), the
ones the API answers with: hidden parameters masked by name, outputs derived from hidden
values marked ``<sensitive>`` until asked for, as ``stoker stack output`` does.
"""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from stoker.api.context import api_of
from stoker.api.dashboard import sources, topology
from stoker.api.dashboard.render import ROOT, dashboard_page, page
from stoker.api.dashboard.session import Viewer
from stoker.api.errors import not_found
from stoker.engine import (
    StackRecord,
    event_row,
    masked_environment,
    resource_document,
    resource_metadata,
    resource_rows,
    stack_document,
    stack_events,
    stack_row,
    table_outputs,
    template_document,
)

#: the events a stack's page lists (newest first)
EVENTS_SHOWN = 100
STATUSES = ("IN_PROGRESS", "COMPLETE", "FAILED")


async def home(request: Request) -> Response:
    """``/dashboard``: the stack list."""
    return RedirectResponse(f"{ROOT}/stacks", status_code=303)


def stack_of(request: Request, viewer: Viewer, *, deleted: bool = True) -> StackRecord:
    """The stack the path names, in the viewer's project only; a deleted one too unless
    not ``deleted`` (its page says so; nothing can be done to it)."""
    stack_id = str(request.path_params["stack_id"])
    found = api_of(request).operations.store.get_stack(stack_id, viewer.project)
    if found is None or found.id != stack_id or (found.deleted_at is not None and not deleted):
        raise not_found(f"The Stack ({stack_id}) could not be found.")
    return found


def stack_context(stack: StackRecord, viewer: Viewer, title: str, **more: Any) -> dict[str, Any]:
    """What a page about one stack starts from: the stack's id and name, the viewer, the
    page's title, and ``more``."""
    shown = {"id": stack.id, "stack_name": stack.name}
    return {"stack": shown, "viewer": viewer, "title": title, **more}


# ---------------------------------------------------------------------------- list
@dashboard_page("stacks:index")
async def stack_list(request: Request, viewer: Viewer) -> Response:
    """Every top-level stack of the project, filtered by name and status."""
    query = request.query_params
    text = query.get("q", "").strip()
    status = query.get("status", "")
    store = api_of(request).operations.store

    def rows() -> list[dict[str, Any]]:
        found = store.stack_summaries(viewer.project, include_nested=False, include_deleted=False)
        found.sort(key=lambda s: (s.created_at, s.id), reverse=True)
        return [
            stack_row(record)
            for record in found
            if text.lower() in record.name.lower()
            and (status not in STATUSES or record.status.value == status)
        ]

    context: dict[str, Any] = {"stacks": await asyncio.to_thread(rows), "q": text}
    context.update(status=status, viewer=viewer, statuses=STATUSES, title="Stacks")
    return page(request, "stacks.html", context)


# ---------------------------------------------------------------------------- one stack
def _parts(request: Request, viewer: Viewer, stack: StackRecord) -> dict[str, Any]:
    """What a stack's page shows (and its fragments)."""
    api = api_of(request)
    store = api.operations.store
    engine = api.operations.engine(viewer.project)
    deleted = stack.deleted_at is not None
    document = stack_document(engine, stack, resolve_outputs=False)
    records = {r.name: r for r in store.resources(stack.id)}
    rows = resource_rows(store, viewer.project, stack, 0)
    for row in rows:
        child = records[row["resource_name"]].data.get("child_id")
        row["child_id"] = str(child) if child else None
    events = stack_events(store, viewer.project, stack, 0)
    events.sort(key=lambda e: (e.time, e.id or 0), reverse=True)
    outputs: list[dict[str, Any]] = []
    if not deleted and stack.status.value != "IN_PROGRESS":
        outputs = table_outputs(engine, stack, engine.outputs(stack))
    return {
        "stack": document,
        "record": stack,
        "deleted": deleted,
        "resources": rows,
        "events": [event_row(e) for e in events[:EVENTS_SHOWN]],
        "outputs": outputs,
        "in_progress": stack.status.value == "IN_PROGRESS",
        "last_event": events[0].id if events else 0,
        "parent": store.get_stack(stack.parent_id, viewer.project) if stack.parent_id else None,
    }


@dashboard_page("stacks:show")
async def stack_page(request: Request, viewer: Viewer) -> Response:
    stack = await asyncio.to_thread(stack_of, request, viewer)
    context = await asyncio.to_thread(_parts, request, viewer, stack)
    engine = api_of(request).operations.engine(viewer.project)
    context["topology"] = await asyncio.to_thread(topology.svg, engine, stack)
    context.update(viewer=viewer, title=stack.name)
    return page(request, "stack.html", context)


FRAGMENTS = ("resources", "events", "outputs", "topology", "summary")


@dashboard_page("stacks:show")
async def fragment(request: Request, viewer: Viewer) -> Response:
    """One part of a stack's page, which the page's script swaps in when the stack
    changed (no reload)."""
    name = str(request.path_params["part"])
    if name not in FRAGMENTS:
        raise not_found(f"No part {name} of a stack's page.")
    stack = await asyncio.to_thread(stack_of, request, viewer)
    if name == "topology":
        engine = api_of(request).operations.engine(viewer.project)
        svg = await asyncio.to_thread(topology.svg, engine, stack)
        context: dict[str, Any] = {"topology": svg, "stack": {"id": stack.id}}
    else:
        context = await asyncio.to_thread(_parts, request, viewer, stack)
    context["viewer"] = viewer
    return page(request, f"part_{name}.html", context)


@dashboard_page("stacks:show")
async def live(request: Request, viewer: Viewer) -> Response:
    """The stack's state now, for its page's poll: its status, its newest event's id
    (the page fetches the fragments when it changed) and each drawn node's state by
    the SVG's node id (the page recolours the topology from them)."""
    stack = await asyncio.to_thread(stack_of, request, viewer)
    api = api_of(request)
    engine = api.operations.engine(viewer.project)

    def state() -> dict[str, Any]:
        events = stack_events(api.operations.store, viewer.project, stack, 0)
        newest = max((e.id or 0 for e in events), default=0)
        return {
            "status": f"{stack.action.value}_{stack.status.value}",
            "reason": stack.status_reason,
            "in_progress": stack.status.value == "IN_PROGRESS",
            "deleted": stack.deleted_at is not None,
            "last_event": newest,
            "nodes": topology.states(engine, stack),
        }

    response = JSONResponse(await asyncio.to_thread(state))
    response.headers["Cache-Control"] = "no-store"
    return response


@dashboard_page("stacks:show")
async def resource_page(request: Request, viewer: Viewer) -> Response:
    """One resource: its state, properties and attributes (sensitive ones marked), the
    resources it needs and that need it, its nested stack."""
    stack = await asyncio.to_thread(stack_of, request, viewer)
    name = str(request.path_params["resource_name"])
    api = api_of(request)
    engine = api.operations.engine(viewer.project)

    def document() -> dict[str, Any]:
        records = {r.name: r for r in api.operations.store.resources(stack.id)}
        if name not in records:
            raise not_found(f"The Resource ({name}) could not be found.")
        shown = resource_document(engine, stack, records, name)
        child = records[name].data.get("child_id")
        shown["child_id"] = str(child) if child else None
        shown["requires"] = sorted(records[name].requires)
        shown["metadata"] = resource_metadata(engine, stack, records, name)
        return shown

    resource = await asyncio.to_thread(document)
    context = stack_context(stack, viewer, f"{name} — {stack.name}", resource=resource)
    return page(request, "resource.html", context)


@dashboard_page("stacks:show_output")
async def output_page(request: Request, viewer: Viewer) -> Response:
    """One output with its value, a sensitive one too: the viewer asked to reveal it
    (``stoker stack output show`` shows it so; the stack's page does not)."""
    stack = await asyncio.to_thread(stack_of, request, viewer)
    key = str(request.path_params["output_key"])
    engine = api_of(request).operations.engine(viewer.project)
    found = await asyncio.to_thread(engine.outputs, stack)
    output = next((o for o in found if o.get("output_key") == key), None)
    if output is None:
        raise not_found(f"Specified output key {key} not found.", "NotFound")
    context = stack_context(stack, viewer, f"{key} — {stack.name}", output=output)
    name = "part_output.html" if request.query_params.get("part") else "output.html"
    return page(request, name, context)


@dashboard_page("stacks:template")
async def template_page(request: Request, viewer: Viewer) -> Response:
    """The stored template and environment as YAML, each line numbered, with what
    validating them finds marked at its line."""
    stack = await asyncio.to_thread(stack_of, request, viewer)
    engine = api_of(request).operations.engine(viewer.project)

    def texts() -> dict[str, Any]:
        hidden = {
            name
            for name, parameter in engine.definition_of(stack).template.parameters.items()
            if parameter.hidden
        }
        template = template_document(engine, stack)
        environment = masked_environment(engine, stack)
        return {
            "template": sources.stored_template(template, hidden),
            "environment": sources.stored_environment(environment),
        }

    texts_shown = await asyncio.to_thread(texts)
    context = stack_context(stack, viewer, f"Template — {stack.name}", **texts_shown)
    return page(request, "template.html", context)
