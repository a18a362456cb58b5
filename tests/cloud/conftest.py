"""A real sandbox for the OpenStack types: served by uvicorn on an ephemeral port in a
thread of the test process, reached through a clouds.yaml entry as any cloud is."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from sandbox.server import RunningSandbox
from stoker.cli.main import cli
from stoker.cloud import Cloud, CloudChoice


@pytest.fixture(scope="session")
def sandbox() -> Iterator[RunningSandbox]:
    running = RunningSandbox(build_delay=0.05).start()
    yield running
    running.stop()


@pytest.fixture(scope="session")
def clouds_yaml(sandbox: RunningSandbox, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return sandbox.clouds_yaml(tmp_path_factory.mktemp("clouds") / "clouds.yaml")


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    """stoker's own store: SQLite only here (the store's backends have their own tests;
    these are about the cloud)."""
    return f"sqlite:///{tmp_path / 'stoker.db'}"


@pytest.fixture
def cloud_env(clouds_yaml: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The environment every OpenStack tool reads: OS_CLIENT_CONFIG_FILE and OS_CLOUD."""
    env = {"OS_CLIENT_CONFIG_FILE": str(clouds_yaml), "OS_CLOUD": "sandbox"}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return env


@pytest.fixture(scope="session")
def admin(sandbox: RunningSandbox) -> Any:
    """An openstacksdk connection as the sandbox's admin (to look at what stacks left)."""
    return sandbox.connect()


@pytest.fixture(scope="session")
def public_network(admin: Any) -> str:
    """The operator's bootstrap: an external network with a subnet, for floating IPs."""
    found = admin.network.find_network("public")
    if found is None:
        found = admin.network.create_network(name="public", is_router_external=True)
        admin.network.create_subnet(
            network_id=found.id, name="public-subnet", cidr="172.24.4.0/24", ip_version=4
        )
    return str(found.id)


@pytest.fixture
def cloud(clouds_yaml: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Cloud]:
    monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", str(clouds_yaml))
    opened = Cloud(CloudChoice("sandbox"))
    yield opened
    opened.close()


class StackCli:
    """``stoker stack …`` run in-process on one database, against the sandbox."""

    def __init__(self, db_url: str) -> None:
        self.db_url = db_url

    def __call__(self, *args: str) -> Result:
        return CliRunner().invoke(cli, ["--db", self.db_url, "stack", *args])

    def ids(self, stack: str) -> dict[str, str]:
        """The stack's resources: name -> physical id."""
        listed = json.loads(self("resource", "list", stack, "-f", "json").stdout)
        return {r["resource_name"]: r["physical_resource_id"] for r in listed}


@pytest.fixture
def stoker(db_url: str, cloud_env: dict[str, str]) -> StackCli:
    return StackCli(db_url)
