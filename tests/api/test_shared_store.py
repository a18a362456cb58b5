"""The API over SQLite and PostgreSQL: two servers on one database share the stacks and
the work (the leases). A server taking over a dead one's operation is in
test_real_clients.py (it needs a process to kill)."""

from __future__ import annotations

import pytest

from .helpers import TEMPLATE, create, make_client, wait_for

pytestmark = pytest.mark.heavy


def test_two_servers_share_one_database(store_url: str) -> None:
    with make_client(store_url) as first, make_client(store_url) as second:
        url = create(first, "shared")
        path = url.split("testserver", 1)[1]
        assert wait_for(second, path)["stack_status"] == "CREATE_COMPLETE"
        listed = second.get("/v1/admin/stacks").json()["stacks"]
        assert [(s["stack_name"], s["stack_status"]) for s in listed] == [
            ("shared", "CREATE_COMPLETE")
        ]
        assert second.get("/v1/other/stacks").json()["stacks"] == []
        assert second.patch(path, json={"parameters": {"q": "via-second"}}).status_code == 202
        stack = wait_for(first, path)
        assert stack["stack_status"] == "UPDATE_COMPLETE"
        assert {o["output_key"]: o["output_value"] for o in stack["outputs"]}["o"] == ("via-second")
        assert second.delete(path).status_code == 204
        assert wait_for(first, path)["stack_status"] == "DELETE_COMPLETE"


def test_a_busy_stack_is_refused_with_heat_s_conflict(store_url: str) -> None:
    slow = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "wait": {
                "type": "OS::Heat::TestResource",
                "properties": {"action_wait_secs": {"create": 2}},
            }
        },
    }
    with make_client(store_url) as first, make_client(store_url) as second:
        response = first.post("/v1/admin/stacks", json={"stack_name": "busy", "template": slow})
        assert response.status_code == 201
        path = response.headers["location"].split("testserver", 1)[1]
        refused = second.patch(path, json={"template": TEMPLATE})
        assert refused.status_code == 400  # Heat's wording and status for an update
        assert "when it is (CREATE, IN_PROGRESS)" in refused.json()["error"]["message"]
        busy = second.delete(path)
        assert busy.status_code == 409
        assert busy.json()["error"]["type"] == "ActionInProgress"
        assert wait_for(first, path)["stack_status"] == "CREATE_COMPLETE"
