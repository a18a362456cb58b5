"""The parameters, environments and create-time update cases through ``stoker serve``'s
REST API, asked exactly as the recorder asked real Heat (``record.record`` over an
in-process client), compared with the same recordings as the CLI (``test_updates.py``).

The CLI reads an update from files (``engine.update_request.prepare_update`` with paths),
the API from a request's body (the same call with the body's data): a PATCH whose
environment keeps or drops the stored registry, a PUT that falls back to defaults, an
immutable parameter refused, must come out the same both ways."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from stoker.api.app import build_app
from stoker.api.context import ApiLimits
from stoker.engine.settings import EngineSettings
from stoker.resources.registry import default_registry
from stoker.store import open_store

from . import suite
from .record import Heat, record

pytestmark = pytest.mark.heavy

AREAS = ("parameters/", "environments/", "create_time/")
CASES = [c for c in suite.load_cases() if c.id.startswith(AREAS)]
RECORDED = suite.load_recordings()


class Api(Heat):
    """The recorder's view of Heat, served by stoker's app in-process."""

    def __init__(self, client: TestClient) -> None:
        self.url = "/v1/admin"
        self.client = client

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        response = self.client.request(method, self.url + path, json=body)
        return response.status_code, response.json() if response.content else None


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    path = tmp_path_factory.mktemp("updates-api") / "api.db"
    app = build_app(
        open_store(f"sqlite:///{path}"), default_registry(), EngineSettings(), ApiLimits()
    )
    with TestClient(app, base_url="http://testserver") as client:
        yield Api(client)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_update_through_the_api_matches_heat(case: suite.Case, api: Api) -> None:
    heat = RECORDED[case.id][suite.FOLLOWED]
    ours = record(api, case)
    found = list(suite.differences(heat, ours, case.skip, case.spec.get("fragment")))
    assert not found, json.dumps(
        {field: {"heat": theirs, "stoker": mine} for field, theirs, mine in found}, indent=1
    )
