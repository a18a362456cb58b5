"""Launch a stack: a template uploaded (YAML, a ZIP package, a blueprint: read as the
API's uploads are, `stoker.api.upload.source_body`) or pasted; then a form generated from
its parameters (`stoker.api.dashboard.fields`); then a preview (the API's dry run,
`stoker.api.inputs.create_preview`) before the create. Every refusal is the engine's
finding, shown at its field (a parameter's value) or at its template line.

The template and what came with it travel between the steps in the form itself (a JSON
field): the server keeps nothing between requests. A hidden parameter's value never
does: the page never writes it back, and left empty it keeps its default.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from dataclasses import replace
from typing import Any

from starlette.datastructures import FormData, UploadFile
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from stoker.api import inputs
from stoker.api.context import api_of
from stoker.api.dashboard import fields, sources
from stoker.api.dashboard.changes import split_findings
from stoker.api.dashboard.render import ROOT, dashboard_page, page, read_form, text_field
from stoker.api.dashboard.session import Viewer
from stoker.api.trusts import start_new_stack
from stoker.definition import read_template
from stoker.diagnostics import Diagnostic
from stoker.engine import CreateRequest
from stoker.errors import ApiError, StokerError

ZIP_MAGIC = b"PK\x03\x04"


def _source_of(form: FormData) -> dict[str, Any]:
    """The template and its companions the earlier step put in the form."""
    try:
        source = json.loads(text_field(form, "source") or "{}")
    except ValueError:
        source = {}
    if not isinstance(source, dict) or not isinstance(source.get("template"), str):
        raise ApiError(400, "HTTPBadRequest", "The form lost its template: start again.")
    return source


async def _read_source(request: Request, viewer: Viewer, form: FormData) -> dict[str, Any]:
    """The first step's template: the uploaded file (a template, a package, a
    blueprint) or the pasted text, and the pasted environment."""
    api = api_of(request)
    from stoker.api.upload import source_body

    upload = form.get("upload")
    if isinstance(upload, UploadFile) and upload.filename:
        raw = await upload.read()
        is_zip = raw.startswith(ZIP_MAGIC) or upload.filename.lower().endswith(".zip")
    else:
        pasted = text_field(form, "template_text")
        if not pasted.strip():
            raise ApiError(400, "HTTPBadRequest", "Upload a template or paste one.")
        raw, is_zip = pasted.encode(), False
    source: dict[str, Any] = dict(await source_body(raw, not is_zip, viewer.project, api))
    if not isinstance(source.get("template"), str):  # a compiled blueprint's data
        source["template"] = sources.as_yaml(source.get("template"))
    environment = text_field(form, "environment_text")
    if environment.strip():
        source["environment"] = environment
    return source


def _base(viewer: Viewer, form: FormData | None) -> dict[str, Any]:
    return {
        "viewer": viewer,
        "title": "Launch stack",
        "name": text_field(form, "stack_name") if form is not None else "",
        "timeout": text_field(form, "timeout_mins") if form is not None else "",
        "rollback": bool(form is not None and form.get("rollback")),
    }


@dashboard_page("stacks:create")
async def launch(request: Request, viewer: Viewer) -> Response:
    if request.method == "GET":
        return page(request, "launch.html", _base(viewer, None))
    form = await read_form(request)
    step = text_field(form, "step")
    context = _base(viewer, form)
    if step == "read":
        try:
            source = await _read_source(request, viewer, form)
        except ApiError as error:
            pasted = text_field(form, "template_text")
            context.update(problems=[error.message], template_text=pasted)
            return page(request, "launch.html", context, 400)
        return _form(request, context, source, {}, [], None)
    source = _source_of(form)
    template, found = read_template(source["template"], sources.TEMPLATE_LABEL)
    if template is None:
        return _form(request, context, source, {}, found, None, status=400)
    sent = fields.values_sent(template, form)
    api = api_of(request)
    body: dict[str, Any] = {
        "stack_name": context["name"],
        "template": source["template"],
        "files": source.get("files") or {},
        "environment_files": source.get("environment_files") or [],
        "environment": source.get("environment"),
        "parameters": sent,
        "timeout_mins": context["timeout"] or None,
        "disable_rollback": not context["rollback"],
    }
    try:
        payload = inputs.payload_from(body, api)
        if not payload.name:
            raise ApiError(400, "HTTPBadRequest", "Name the stack.")
    except ApiError as error:
        return _form(request, context, source, sent, [], None, problems=[error.message])
    payload.inputs = replace(payload.inputs, label=sources.TEMPLATE_LABEL)
    create, errors, _ = await asyncio.to_thread(
        inputs.create_findings, api, viewer.project, payload
    )
    if create is None:
        return _form(request, context, source, sent, errors, None, status=400)
    if step == "preview":
        preview = await asyncio.to_thread(_preview, api, viewer.project, create)
        return _form(request, context, source, sent, [], preview)
    try:
        create.stack_id = str(uuid.uuid4())
        await start_new_stack(
            viewer.grant,
            api.operations,
            viewer.project,
            create.stack_id,
            create.name,
            lambda engine: engine.create(create),
        )
    except StokerError as error:  # the name taken, the project's limit reached...
        return _form(request, context, source, sent, [], None, problems=[str(error)], status=400)
    stack = await asyncio.to_thread(api.operations.store.get_stack, payload.name, viewer.project)
    target = f"{ROOT}/stacks/{stack.id}" if stack is not None else f"{ROOT}/stacks"
    return RedirectResponse(target, status_code=303)


def _preview(api: Any, project: str, create: CreateRequest) -> dict[str, Any]:
    """The API's dry run (`stoker.engine.preview`), its resources flattened: a nested
    stack's resources come after the resource that holds them."""
    document = inputs.create_preview(api, project, create)

    def flat(items: list[Any]) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        for item in items:
            found.extend(flat(item) if isinstance(item, list) else [item])
        return found

    document["resources"] = flat(document["resources"])
    return document


def _form(
    request: Request,
    context: dict[str, Any],
    source: dict[str, Any],
    sent: dict[str, str],
    errors: list[Diagnostic],
    preview: dict[str, Any] | None,
    *,
    problems: list[str] | None = None,
    status: int = 200,
) -> Response:
    """The parameters' form (the second step), with each finding at its field or line,
    and the preview when there is one."""
    template, found = read_template(source["template"], sources.TEMPLATE_LABEL)
    parameters = set(template.parameters) if template is not None else set()
    at_fields, rest = split_findings([*found, *errors], parameters)
    text = source["template"]
    context.update(
        source=json.dumps(source),
        sections=fields.sections(template, sent, at_fields) if template is not None else [],
        description=template.description if template is not None else "",
        listing=sources.listing(text, sources.TEMPLATE_LABEL, [d for d in rest if d.is_error]),
        problems=[*(problems or []), *(d.render() for d in rest if d.is_error)],
        preview=preview,
    )
    if any(d.is_error for d in found):  # the template itself is refused: back to step one
        context.update(template_text=text, sections=[])
        return page(request, "launch.html", context, 400)
    return page(request, "launch_form.html", context, status)
