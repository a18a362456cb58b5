"""Drift against the sandbox: the two-tier stack changed out of band by the real
``openstack`` client (a server resized and its metadata changed, a rule added to a
security group, a port deleted, a volume extended, a floating IP moved), each reported
exactly by ``stoker stack drift``, taken in by ``--accept`` or undone by ``stoker stack
update --existing --repair``, and in sync afterwards."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .conftest import StackCli

pytestmark = pytest.mark.heavy

TEMPLATE = Path(__file__).parent / "templates" / "two_tier.yaml"
OPENSTACK = Path(sys.executable).parent / "openstack"


def openstack(env: dict[str, str], *args: str) -> str:
    """The real ``openstack`` client, out of band (as an operator would)."""
    done = subprocess.run(
        [str(OPENSTACK), *args],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def drift(stoker: StackCli, name: str, *args: str) -> dict[str, dict[str, Any]]:
    result = stoker("drift", name, "-f", "json", *args)
    assert result.exit_code == 0, result.output
    return {row["resource_name"]: row for row in json.loads(result.stdout)}


def statuses(found: dict[str, dict[str, Any]]) -> dict[str, str]:
    return {name: row["drift_status"] for name, row in found.items()}


def differences(row: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    return {d["property"]: (d["expected"], d["actual"]) for d in row["differences"]}


@pytest.fixture
def tiers(stoker: StackCli, public_network: str) -> dict[str, str]:
    created = stoker("create", "tiers", "-t", str(TEMPLATE))
    assert created.exit_code == 0, created.output
    yield stoker.ids("tiers")
    stoker("delete", "tiers", "--yes")


def test_a_fresh_stack_is_in_sync(stoker: StackCli, tiers: dict[str, str]) -> None:
    found = drift(stoker, "tiers")
    assert statuses(found) == {
        "net": "IN_SYNC", "subnet": "IN_SYNC", "router": "IN_SYNC",
        "router_interface": "IN_SYNC", "web_sg": "IN_SYNC", "web_port": "IN_SYNC",
        "db_port": "IN_SYNC", "web": "IN_SYNC", "db": "IN_SYNC",
        "web_volume": "IN_SYNC", "db_volume": "IN_SYNC", "web_attachment": "IN_SYNC",
        "db_attachment": "IN_SYNC", "web_floating_ip": "IN_SYNC",
    }  # fmt: skip
