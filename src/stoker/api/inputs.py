"""A create or update request's body, read as Heat reads it, and the engine request it
becomes (the definition loaded by `stoker.definition.requests`, checked before anything
is written). Every refusal is a 400 with the findings, each ``file:line:column: path:
message`` as the CLI prints them.

The server never reads its own filesystem on a client's behalf: provider templates and
``get_file`` content come from the request's ``files`` map (its engines are made with
``files_from_request``), and a template URL is refused.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from starlette.requests import Request

from stoker.api.context import Api, api_of, body_of, flag
from stoker.api.errors import ApiError, bad_request
from stoker.definition import LoadOptions, LoadResult, RequestInputs, load_request
from stoker.diagnostics import Diagnostic
from stoker.engine import (
    CreateRequest,
    StackRecord,
    UpdateChanges,
    UpdateRequest,
    prepare_update,
    preview_document,
)
from stoker.template.loader import load_document
from stoker.template.nodes import plain

#: the bodies `stoker.api.upload` reads: a raw template, or a package
YAML_TYPES = ("application/x-yaml", "text/yaml", "application/yaml")
ZIP_TYPES = ("application/zip", "application/x-zip-compressed")


def content_kind(request: Request) -> str:
    """The request's media type, lower case, without parameters."""
    return request.headers.get("content-type", "").split(";")[0].strip().lower()


@dataclass(slots=True)
class Payload:
    """A create/update/preview/validate body."""

    name: str
    inputs: RequestInputs
    timeout_mins: int | None = None
    disable_rollback: bool | None = None
    tags: tuple[str, ...] | None = None
    clear_parameters: tuple[str, ...] = ()
    adopt_data: Any = None
    extra: dict[str, Any] = field(default_factory=dict)


def _mapping(body: dict[str, Any], key: str) -> dict[str, Any]:
    value = body.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise bad_request(f'"{key}" must be a mapping')
    return value


def _tags(value: Any) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return tuple(t.strip() for t in value.split(",") if t.strip())
    if isinstance(value, list) and all(isinstance(t, str) for t in value):
        return tuple(value)
    raise bad_request('"tags" must be a comma-separated string or a list of strings')


def _timeout(value: Any) -> int | None:
    if value is None:
        return None
    try:
        minutes = int(value)
    except (TypeError, ValueError):
        raise bad_request(f'Invalid timeout value "{value}"') from None
    if minutes <= 0:
        raise bad_request(f'Invalid timeout value "{value}": it must be positive')
    return minutes


def _flag(value: Any) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    return flag(str(value))


def payload_from(body: dict[str, Any], api: Api, *, name: str | None = None) -> Payload:
    """Read Heat's body fields (``stack_name``, ``template``, ``files``, ``environment``,
    ``environment_files``, ``parameters``, ``timeout_mins``, ``disable_rollback``,
    ``tags``, ``clear_parameters``, ``adopt_stack_data``)."""
    if body.get("template_url") and body.get("template") is None:
        raise bad_request(
            "stoker serve does not fetch template_url: send the template itself "
            "(python-heatclient does when given a local file)"
        )
    template = body.get("template")
    if template is not None:
        size = len(template) if isinstance(template, str) else len(json.dumps(template))
        limit = api.limits.max_template_size
        if size > limit:
            raise bad_request(
                f"Template size ({size} bytes) exceeds maximum allowed size ({limit} bytes).",
                "RequestLimitExceeded",
            )
    files = _mapping(body, "files")
    if not all(isinstance(v, str) for v in files.values()):
        raise bad_request('"files" must map names to text')
    environment_files = body.get("environment_files") or []
    if not isinstance(environment_files, list):
        raise bad_request('"environment_files" must be a list')
    environment = body.get("environment")
    if isinstance(environment, str):  # Heat accepts the environment's text too
        try:
            environment = plain(load_document(environment, "<environment>").data) or {}
        except Exception as error:
            raise bad_request(f"The environment is not valid YAML: {error}") from None
    if environment is not None and not isinstance(environment, dict):
        raise bad_request('"environment" must be a mapping')
    parameters = _mapping(body, "parameters")
    clear = body.get("clear_parameters") or []
    if not isinstance(clear, list):
        raise bad_request('"clear_parameters" must be a list')
    return Payload(
        name=name if name is not None else str(body.get("stack_name") or ""),
        inputs=RequestInputs(
            template=template,
            files=files,
            environment=environment,
            environment_files=[str(f) for f in environment_files],
            parameters=parameters,
        ),
        timeout_mins=_timeout(body.get("timeout_mins")),
        disable_rollback=_flag(body.get("disable_rollback")),
        tags=_tags(body.get("tags")),
        clear_parameters=tuple(str(c) for c in clear),
        adopt_data=body.get("adopt_stack_data"),
    )


