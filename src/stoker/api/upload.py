"""``POST /stacks`` with a raw template (``application/x-yaml``, ``text/yaml``) or a
package (``application/zip``, see `stoker.definition.archive`) as the body; the stack's
name and parameters come from the query string (``stack_name``, repeated
``parameter=KEY=VALUE``, ``timeout_mins``, ``disable_rollback``, ``tags``). A blueprint
(seed 004), as YAML or in a package, is compiled first (`stoker.blueprint`)."""

from __future__ import annotations

import asyncio

from starlette.requests import Request

from stoker.api.context import Api, project_of
from stoker.api.errors import bad_request
from stoker.api.inputs import YAML_TYPES, Payload, content_kind, payload_from
from stoker.api.serve_settings import ServeSettings
from stoker.blueprint.build import (
    CompiledRequest,
    Source,
    compile_request,
    looks_like_blueprint,
    package_source,
)
from stoker.blueprint.cloudfacts import CloudFacts
from stoker.blueprint.existing import ExistingLookup, engine_lookup
from stoker.cloud import HOW_TO_CHOOSE
from stoker.definition import read_package
from stoker.errors import PackageError, TemplateError
from stoker.request_body import read_body


async def upload_payload(request: Request, api: Api) -> Payload:
    """The payload of an upload (the body is one of `YAML_TYPES` or `ZIP_TYPES`)."""
    kind = content_kind(request)
    if kind in YAML_TYPES:
        raw = await read_body(request, api.limits.max_json_body_size, "template")
    else:
        raw = await read_body(request, api.limits.max_package_size, "package")
    query = request.query_params
    parameters: dict[str, str] = {}
    for item in query.getlist("parameter"):
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise bad_request(f'Invalid parameter "{item}": use parameter=KEY=VALUE')
        parameters[key] = value
    body: dict[str, object] = {
        "stack_name": query.get("stack_name", ""),
        "parameters": parameters,
        "timeout_mins": query.get("timeout_mins"),
        "disable_rollback": query.get("disable_rollback"),
        "tags": query.get("tags"),
    }
    body.update(await source_body(raw, kind in YAML_TYPES, project_of(request), api))
    return payload_from(body, api)


async def source_body(raw: bytes, is_yaml: bool, project: str, api: Api) -> dict[str, object]:
    """The ``template``, ``files`` and ``environment_files`` of an upload: a template
    (``is_yaml``) or a ZIP package, a blueprint in either compiled to HOT. For the API's
    uploads and the dashboard's launch form alike."""
    body: dict[str, object] = {}
    if is_yaml:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise bad_request("The template is not UTF-8 text") from None
        body["template"] = text
        if looks_like_blueprint(text, "upload.yaml"):
            await _compiled(body, Source(text, "upload.yaml"), [], _existing(project, api))
    else:
        try:
            package = read_package(raw, "upload.zip")
        except PackageError as error:
            raise bad_request(str(error), "HTTPBadRequest") from None
        body["template"] = package.template
        body["files"] = package.files
        body["environment_files"] = package.environment_files
        if looks_like_blueprint(package.template, f"upload.zip!{package.entry}"):
            source = package_source(raw, "upload.zip")
            existing = _existing(project, api)
            await _compiled(body, source, package.environment_files, existing)
    return body


def _existing(project: str, api: Api) -> ExistingLookup:
    """The stack resources a blueprint's fulfillment may name: the server's store, the
    caller's project only."""
    return engine_lookup(api.operations.engine(project), project)


async def _compiled(
    body: dict[str, object], source: Source, environments: list[str], existing: ExistingLookup
) -> None:
    """A blueprint (`stoker.blueprint.is_blueprint`, the CLI's test too) is compiled, and
    the stack is made from the result; the cloud that answers its flavors and images is
    the server's own (``stoker serve --os-cloud``, else OS_CLOUD or OS_*), the one its
    stacks act in; a fulfillment may name a resource of a stack of the caller's project
    in the server's store. Its errors, located in the upload, are the 400's message."""
    try:
        compiled = await asyncio.to_thread(_compile, source, environments, existing)
    except TemplateError as error:
        raise bad_request(str(error)) from None
    body["template"] = compiled.template
    body["files"] = compiled.files
    body["environment_files"] = compiled.environment_files


def _compile(source: Source, environments: list[str], existing: ExistingLookup) -> CompiledRequest:
    facts = CloudFacts.from_cloud(ServeSettings.chosen().os_cloud)
    how = "the server (stoker serve) " + HOW_TO_CHOOSE.replace("choose", "chooses", 1)
    return compile_request(
        source, facts, environment_files=environments, how_to_choose=how, existing=existing
    )
