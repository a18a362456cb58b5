"""Faults on request: the control API, injected errors, latency, quotas, failing servers."""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import openstack.exceptions
import pytest

from stoker.errors import UsageError
from stoker.sandbox.faults import load_faults

from .server import RunningSandbox

pytestmark = pytest.mark.heavy


def _boot(cloud: Any, name: str | None = None) -> Any:
    image = cloud.image.find_image("cirros-0.6.2-x86_64-disk")
    return cloud.compute.create_server(
        name=name or f"vm-{uuid.uuid4().hex[:6]}", flavor_id="1", image_id=image.id, networks="none"
    )


def _set(sandbox: RunningSandbox, plan: dict[str, Any]) -> httpx.Response:
    headers = {"x-auth-token": sandbox.token()}
    return httpx.put(f"{sandbox.url}/sandbox/faults", json=plan, headers=headers)


def test_error_rate_on_one_operation(sandbox: RunningSandbox, cloud: Any, faults: None) -> None:
    plan = {"rules": [{"service": "compute", "operation": "servers.create", "error_rate": 1}]}
    assert _set(sandbox, plan).status_code == 200
    with pytest.raises(openstack.exceptions.HttpException) as caught:
        _boot(cloud)
    assert caught.value.status_code == 503
    list(cloud.compute.servers())  # other operations are untouched
    token = cloud.session.get_token()
    raw = httpx.post(
        f"{sandbox.url}/compute/v2.1/servers", json={"server": {}}, headers={"X-Auth-Token": token}
    )
    assert raw.json()["serviceUnavailable"]["code"] == 503
    # half the requests, drawn from a seeded generator: repeatable
    plan["rules"][0]["error_rate"] = 0.5
    plan["seed"] = 3
    outcomes = []
    for _ in range(2):
        _set(sandbox, plan)
        outcomes.append(
            [
                httpx.post(
                    f"{sandbox.url}/compute/v2.1/servers",
                    json={"server": {"name": "x", "flavorRef": "nope", "imageRef": "x"}},
                    headers={"X-Auth-Token": token},
                ).status_code
                for _ in range(8)
            ]
        )
    assert outcomes[0] == outcomes[1]
    assert set(outcomes[0]) == {400, 503}


def test_latency(sandbox: RunningSandbox, cloud: Any, faults: None) -> None:
    _set(sandbox, {"rules": [{"service": "compute", "operation": "flavors.*", "latency": 0.3}]})
    started = time.monotonic()
    list(cloud.compute.flavors())
    assert time.monotonic() - started >= 0.3


def test_quota_and_failing_servers(sandbox: RunningSandbox, demo: Any, faults: None) -> None:
    used = len(list(demo.compute.servers()))
    _set(sandbox, {"quotas": {"compute": {"instances": used + 1}}, "error_servers": ["doomed-*"]})
    doomed = _boot(demo, "doomed-1")
    with pytest.raises(openstack.exceptions.ForbiddenException, match="Quota exceeded"):
        _boot(demo)
    shown = demo.compute.get_server(doomed.id)
    assert shown.status == "ERROR"
    assert "No valid host" in shown.fault["message"]
    assert demo.compute.get_limits().absolute.instances == used + 1
    demo.compute.delete_server(doomed)


def test_control_api_refuses_a_bad_plan_and_counts_requests(sandbox: RunningSandbox) -> None:
    refused = _set(sandbox, {"rules": [{"status": 200}]})
    assert refused.status_code == 400
    assert "rules[0].status: expected an HTTP error status" in refused.json()["error"]
    assert httpx.get(f"{sandbox.url}/sandbox/faults").json()["rules"] == []
    httpx.delete(f"{sandbox.url}/sandbox/stats")
    httpx.get(f"{sandbox.url}/compute/v2.1/flavors")  # 401, but counted
    stats = httpx.get(f"{sandbox.url}/sandbox/stats").json()
    assert stats["operations"] == {"compute flavors.list": 1}


def test_fault_file_errors_are_located(tmp_path: Path) -> None:
    path = tmp_path / "faults.yaml"
    path.write_text("rules: [\n")
    with pytest.raises(UsageError, match=r"faults.yaml:\d+:\d+: not YAML or JSON"):
        load_faults(path)
    path.write_text("quotas:\n  compute: {instances: many}\n")
    with pytest.raises(UsageError, match="quotas.compute.instances: expected a number"):
        load_faults(path)
    path.write_text("seed: 1\nrules:\n  - {operation: 'servers.*', error_rate: 0.1}\n")
    assert load_faults(path).rules[0].error_rate == 0.1


def test_injected_create_errors_leave_nothing_behind(
    sandbox: RunningSandbox, demo: Any, faults: None
) -> None:
    """Twenty creates from four threads, 30% refused: exactly the accepted ones exist."""
    from concurrent.futures import ThreadPoolExecutor

    plan = {"seed": 11, "rules": [{"operation": "servers.create", "error_rate": 0.3}]}
    assert _set(sandbox, plan).status_code == 200
    prefix = f"burst-{uuid.uuid4().hex[:6]}"

    def create(index: int) -> str | None:
        try:
            return str(_boot(demo, f"{prefix}-{index}").id)
        except openstack.exceptions.HttpException as error:
            assert error.status_code == 503
            return None

    with ThreadPoolExecutor(4) as pool:
        made = [server_id for server_id in pool.map(create, range(20)) if server_id]
    assert 0 < len(made) < 20
    listed = [s.id for s in demo.compute.servers(name=f"^{prefix}-")]
    assert sorted(listed) == sorted(made)
    for server_id in made:
        demo.compute.delete_server(server_id)
    assert list(demo.compute.servers(name=f"^{prefix}-")) == []


def test_only_an_admin_changes_the_fault_plan(sandbox: RunningSandbox, faults: None) -> None:
    """The plan is every project's cloud: without a token 401, a member's 403 (issue 28:
    any caller could set it); reading it needs no token."""
    url = f"{sandbox.url}/sandbox/faults"
    plan = {"rules": [{"service": "compute", "error_rate": 1}]}
    for headers, status in (
        ({}, 401),
        ({"x-auth-token": "forged"}, 401),
        ({"x-auth-token": sandbox.token("demo")}, 403),
    ):
        assert httpx.put(url, json=plan, headers=headers).status_code == status
        assert httpx.delete(url, headers=headers).status_code == status
        assert httpx.get(url).json()["rules"] == []
    admin = {"x-auth-token": sandbox.token()}
    assert httpx.put(url, json=plan, headers=admin).status_code == 200
    assert httpx.get(url).json()["rules"][0]["service"] == "compute"
    assert httpx.delete(url, headers={"x-auth-token": sandbox.token("demo")}).status_code == 403
    assert httpx.delete(url, headers=admin).status_code == 204
    assert httpx.get(url).json()["rules"] == []
