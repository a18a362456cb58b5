"""``updated_time`` in the REST API as Heat 24.1.2 shows it (tests/fidelity/times records
Heat's answers): null in ``GET /stacks/{name}/{id}`` and in the stack list until the
stack is updated, and the list sorted by it with the stacks never updated first in
ascending order, last in descending order."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from .helpers import create, wait_for

RECORDING: dict[str, Any] = json.loads(
    (Path(__file__).parents[1] / "fidelity" / "times" / "recording.json").read_text()
)
EMPTY = {"heat_template_version": "2018-08-31"}


def _row(client: TestClient, name: str, path: str = "stacks") -> dict[str, Any]:
    rows = client.get(f"/v1/admin/{path}?name={name}").json()["stacks"]
    assert len(rows) == 1
    return dict(rows[0])


def test_null_until_updated(client: TestClient) -> None:
    url = create(client, "ut-null", EMPTY)
    assert client.get(url).json()["stack"]["updated_time"] is None
    assert _row(client, "ut-null")["updated_time"] is None
    assert _row(client, "ut-null", "stacks/detail")["updated_time"] is None
    assert client.post(url + "/actions", json={"check": None}).status_code == 200
    assert wait_for(client, url)["updated_time"] is None  # a check leaves it, as in Heat
    assert client.patch(url, json={"parameters": {}}).status_code == 202
    updated = wait_for(client, url)
    assert updated["stack_status"] == "UPDATE_COMPLETE"
    assert updated["updated_time"] is not None
    assert updated["updated_time"] >= updated["creation_time"]
    assert _row(client, "ut-null")["updated_time"] == updated["updated_time"]


def test_sorted_by_updated_time_as_heat(client: TestClient) -> None:
    """Heat's recorded orders: four stacks, the last and then the second updated; the
    ones never updated are ``<null>`` there (Heat breaks their tie by id)."""
    names = [f"fid-times-sort-{letter}" for letter in "abcd"]
    urls = [create(client, name, EMPTY) for name in names]
    for index in (3, 1):
        assert client.patch(urls[index], json={"parameters": {}}).status_code == 202
        wait_for(client, urls[index])
    for direction in ("asc", "desc"):
        rows = client.get(f"/v1/admin/stacks?sort_keys=updated_time&sort_dir={direction}")
        order = [
            r["stack_name"] if r["updated_time"] is not None else "<null>"
            for r in rows.json()["stacks"]
            if r["stack_name"] in names
        ]
        assert order == RECORDING["_sort"][f"updated_time {direction}"], direction
        # stoker's spelling updated_at (docs/api.md) sorts the same way; Heat has no such
        # key, and a key it does not know leaves its default order (by creation)
        alias = client.get(f"/v1/admin/stacks?sort_keys=updated_at&sort_dir={direction}")
        assert [r["stack_name"] for r in alias.json()["stacks"]] == [
            r["stack_name"] for r in rows.json()["stacks"]
        ]
