"""The dashboard's actions on a stack: check, suspend, resume and the cancels (the API's
``POST .../actions``, `stoker.api.actions.perform`), delete after a confirmation page,
and update (new parameter values, or a new template) from a form whose refusals are
shown at their fields and template lines. Each begins the operation as the API does
(`stoker.api.operations`) and returns to the stack's page, which follows it live."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from stoker.api import inputs
from stoker.api.actions import ACTIONS, perform
from stoker.api.context import api_of
from stoker.api.dashboard import fields, sources
from stoker.api.dashboard.render import ROOT, dashboard_page, page, read_form, text_field
from stoker.api.dashboard.session import Viewer
from stoker.api.dashboard.stacks import stack_of
from stoker.api.errors import bad_request
from stoker.definition import read_template
from stoker.diagnostics import Diagnostic
from stoker.engine import stack_parameters


def _back(stack_id: str) -> Response:
    return RedirectResponse(f"{ROOT}/stacks/{stack_id}", status_code=303)


@dashboard_page()
async def action(request: Request, viewer: Viewer) -> Response:
    """One of the API's stack actions, by the form's ``action``."""
    form = await read_form(request)
    name = text_field(form, "action")
    if name not in ACTIONS:
        raise bad_request(f"Invalid action {name} specified")
    viewer.require(f"actions:{name}")
    stack = await asyncio.to_thread(stack_of, request, viewer, deleted=False)
    await perform(api_of(request), viewer.project, stack.id, name, stack=stack)
    return _back(stack.id)


@dashboard_page("stacks:delete")
async def delete(request: Request, viewer: Viewer) -> Response:
    """GET: the confirmation page; POST (its form): delete the stack."""
    stack = await asyncio.to_thread(stack_of, request, viewer, deleted=False)
    context = {"stack": {"id": stack.id, "stack_name": stack.name}, "viewer": viewer}
    context["title"] = f"Delete {stack.name}"
    if request.method == "GET":
        return page(request, "delete.html", context)
    form = await read_form(request)
    if text_field(form, "confirm_name") != stack.name:
        context["error"] = f"Type the stack's name, {stack.name}, to confirm."
        return page(request, "delete.html", context, 400)
    api = api_of(request)
    await api.operations.start(viewer.project, lambda engine: engine.delete(stack.id), stack=stack)
    return _back(stack.id)


def split_findings(
    errors: list[Diagnostic], parameters: set[str]
) -> tuple[dict[str, str], list[Diagnostic]]:
    """The findings about one parameter's value (shown at its field) and the rest
    (shown at their template lines, or above the form)."""
    at_fields: dict[str, str] = {}
    rest: list[Diagnostic] = []
    for diagnostic in errors:
        path = diagnostic.path
        if len(path) == 2 and path[0] == "parameters" and str(path[1]) in parameters:
            name = str(path[1])
            at_fields[name] = " ".join(filter(None, (at_fields.get(name), diagnostic.message)))
        else:
            rest.append(diagnostic)
    return at_fields, rest


@dashboard_page("stacks:update_patch")
async def update(request: Request, viewer: Viewer) -> Response:
    """GET: the form (the current template's parameters, their current values; hidden
    ones empty: left empty, they keep their value); POST: the update (Heat's PATCH:
    what the form leaves out is kept)."""
    api = api_of(request)
    stack = await asyncio.to_thread(stack_of, request, viewer, deleted=False)
    engine = api.operations.engine(viewer.project)
    current = await asyncio.to_thread(stack_parameters, engine, stack)
    template, _ = read_template(stack.template, "<stored template>")
    assert template is not None, "a stored stack's template reads"
    context: dict[str, Any] = {"stack": {"id": stack.id, "stack_name": stack.name}}
    context.update(viewer=viewer, title=f"Update {stack.name}", new_template="")
    if request.method == "GET":
        context["sections"] = fields.sections(template, current, {})
        return page(request, "update.html", context)
    form = await read_form(request)
    sent = fields.values_sent(template, form)
    new_text = text_field(form, "template").strip()
    body: dict[str, Any] = {"parameters": sent}
    if new_text:
        body["template"] = new_text
    payload = inputs.payload_from(body, api)
    payload.inputs = replace(payload.inputs, label=sources.TEMPLATE_LABEL)
    found = await asyncio.to_thread(
        inputs.update_findings, api, viewer.project, stack, payload, True
    )
    request_made, errors, _ = found
    if request_made is None:
        at_fields, rest = split_findings(errors, set(template.parameters))
        context["sections"] = fields.sections(template, {**current, **sent}, at_fields)
        context["new_template"] = new_text
        context["listing"] = sources.listing(new_text, sources.TEMPLATE_LABEL, rest)
        context["problems"] = [d.render() for d in rest]
        return page(request, "update.html", context, 400)
    update_request = request_made
    await api.operations.start(
        viewer.project, lambda engine: engine.update(stack.id, update_request), stack=stack
    )
    return _back(stack.id)
