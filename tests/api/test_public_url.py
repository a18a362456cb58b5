"""Every URL the API writes starts with the server's public URL (``--public-url``, by
default the address it listens on), never with the request's ``Host`` header: a client
sending ``Host: evil.example.com`` got a name redirect to that host (issue 28)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from stoker.api.app import build_app
from stoker.cli.main import cli
from stoker.engine.settings import EngineSettings
from stoker.resources.registry import default_registry
from stoker.store import open_store

from .helpers import TEMPLATE, wait_for

EVIL = {"host": "evil.example.com"}


def urls_written(client: TestClient) -> list[str]:
    """The Location of a create, the stack's own link, the name lookup's Location and
    the version document's link, each asked with a forged Host header."""
    created = client.post(
        "/v1/p/stacks", json={"stack_name": "s", "template": TEMPLATE}, headers=EVIL
    )
    assert created.status_code == 201, created.text
    wait_for(client, "/v1/" + created.headers["location"].split("/v1/", 1)[1])
    lookup = client.get("/v1/p/stacks/s", headers=EVIL, follow_redirects=False)
    assert lookup.status_code == 302
    version = client.get("/v1/p", headers=EVIL).json()["version"]["links"][0]["href"]
    return [
        created.headers["location"],
        created.json()["stack"]["links"][0]["href"],
        lookup.headers["location"],
        version,
    ]


@pytest.mark.parametrize(
    ("public_url", "root"),
    [
        (None, "http://testserver"),  # the listening address (TestClient's socket)
        ("https://cloud.example.com/orchestration/", "https://cloud.example.com/orchestration"),
    ],
)
def test_links_and_redirects_start_with_the_public_url(
    tmp_path: Path, public_url: str | None, root: str
) -> None:
    app = build_app(
        open_store(f"sqlite:///{tmp_path / 's.db'}"),
        default_registry(),
        EngineSettings(),
        public_url=public_url,
    )
    with TestClient(app, base_url="http://testserver") as client:
        written = urls_written(client)
    assert all(url.startswith(root + "/v1/") for url in written), written
    assert not any("evil" in url for url in written)


@pytest.mark.parametrize("bad", ["cloud.example.com", "ftp://x", "http://x/?q=1", "http://"])
def test_a_public_url_that_is_not_one_is_refused(bad: str) -> None:
    result = CliRunner().invoke(cli, ["serve", "--port", "0", "--public-url", bad])
    assert result.exit_code == 2, result.output
    assert "--public-url" in result.output
    assert "Traceback" not in result.output


@pytest.mark.heavy
def test_stoker_serve_redirects_to_its_public_url(tmp_path: Path) -> None:
    from .test_real_clients import Server

    db = f"sqlite:///{tmp_path / 's.db'}"
    public = "https://heat.example.com:8443"
    servers = [
        Server(db, tmp_path / "a.log"),
        Server(db, tmp_path / "b.log", extra=("--public-url", public)),
    ]
    try:
        for server, root in zip(servers, (servers[0].url, public), strict=True):
            with httpx.Client(base_url=server.url) as client:
                name = f"s{server.port}"
                created = client.post(
                    "/v1/p/stacks", json={"stack_name": name, "template": TEMPLATE}
                )
                assert created.status_code == 201, created.text
                lookup = client.get(f"/v1/p/stacks/{name}", headers=EVIL)
            assert lookup.status_code == 302
            assert lookup.headers["location"].startswith(f"{root}/v1/p/stacks/{name}/")
    finally:
        for server in servers:
            server.stop()
