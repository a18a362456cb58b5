"""Routes that run nothing: ``validate``, resource types, template versions and their
functions, build info and services (version discovery is `stoker.api.versions`)."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from stoker import __version__
from stoker.api import inputs
from stoker.api.context import api_of, body_of, flag
from stoker.api.errors import bad_request, not_found
from stoker.definition import LoadOptions, hidden_names, load_request
from stoker.engine import mask_environment
from stoker.functions.tables import function_rows, table_for
from stoker.resolution import (
    echoed_environment,
    nested_parameters,
    validate_tree,
    validation_summary,
)
from stoker.resources import heat_catalog
from stoker.template.versions import ALL_VERSIONS


async def validate(request: Request) -> Response:
    """``POST /validate``: the template's description and parameters (values given,
    hidden ones masked), and the merged environment, the hidden parameters' values
    masked there too (Heat echoes them); 400 with the findings otherwise."""
    api = api_of(request)
    body = await body_of(request)
    payload = inputs.payload_from(body, api, name="")
    if payload.inputs.template is None:
        raise bad_request("No template specified")
    show_nested = flag(request.query_params.get("show_nested")) or bool(body.get("show_nested"))

    def run() -> dict[str, Any]:
        result = load_request(payload.inputs, LoadOptions())
        definition = result.definition
        if result.ok and definition is not None:
            engine = api.operations.engine(str(request.path_params.get("project", "")))
            found, tree = validate_tree(
                definition,
                "<template>",
                cache=engine.provider_cache(definition),
                registry=api.operations.registry,
            )
            result.diagnostics.extend(found)
        if not result.ok or definition is None:
            raise inputs.refused(result, "the template was rejected")
        summary = validation_summary(definition)
        if show_nested:
            nested = nested_parameters(definition, tree)
            if nested:  # Heat adds the key only when some resource has a nested stack
                summary["NestedParameters"] = nested
        hidden = hidden_names(definition.template, definition.taint)
        summary["Environment"] = mask_environment(echoed_environment(definition), hidden)
        return summary

    return JSONResponse(await asyncio.to_thread(run))


async def resource_types(request: Request) -> Response:
    """The types stoker runs (Heat lists those its cloud offers), with Heat's filters
    ``name`` (a substring), ``support_status`` and ``with_description``."""
    registry = api_of(request).operations.registry
    names = list(registry.names())
    query = request.query_params
    if wanted := query.get("name"):
        names = [n for n in names if wanted in n]
    if status := query.get("support_status"):
        kept = []
        for name in names:
            schema = registry.schema(name)
            if schema is not None and schema.support_status.status.value == status:
                kept.append(name)
        names = kept
    if flag(query.get("with_description")):
        rows = []
        for name in names:
            plugin = registry.get(name)
            doc = (plugin.__doc__ or "").strip().split("\n\n")[0] if plugin else ""
            rows.append({"resource_type": name, "description": " ".join(doc.split())})
        return JSONResponse({"resource_types": rows})
    return JSONResponse({"resource_types": sorted(names)})


def _schema(request: Request) -> Any:
    name = str(request.path_params["type_name"])
    schema = api_of(request).operations.registry.schema(name) or heat_catalog().get(name)
    if schema is None:
        raise not_found(f"The Resource Type ({name}) could not be found.")
    return schema


async def resource_type_show(request: Request) -> Response:
    return JSONResponse(_schema(request).to_api_dict())


async def resource_type_template(request: Request) -> Response:
    """A provider template that wraps the type: a parameter per property, an output
    per attribute (Heat's ``template_type=hot``; ``cfn`` is not generated)."""
    shown = _schema(request).to_api_dict()
    name = str(request.path_params["type_name"])
    properties = shown.get("properties") or {}
    attributes = shown.get("attributes") or {}
    parameters = {
        key: {
            "type": _parameter_type(prop.get("type")),
            "description": prop.get("description", ""),
        }
        for key, prop in properties.items()
    }
    template = {
        "heat_template_version": "2016-10-14",
        "description": f"Initial template of {name.split('::')[-1]}",
        "parameters": parameters,
        "resources": {
            name.split("::")[-1]: {
                "type": name,
                "properties": {key: {"get_param": key} for key in properties},
            }
        },
        "outputs": {
            key: {
                "description": attr.get("description", ""),
                "value": {"get_attr": [name.split("::")[-1], key]},
            }
            for key, attr in attributes.items()
        },
    }
    return JSONResponse(template)


def _parameter_type(kind: Any) -> str:
    return {
        "integer": "number",
        "number": "number",
        "boolean": "boolean",
        "list": "comma_delimited_list",
        "map": "json",
    }.get(str(kind).lower(), "string")


async def template_versions(request: Request) -> Response:
    return JSONResponse({"template_versions": [v.listed() for v in ALL_VERSIONS]})


async def template_functions(request: Request) -> Response:
    wanted = str(request.path_params["template_version"])
    found = next((v for v in ALL_VERSIONS if wanted in (v.name, v.alias_name)), None)
    if found is None:
        raise not_found(f"The template version ({wanted}) could not be found.", "NotFound")
    conditions = flag(request.query_params.get("with_condition_func"))
    return JSONResponse({"template_functions": function_rows(table_for(found), conditions)})


async def build_info(request: Request) -> Response:
    return JSONResponse({"api": {"revision": __version__}, "engine": {"revision": __version__}})


async def services(request: Request) -> Response:
    """This server as Heat's one engine service (stoker has no separate engines)."""
    api = api_of(request)
    host = socket.gethostname()
    started = api.started.strftime("%Y-%m-%dT%H:%M:%S.%f")
    return JSONResponse(
        {
            "services": [
                {
                    "id": api.service_id,
                    "binary": "heat-engine",
                    "engine_id": api.service_id,
                    "host": host,
                    "hostname": host,
                    "topic": "engine",
                    "report_interval": int(api.operations.settings.lease_seconds),
                    "created_at": started,
                    "updated_at": started,
                    "deleted_at": None,
                    "status": "up",
                }
            ]
        }
    )
