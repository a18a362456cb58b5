"""Stack actions (suspend, resume, check, cancel_update, cancel_without_rollback),
abandon, export, drift and its accept (stoker's extension), adopt (a create with
``adopt_stack_data``) and snapshots."""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from stoker.api.context import Api, api_of, authorize, body_of, find_stack, project_of, stack_url
from stoker.api.errors import ApiError, bad_request, forbidden_body
from stoker.api.trusts import start_new_stack
from stoker.engine import (
    StackEngine,
    StackRecord,
    accept_drift,
    detect_drift,
    load_adoption,
    snapshot_document,
)
from stoker.request_body import parse_json

ACTIONS = ("suspend", "resume", "check", "cancel_update", "cancel_without_rollback")
#: the engine's method of each of `ACTIONS` but the cancels
_RUNS = {
    "suspend": StackEngine.suspend,
    "resume": StackEngine.resume,
    "check": StackEngine.check_stack,
}


async def perform(
    api: Api, project: str, stack_id: str, name: str, *, stack: StackRecord | None = None
) -> None:
    """Begin one of `ACTIONS` on the stack (a cancel is done when this returns; the
    others run in the background, as the API's 200 says, acting as the owner of
    ``stack``: `Operations.start`). For the API and the dashboard alike."""
    if name.startswith("cancel"):
        engine = api.operations.engine(project)
        await engine.cancel(stack_id, rollback=name == "cancel_update")
    else:
        run = _RUNS[name]
        await api.operations.start(project, lambda engine: run(engine, stack_id), stack=stack)


async def action(request: Request) -> Response:
    """``POST .../actions`` with exactly one of Heat's actions as the body's key."""
    stack = await find_stack(request, deleted=False)
    body = await body_of(request)
    # Heat's three refusals, in its order (heat/api/openstack/v1/actions.py)
    if not body:
        raise bad_request("No action specified", "HTTPBadRequest")
    if len(body) > 1:
        raise bad_request("Multiple actions specified", "HTTPBadRequest")
    name = next(iter(body))
    if name not in ACTIONS:
        raise bad_request(f"Invalid action {name} specified", "HTTPBadRequest")
    # Heat checks the action's own rule (``actions:check`` admits a reader) once the body
    # is known to name one, so a malformed body is a 400 before any 403
    if not authorize(request.scope, f"actions:{name}"):
        return JSONResponse(forbidden_body(), status_code=403)
    await perform(api_of(request), project_of(request), stack.id, name, stack=stack)
    return JSONResponse(None)


async def abandon(request: Request) -> Response:
    stack = await find_stack(request, deleted=False)
    operations = api_of(request).operations
    engine = operations.engine(project_of(request))
    abandoned = await engine.abandon(stack.id)
    if operations.credentials is not None:  # the stack is gone: so is its trust
        gone = await asyncio.to_thread(operations.store.get_stack, stack.id, stack.project)
        if gone is not None:
            await asyncio.to_thread(operations.credentials.forget, gone)
    return JSONResponse(abandoned)


async def export(request: Request) -> Response:
    stack = await find_stack(request, deleted=False)
    engine = api_of(request).operations.engine(project_of(request))
    return JSONResponse(await engine.export(stack.id))


async def drift(request: Request) -> Response:
    """A stoker extension (no Heat API has it): the stack's drift, ``?nested_depth=N``
    for nested stacks' resources too (`stoker.engine.drift`)."""
    stack = await find_stack(request, deleted=False)
    raw = request.query_params.get("nested_depth", "0")
    if not raw.isdigit():
        raise bad_request(f"nested_depth must be a whole number, not {raw!r}")
    engine = api_of(request).operations.engine(project_of(request))
    found = await detect_drift(engine, stack.id, int(raw))
    return JSONResponse({"drift": [entry.as_dict() for entry in found]})


async def accept(request: Request) -> Response:
    """``POST .../drift`` with ``{"accept": [RESOURCE, ...]}`` (stoker's extension, as
    ``stoker stack drift --accept``): each resource's values as the cloud has them stored
    as the stack's; a nested stack's resource by its path (``group/0/server``). Answers
    the accepted resources' drift as it was."""
    stack = await find_stack(request, deleted=False)
    body = await body_of(request)
    names = body.get("accept")
    if isinstance(names, str):
        names = [names]
    if not names or not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise bad_request('"accept" must name the resources to accept (a list of paths)')
    engine = api_of(request).operations.engine(project_of(request))
    found = [await accept_drift(engine, stack.id, name) for name in names]
    return JSONResponse({"drift": [entry.as_dict() for entry in found]})


