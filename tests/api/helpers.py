"""Helpers of the API tests: a template, an in-process client, waiting for operations."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import httpx
from starlette.testclient import TestClient

from stoker.api.app import build_app
from stoker.api.context import ApiLimits
from stoker.engine.settings import EngineSettings
from stoker.resources.registry import default_registry
from stoker.store import open_store

TEMPLATE: dict[str, Any] = {
    "heat_template_version": "2018-08-31",
    "parameters": {
        "p": {"type": "string", "default": "x", "hidden": True},
        "q": {"type": "string", "default": "hello"},
    },
    "resources": {
        "r": {"type": "OS::Heat::None"},
        "v": {"type": "OS::Heat::Value", "properties": {"value": {"get_param": "q"}}},
        "g": {
            "type": "OS::Heat::ResourceGroup",
            "properties": {"count": 2, "resource_def": {"type": "OS::Heat::None"}},
        },
    },
    "outputs": {
        "o": {"value": {"get_attr": ["v", "value"]}},
        "secret": {"value": {"get_param": "p"}},
    },
}


def make_client(url: str, **limits: int) -> TestClient:
    app = build_app(open_store(url), default_registry(), EngineSettings(), ApiLimits(**limits))
    return TestClient(app, base_url="http://testserver")


#: how long a test waits, at the most, for what another thread or process does (an
#: operation a server's worker runs, a page a browser loads) before it fails saying that
#: it never ended: far beyond what any takes on a loaded machine, so that only an
#: operation that never ends fails the wait
PATIENCE = 60.0


def wait_for(
    client: httpx.Client, url: str, *, headers: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The stack document once its operation ended, as the API shows it: its status no
    longer ``..._IN_PROGRESS`` (a request that starts an operation answers once the stack
    is in progress, `stoker.api.operations`), or ``DELETE_COMPLETE`` once the API no
    longer finds the stack. ``client`` is the in-process application's or a real
    server's; ``headers`` go with each request (a Keystone token)."""
    deadline = time.monotonic() + PATIENCE
    while True:
        response = client.get(url, headers=headers)
        if response.status_code == 404:
            return {"stack_status": "DELETE_COMPLETE"}
        stack: dict[str, Any] = response.json()["stack"]
        if not stack["stack_status"].endswith("IN_PROGRESS"):
            return stack
        if time.monotonic() > deadline:
            raise AssertionError(f"still {stack['stack_status']} after {PATIENCE} s")
        time.sleep(0.02)


def create(
    client: TestClient,
    name: str,
    template: dict[str, Any] | None = None,
    project: str = "admin",
    **body: Any,
) -> str:
    """Create a stack, wait for it, and return its canonical URL."""
    response = client.post(
        f"/v1/{project}/stacks",
        json={"stack_name": name, "template": template or TEMPLATE, **body},
    )
    assert response.status_code == 201, response.text
    url = str(response.headers["location"])
    wait_for(client, url)
    return url
