"""``/software_configs`` and ``/software_deployments``: stored per project
(`stoker.store.software`), shaped as Heat's API shows them."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from stoker.api.context import after_marker, api_of, body_of, integer, project_of
from stoker.api.errors import bad_request, not_found
from stoker.engine import time_text
from stoker.store import ConfigRecord, DeploymentRecord, SoftwareStore, SqlStore


def _software(request: Request) -> SoftwareStore:
    store = api_of(request).operations.store
    assert isinstance(store, SqlStore)  # the server always runs on the SQL store
    return SoftwareStore(store)


def config_view(config: ConfigRecord, *, full: bool = True) -> dict[str, Any]:
    shown: dict[str, Any] = {
        "id": config.id,
        "name": config.name,
        "group": config.group,
        "creation_time": time_text(config.created_at),
    }
    if full:
        shown.update(
            {
                "config": config.config.get("config", ""),
                "inputs": config.config.get("inputs", []),
                "outputs": config.config.get("outputs", []),
                "options": config.config.get("options", {}),
            }
        )
    return shown


def deployment_view(deployment: DeploymentRecord) -> dict[str, Any]:
    return {
        "id": deployment.id,
        "config_id": deployment.config_id,
        "server_id": deployment.server_id,
        "input_values": deployment.input_values,
        "output_values": deployment.output_values,
        "action": deployment.action,
        "status": deployment.status,
        "status_reason": deployment.status_reason,
        "creation_time": time_text(deployment.created_at),
        "updated_time": time_text(deployment.updated_at),
    }


def _list_of(body: dict[str, Any], key: str) -> list[Any]:
    value = body.get(key) or []
    if not isinstance(value, list):
        raise bad_request(f'"{key}" must be a list')
    return value


def _map_of(body: dict[str, Any], key: str) -> dict[str, Any]:
    value = body.get(key) or {}
    if not isinstance(value, dict):
        raise bad_request(f'"{key}" must be a mapping')
    return value


# ---------------------------------------------------------------------------- configs
async def config_index(request: Request) -> Response:
    software = _software(request)
    found = await asyncio.to_thread(software.configs, project_of(request))
    marker = request.query_params.get("marker")
    missing = f"Software config with id {marker} not found"
    found = after_marker(found, marker, lambda c: c.id, missing)
    limit = integer(request, "limit")
    if limit is not None:
        found = found[:limit]
    return JSONResponse({"software_configs": [config_view(c, full=False) for c in found]})


async def config_create(request: Request) -> Response:
    body = await body_of(request)
    config = body.get("config", "")
    if not isinstance(config, str):
        raise bad_request('"config" must be text')
    record = ConfigRecord(
        id=str(uuid.uuid4()),
        project=project_of(request),
        name=str(body["name"]) if body.get("name") is not None else None,
        group=str(body.get("group") or "Heat::Ungrouped"),
        config={
            "config": config,
            "inputs": _list_of(body, "inputs"),
            "outputs": _list_of(body, "outputs"),
            "options": _map_of(body, "options"),
        },
        created_at=datetime.now(UTC),
    )
    await asyncio.to_thread(_software(request).add_config, record)
    return JSONResponse({"software_config": config_view(record)})


async def _config(request: Request) -> ConfigRecord:
    config_id = str(request.path_params["config_id"])
    found = await asyncio.to_thread(_software(request).config, project_of(request), config_id)
    if found is None:
        raise not_found(f"Software config with id {config_id} not found")
    return found


async def config_show(request: Request) -> Response:
    return JSONResponse({"software_config": config_view(await _config(request))})


async def config_delete(request: Request) -> Response:
    found = await _config(request)
    await asyncio.to_thread(_software(request).delete_config, found.project, found.id)
    return Response(status_code=204)


# ---------------------------------------------------------------------------- deployments
async def deployment_index(request: Request) -> Response:
    server_id = request.query_params.get("server_id")
    found = await asyncio.to_thread(_software(request).deployments, project_of(request), server_id)
    return JSONResponse({"software_deployments": [deployment_view(d) for d in found]})


async def deployment_create(request: Request) -> Response:
    body = await body_of(request)
    project = project_of(request)
    software = _software(request)
    config_id = body.get("config_id")
    server_id = body.get("server_id")
    if not isinstance(server_id, str) or not server_id:
        raise bad_request("The Parameter (server_id) was not provided.")
    if not isinstance(config_id, str) or not config_id:
        raise bad_request("The Parameter (config_id) was not provided.")
    if await asyncio.to_thread(software.config, project, config_id) is None:
        raise not_found(f"Software config with id {config_id} not found")
    record = DeploymentRecord(
        id=str(uuid.uuid4()),
        project=project,
        config_id=config_id,
        server_id=server_id,
        action=str(body.get("action") or "INIT"),
        status=str(body.get("status") or "COMPLETE"),
        status_reason=str(body.get("status_reason") or ""),
        created_at=datetime.now(UTC),
        input_values=_map_of(body, "input_values"),
    )
    await asyncio.to_thread(software.put_deployment, record)
    return JSONResponse({"software_deployment": deployment_view(record)})


async def _deployment(request: Request) -> DeploymentRecord:
    deployment_id = str(request.path_params["deployment_id"])
    found = await asyncio.to_thread(
        _software(request).deployment, project_of(request), deployment_id
    )
    if found is None:
        raise not_found(f"Deployment with id {deployment_id} not found")
    return found


async def deployment_show(request: Request) -> Response:
    return JSONResponse({"software_deployment": deployment_view(await _deployment(request))})


async def deployment_update(request: Request) -> Response:
    """``PUT``: the fields given replace the stored ones (a new ``config_id`` must exist)."""
    found = await _deployment(request)
    body = await body_of(request)
    software = _software(request)
    config_id = str(body.get("config_id") or found.config_id)
    changed = config_id != found.config_id
    if changed and await asyncio.to_thread(software.config, found.project, config_id) is None:
        raise not_found(f"Software config with id {config_id} not found")
    updated = DeploymentRecord(
        id=found.id,
        project=found.project,
        config_id=config_id,
        server_id=found.server_id,
        action=str(body.get("action") or found.action),
        status=str(body.get("status") or found.status),
        status_reason=str(body.get("status_reason", found.status_reason) or ""),
        created_at=found.created_at,
        input_values=_map_of(body, "input_values") or found.input_values,
        output_values=_map_of(body, "output_values") or found.output_values,
        updated_at=datetime.now(UTC),
    )
    await asyncio.to_thread(software.put_deployment, updated)
    return JSONResponse({"software_deployment": deployment_view(updated)})


async def deployment_delete(request: Request) -> Response:
    found = await _deployment(request)
    await asyncio.to_thread(_software(request).delete_deployment, found.project, found.id)
    return Response(status_code=204)


async def deployment_metadata(request: Request) -> Response:
    """``GET /software_deployments/metadata/{server_id}``: each deployment's config with
    its input values, oldest first, as a server's agent polls it."""
    software = _software(request)
    project = project_of(request)
    server_id = str(request.path_params["server_id"])

    def collect() -> list[dict[str, Any]]:
        shown = []
        for deployment in software.deployments(project, server_id):
            config = software.config(project, deployment.config_id)
            if config is None:
                continue
            view = config_view(config)
            view["inputs"] = [
                {**item, "value": deployment.input_values[item["name"]]}
                if isinstance(item, dict) and item.get("name") in deployment.input_values
                else item
                for item in view["inputs"]
            ]
            view["id"] = deployment.id
            view["updated_time"] = time_text(deployment.updated_at or deployment.created_at)
            shown.append(view)
        return shown

    return JSONResponse({"metadata": await asyncio.to_thread(collect)})
