"""What an idle ``stoker serve`` has imported: its resident memory is most of what it
costs at rest (Heat's API and engine: 154 MB; the aim is 60 MB), and each library a
server loads for nothing stays in it.

Each case builds the application the way uvicorn does in ``stoker serve`` (the factory
`stoker.api.server.app`, on a migrated database) in a fresh interpreter, and lists the
modules loaded.
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from starlette.routing import Mount, Route

from stoker.api.app import routes
from stoker.store import open_store

pytestmark = pytest.mark.heavy

_PROBE = """
import json, sys
from starlette.testclient import TestClient
from stoker.api.server import app
application = app()
if sys.argv[1:] == ["versions"]:  # what benchmarks/api.py asks before it reads idle RSS
    with TestClient(application) as client:  # the lifespan too: its recovery sweep runs
        assert client.get("/").status_code == 300
        assert client.get("/v1/p").status_code == 200
if sys.argv[1:] == ["create"]:  # as the OpenStack clients do: the template parsed, in JSON
    import time
    resources = {"r": {"type": "OS::Heat::None"}}
    template = {"heat_template_version": "2018-08-31", "resources": resources}
    with TestClient(application) as client:
        created = client.post("/v1/p/stacks", json={"stack_name": "s", "template": template})
        assert created.status_code == 201, created.text
        for _ in range(500):
            status = client.get(created.headers["location"]).json()["stack"]["stack_status"]
            if status != "CREATE_IN_PROGRESS":
                break
            time.sleep(0.01)
        assert status == "CREATE_COMPLETE", status
print(json.dumps(sorted(sys.modules)))
"""


def _idle_modules(url: str, *args: str) -> set[str]:
    chosen = json.dumps({"db": url, "migrated": True})
    env = {**os.environ, "STOKER_SERVE_SETTINGS": chosen}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *args],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    modules = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert "stoker.api.app" in modules  # the probe really built the application
    return modules


def _loaded(modules: set[str], *prefixes: str) -> list[str]:
    return sorted(m for m in modules if any(m == p or m.startswith(p + ".") for p in prefixes))


#: what the first request that runs or reads a stack loads (~3.5 MB resident): the
#: engine, the resource types, the template machinery and the handlers that use them
ENGINE = (
    "stoker.engine.stacks",
    "stoker.engine.operation",
    "stoker.resources",
    "stoker.definition",
    "stoker.template",
    "stoker.functions",
    "stoker.parameters",
    "stoker.environment",
    "stoker.api.stacks",
    "stoker.api.actions",
    "stoker.api.resources",
    "stoker.api.catalog",
    "stoker.api.software",
    "stoker.api.inputs",
)


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_an_idle_server_asked_its_versions_holds_no_engine(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """The idle figure of benchmarks/api.py is read after ``GET /``: neither start-up,
    the recovery sweep (nothing to recover) nor version discovery loads the engine."""
    if backend == "sqlite":
        url = f"sqlite:///{tmp_path / 'idle.db'}"
        open_store(url).close()
    else:
        url = request.getfixturevalue("pg_database_url")
    modules = _idle_modules(url, "versions")
    assert "stoker.api.versions" in modules
    assert _loaded(modules, *ENGINE) == []


def test_every_route_names_a_handler_of_its_module() -> None:
    """The route table names its handlers lazily (`stoker.api.app._Handlers`): each one
    must exist, as a coroutine function, in the module it names."""
    endpoints = []
    for route in routes():
        endpoints += [r.endpoint for r in route.routes] if isinstance(route, Mount) else []
        endpoints += [route.endpoint] if isinstance(route, Route) else []
    assert len(endpoints) > 50
    for endpoint in endpoints:
        handler = getattr(importlib.import_module(endpoint.__module__), endpoint.__name__)
        assert inspect.iscoroutinefunction(handler), (endpoint.__module__, endpoint.__name__)


def test_a_postgresql_server_loads_nothing_of_sqlite(pg_database_url: str) -> None:
    modules = _idle_modules(pg_database_url)
    assert "psycopg" in modules
    # no SQLAlchemy dialect for SQLite
    assert _loaded(modules, "sqlalchemy.dialects.sqlite") == []
    assert _loaded(modules, "yaml", "stoker.api.upload", "stoker.api.auth") == []


def test_an_idle_sqlite_server_loads_no_postgresql_yaml_nor_keystone_parts(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'idle.db'}"
    open_store(url).close()
    modules = _idle_modules(url)
    assert "stoker.store.store" in modules  # the store is open
    assert _loaded(modules, "psycopg", "sqlalchemy.dialects.postgresql") == []
    # PyYAML comes with the first YAML text to read; --auth noauth needs no gate or policy
    expected_later = ("yaml", "stoker.template.yaml_reader", "stoker.api.auth", "stoker.api.policy")
    assert _loaded(modules, *expected_later) == []
    # a database named by URL and the session's key file: no user data directory to find
    assert _loaded(modules, "platformdirs") == []


def test_a_create_from_a_parsed_template_loads_no_yaml(tmp_path: Path) -> None:
    """python-openstackclient, openstacksdk and Terraform send the template parsed, inside
    the JSON body: creating from it reads no YAML text."""
    url = f"sqlite:///{tmp_path / 'create.db'}"
    open_store(url).close()
    modules = _idle_modules(url, "create")
    assert "stoker.engine.operation" in modules  # the create loaded the engine
    assert _loaded(modules, "yaml", "stoker.template.yaml_reader") == []
    # nor what only uploads need: the blueprint compiler and the package reader
    assert (
        _loaded(modules, "stoker.api.upload", "stoker.blueprint", "stoker.definition.archive") == []
    )
