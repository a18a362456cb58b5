"""The dashboard's in-process tests: the real application (Starlette's TestClient runs
it and its operations in a real event loop) over a real store of each backend."""

from __future__ import annotations

import html
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from stoker.api.app import build_app
from stoker.engine.settings import EngineSettings
from stoker.resources.registry import default_registry
from stoker.store import open_store

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


class Board:
    """A browser's part in the dashboard, without a browser: cookies, the CSRF token."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.csrf = ""

    def get(self, path: str, **options: Any) -> Any:
        response = self.client.get(path, **options)
        found = CSRF.search(response.text)
        if found:
            self.csrf = found.group(1)
        return response

    def post(self, path: str, data: dict[str, Any], **options: Any) -> Any:
        if not self.csrf:
            self.get("/dashboard/login")
        return self.client.post(path, data={"csrf_token": self.csrf, **data}, **options)

    def login(self, project: str = "demo") -> None:
        self.get("/dashboard/login")
        response = self.post("/dashboard/login", {"project": project})
        assert response.url.path == "/dashboard/stacks", response.text

    def wait(self, stack_id: str, timeout: float = 30.0) -> str:
        """The stack's status once its operation ended (what the page's poll reads; a
        delete ends once the stack is marked deleted) and the server runs nothing."""
        deadline = time.monotonic() + timeout
        while True:
            live = self.client.get(f"/dashboard/stacks/{stack_id}/live").json()
            done = live["deleted"] if live["status"] == "DELETE_COMPLETE" else True
            # and the operation let go of the stack (its claim is released just after
            # its last status is written): the next action may claim it at once
            idle = not self.client.app.state.api.operations.tasks
            if not live["in_progress"] and done and idle:
                return str(live["status"])
            assert time.monotonic() < deadline, f"still {live['status']}"
            time.sleep(0.02)


def source_of(page: str) -> str:
    """The launch form's carried template (its ``source`` field)."""
    found = re.search(r'name="source" value="([^"]*)"', page)
    assert found, page
    return html.unescape(found.group(1))


def field_error(page: str, name: str) -> str:
    found = re.search(rf'id="param-{re.escape(name)}-error"[^>]*>([^<]*)<', page)
    assert found, page
    return html.unescape(found.group(1))


@pytest.fixture
def board(store_url: str) -> Iterator[Board]:
    app = build_app(open_store(store_url), default_registry(), EngineSettings())
    with TestClient(app, base_url="http://testserver") as client:
        yield Board(client)
