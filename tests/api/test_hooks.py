"""Breakpoints (issue 27): hooks set in the environment's resource_registry pause an
operation at a resource with Heat's event, the stack IN_PROGRESS, until the signal
``{"unset_hook": ...}`` (the API, as ``openstack stack hook clear`` sends it) or
``stoker stack hook clear`` (the CLI, another process's view of the same database)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from stoker.cli.main import cli

from .helpers import make_client, wait_for

pytestmark = pytest.mark.heavy

CHAIN: dict[str, Any] = {
    "heat_template_version": "2014-10-16",
    "resources": {
        "foo_step1": {"type": "OS::Heat::RandomString"},
        "foo_step2": {"type": "OS::Heat::RandomString", "depends_on": "foo_step1"},
        "foo_step3": {"type": "OS::Heat::RandomString", "depends_on": "foo_step2"},
    },
}


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("hooks") / "hooks.db"


@pytest.fixture(scope="module")
def client(database: Path) -> Iterator[TestClient]:
    with make_client(f"sqlite:///{database}") as test_client:
        yield test_client


def _until(check: Any, what: str, timeout: float = 20.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"no {what} after {timeout} s")
        time.sleep(0.05)


def _events(client: TestClient, url: str, name: str, reason: str) -> list[dict[str, Any]]:
    rows = client.get(f"{url}/resources/{name}/events").json()["events"]
    return [e for e in rows if e["resource_status_reason"] == reason]


def _status(client: TestClient, url: str, name: str) -> str:
    return str(client.get(f"{url}/resources/{name}").json()["resource"]["resource_status"])


def _create(client: TestClient, name: str, environment: dict[str, Any]) -> str:
    body = {"stack_name": name, "template": CHAIN, "environment": environment}
    created = client.post("/v1/admin/stacks", json=body)
    assert created.status_code == 201, created.text
    return str(created.headers["location"])


def test_pre_create_pauses_until_the_signal_clears_it(client: TestClient) -> None:
    env = {"resource_registry": {"resources": {"foo_step2": {"hooks": "pre-create"}}}}
    url = _create(client, "hooked", env)
    [paused] = _until(
        lambda: _events(client, url, "foo_step2", "CREATE paused until Hook pre-create is cleared"),
        "pause event",
    )
    assert paused["resource_status"] == "INIT_COMPLETE"
    assert client.get(url).json()["stack"]["stack_status"] == "CREATE_IN_PROGRESS"
    assert _status(client, url, "foo_step1") == "CREATE_COMPLETE"
    assert _status(client, url, "foo_step2") == "INIT_COMPLETE"
    wrong = client.post(url + "/resources/foo_step2/signal", json={"unset_hook": "pre-update"})
    assert wrong.status_code == 400, wrong.text
    cleared = client.post(url + "/resources/foo_step2/signal", json={"unset_hook": "pre-create"})
    assert cleared.status_code == 200, cleared.text
    assert wait_for(client, url)["stack_status"] == "CREATE_COMPLETE"
    [event] = _events(client, url, "foo_step2", "Hook pre-create is cleared")
    assert event["resource_status"] == "INIT_COMPLETE"


def test_wildcard_pre_update_pauses_an_unchanged_resource(client: TestClient) -> None:
    env = {"resource_registry": {"resources": {"foo_step*": {"hooks": ["pre-update"]}}}}
    url = _create(client, "wild", env)
    assert wait_for(client, url)["stack_status"] == "CREATE_COMPLETE"
    before = client.get(url + "/resources/foo_step1").json()["resource"]
    updated = client.put(url, json={"template": CHAIN, "environment": env})
    assert updated.status_code == 202, updated.text
    reason = "UPDATE paused until Hook pre-update is cleared"
    _until(lambda: _events(client, url, "foo_step1", reason), "pause event")
    assert client.get(url).json()["stack"]["stack_status"] == "UPDATE_IN_PROGRESS"
    for name in ("foo_step1", "foo_step2", "foo_step3"):
        _until(lambda name=name: _events(client, url, name, reason), f"{name}'s pause")
        client.post(f"{url}/resources/{name}/signal", json={"unset_hook": "pre-update"})
    assert wait_for(client, url)["stack_status"] == "UPDATE_COMPLETE"
    after = client.get(url + "/resources/foo_step1").json()["resource"]
    assert after["physical_resource_id"] == before["physical_resource_id"]


def test_nested_hooks_and_the_command_line(client: TestClient, database: Path) -> None:
    """A hook in a nested stack's resources: block; ``stoker stack hook poll`` lists it
    and ``stoker stack hook clear`` (the CLI on the same database) lets it go on."""
    nested = json.dumps(CHAIN)
    template = {
        "heat_template_version": "2014-10-16",
        "resources": {"inner": {"type": "chain.yaml"}},
    }
    env = {"resource_registry": {"resources": {"inner": {"foo_step3": {"hooks": "pre-create"}}}}}
    created = client.post(
        "/v1/admin/stacks",
        json={
            "stack_name": "outer",
            "template": template,
            "files": {"chain.yaml": nested},
            "environment": env,
        },
    )
    assert created.status_code == 201, created.text
    url = str(created.headers["location"])
    db = ["--db", str(database), "--project", "admin"]

    def poll() -> list[dict[str, Any]]:
        shown = CliRunner().invoke(
            cli, [*db, "stack", "hook", "poll", "outer", "-n", "1", "-f", "json"]
        )
        assert shown.exit_code == 0, shown.output
        return list(json.loads(shown.stdout))

    [row] = _until(poll, "a paused resource")
    assert (row["resource_name"], row["pause_type"]) == ("foo_step3", "pre-create")
    inner = row["stack_name"]
    refused = CliRunner().invoke(cli, [*db, "stack", "hook", "clear", inner, "foo_step1"])
    assert refused.exit_code != 0 and "not paused" in refused.output
    done = CliRunner().invoke(
        cli, [*db, "stack", "hook", "clear", inner, "foo_step3", "--pre-create"]
    )
    assert done.exit_code == 0, done.output
    assert wait_for(client, url)["stack_status"] == "CREATE_COMPLETE"