async def create_payload(request: Request) -> Payload:
    api = api_of(request)
    if content_kind(request) in YAML_TYPES + ZIP_TYPES:
        # imported here: the uploads' readers (blueprints, packages) are a tenth of the
        # server's own code, and the OpenStack clients always send JSON
        from stoker.api.upload import upload_payload

        payload = await upload_payload(request, api)
    else:
        payload = payload_from(await body_of(request), api)
    if not payload.name:
        raise bad_request("The Parameter (stack_name) was not provided.", "HTTPBadRequest")
    if payload.inputs.template is None and payload.adopt_data is None:
        raise bad_request("No template specified", "HTTPBadRequest")
    return payload


async def update_payload(request: Request) -> Payload:
    return payload_from(await body_of(request), api_of(request))


def refused(result: LoadResult, what: str) -> ApiError:
    errors = [d for d in result.diagnostics if d.is_error]
    return _refusal(errors, what)


def _refusal(errors: list[Diagnostic], what: str) -> ApiError:
    text = "\n".join(d.render() for d in errors) or what
    return ApiError(400, "StackValidationFailed", text)


def create_request(api: Api, project: str, payload: Payload) -> CreateRequest:
    """Load and check the definition (every parameter required); refuse with the
    findings (400) before anything is written."""
    request, errors, loaded = create_findings(api, project, payload)
    if request is None:
        what = (
            "the stack was not created"
            if loaded
            else "the template, environment or parameters were rejected"
        )
        raise _refusal(errors, what)
    return request


def create_findings(
    api: Api, project: str, payload: Payload
) -> tuple[CreateRequest | None, list[Diagnostic], bool]:
    """The create request, or the errors that refuse it, and whether the definition
    loaded (the errors are then the engine's checks): for a caller that shows each
    finding where it belongs (the dashboard's form) rather than one message."""
    options = LoadOptions(require_all_parameters=True, stack_name=payload.name, project_id=project)
    result = load_request(payload.inputs, options)
    definition = result.definition
    if not result.ok or definition is None:
        return None, [d for d in result.diagnostics if d.is_error], False
    template = plain(definition.template.document.data) or {}
    environment = definition.environment.to_data()
    engine = api.operations.engine(project)
    problems = [d for d in engine.check(definition, None) if d.is_error]
    if problems:
        return None, problems, True
    request = CreateRequest(
        name=payload.name,
        definition=definition,
        template=template,
        environment=environment,
        parameters=dict(payload.inputs.parameters),
        timeout_mins=payload.timeout_mins,
        disable_rollback=True if payload.disable_rollback is None else payload.disable_rollback,
        tags=payload.tags or (),
    )
    return request, [], True


def create_preview(api: Api, project: str, create: CreateRequest) -> dict[str, Any]:
    """The stack ``create`` would make, its resources INIT and nested stacks' resources
    nested (`stoker.engine.preview`): ``POST /stacks/preview`` and the dashboard's launch
    form both show it."""
    return preview_document(
        api.operations.engine(project),
        create.definition,
        name=create.name,
        project=project,
        disable_rollback=create.disable_rollback,
        timeout_mins=create.timeout_mins,
        tags=create.tags,
    )


def update_request(
    api: Api, project: str, stack: StackRecord, payload: Payload, existing: bool
) -> UpdateRequest:
    """The new definition (PATCH keeps what is not given), checked, with the stack's own
    timeout, rollback and tags unless the body gives them (`prepare_update`); refused
    with the findings (400) before anything is written."""
    request, errors, load_failed = update_findings(api, project, stack, payload, existing)
    if request is None:
        what = "the update was rejected" if load_failed else "the stack was not updated"
        raise _refusal(errors, what)
    return request


def update_findings(
    api: Api, project: str, stack: StackRecord, payload: Payload, existing: bool
) -> tuple[UpdateRequest | None, list[Diagnostic], bool]:
    """The update request, or the errors that refuse it and whether the new definition
    failed to load (`create_findings`' twin)."""
    prepared = prepare_update(
        api.operations.engine(project),
        stack,
        payload.inputs,
        LoadOptions(project_id=project),
        existing=existing,
        clear=payload.clear_parameters,
        changes=UpdateChanges(payload.timeout_mins, payload.disable_rollback, payload.tags),
    )
    return prepared.request, list(prepared.errors), prepared.load_failed