async def adopt(request: Request, payload: Any) -> Response:
    """A create whose body carries ``adopt_stack_data`` (an abandoned stack's document):
    the stack's records are written from it; no resource is created."""
    api = api_of(request)
    project = project_of(request)
    data = payload.adopt_data
    if isinstance(data, str):  # JSON in a string: read as the body is, depth and all
        try:
            data = parse_json(data.encode(), what="Invalid adopt data: adopt_stack_data")
        except ApiError as error:
            raise bad_request(error.message) from None
    if not isinstance(data, dict):
        raise bad_request("Invalid adopt data: it must be a mapping")
    template = payload.inputs.template
    if template is not None:
        data = {**data, "template": template}
    if payload.inputs.files:  # the request's files map (provider templates), as Heat reads
        stored = data.get("files")
        data = {
            **data,
            "files": {**(stored if isinstance(stored, dict) else {}), **payload.inputs.files},
        }
    parameters = {k: str(v) for k, v in payload.inputs.parameters.items()}

    def load() -> Any:
        return load_adoption(payload.name, data, "<adopt_stack_data>", (), parameters)

    adoption = await asyncio.to_thread(load)
    if adoption.definition is None or any(d.is_error for d in adoption.diagnostics):
        errors = [d.render() for d in adoption.diagnostics if d.is_error]
        raise bad_request("\n".join(errors) or "Invalid adopt data", "StackValidationFailed")

    began = await start_new_stack(
        request.scope.get("state", {}).get("grant"),
        api.operations,
        project,
        adoption.stack_id,
        payload.name,
        lambda engine: engine.adopt(adoption, None, "<adopt_stack_data>"),
    )
    stack_id = began.stack_id if began is not None else adoption.stack_id
    return await created(request, api, project, stack_id)


async def created(request: Request, api: Api, project: str, stack_id: str) -> Response:
    """Heat's 201 for a stack a create or an adopt began: its id and link, and Location."""
    stack = await asyncio.to_thread(api.operations.store.get_stack, stack_id, project)
    assert stack is not None
    url = stack_url(request, stack)
    body = {"stack": {"id": stack.id, "links": [{"href": url, "rel": "self"}]}}
    return JSONResponse(body, status_code=201, headers={"Location": url})


# ---------------------------------------------------------------------------- snapshots
async def snapshot_create(request: Request) -> Response:
    stack = await find_stack(request, deleted=False)
    body = await body_of(request)
    name = body.get("name")
    engine = api_of(request).operations.engine(project_of(request))
    made = await engine.snapshot(stack.id, str(name) if name is not None else None)
    return JSONResponse(snapshot_document(made))


async def snapshot_list(request: Request) -> Response:
    stack = await find_stack(request, deleted=False)
    engine = api_of(request).operations.engine(project_of(request))
    found = await engine.snapshots(stack.id)
    return JSONResponse({"snapshots": [snapshot_document(s) for s in found]})


async def snapshot_show(request: Request) -> Response:
    stack = await find_stack(request, deleted=False)
    engine = api_of(request).operations.engine(project_of(request))
    found = await engine.find_snapshot(stack.id, str(request.path_params["snapshot_id"]))
    return JSONResponse({"snapshot": snapshot_document(found)})


async def snapshot_delete(request: Request) -> Response:
    stack = await find_stack(request, deleted=False)
    engine = api_of(request).operations.engine(project_of(request))
    await engine.delete_snapshot(stack.id, str(request.path_params["snapshot_id"]))
    return Response(status_code=204)


async def snapshot_restore(request: Request) -> Response:
    stack = await find_stack(request, deleted=False)
    snapshot_id = str(request.path_params["snapshot_id"])
    await api_of(request).operations.start(
        project_of(request),
        lambda engine: engine.restore(stack.id, snapshot_id),
        stack=stack,
    )
    return Response(status_code=202)
