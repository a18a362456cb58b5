"""Glance's web image against the real sandbox: the image's data is fetched from a URL
(Glance's web-download import), here a tiny HTTP server of the test's own."""

from __future__ import annotations

import hashlib
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from sandbox.server import RunningSandbox
from stoker.cli.main import cli

DATA = b"a disk image, as far as the sandbox can tell\n" * 100


class _Images(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        if self.path != "/disk.img":
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(DATA)))
        self.end_headers()
        self.wfile.write(DATA)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def web(sandbox: RunningSandbox) -> Iterator[str]:
    """The image server, on a host the sandbox is told it may fetch from (none is, by
    default: ``stoker sandbox serve --import-allow``)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Images)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    saved = sandbox.config.import_allow
    sandbox.config.import_allow = ("127.0.0.1",)
    yield f"http://127.0.0.1:{server.server_address[1]}"
    sandbox.config.import_allow = saved
    server.shutdown()
    server.server_close()


def _template(path: Path, location: str) -> Path:
    path.write_text(
        "heat_template_version: wallaby\n"
        "resources:\n"
        "  image:\n"
        "    type: OS::Glance::WebImage\n"
        f"    properties: {{location: '{location}', disk_format: qcow2,\n"
        "                 container_format: bare, min_ram: 64, tags: [web]}\n"
        "outputs:\n"
        "  image: {value: {get_resource: image}}\n"
    )
    return path


def test_web_image_is_fetched_into_glance_and_deleted(
    db_url: str, cloud_env: dict[str, str], admin: Any, web: str, tmp_path: Path
) -> None:
    def stoker(*args: str) -> Any:
        return CliRunner().invoke(cli, ["--db", db_url, "stack", *args])

    template = _template(tmp_path / "image.yaml", f"{web}/disk.img")
    created = stoker("create", "webimg", "-t", str(template), "-f", "json")
    assert created.exit_code == 0, created.output
    shown = stoker("output", "show", "webimg", "image", "-f", "value", "-c", "output_value")
    image = admin.image.get_image(shown.stdout.strip())
    assert (image.status, image.size, image.min_ram, image.tags) == (
        "active",
        len(DATA),
        64,
        ["web"],
    )
    assert image.checksum == hashlib.md5(DATA, usedforsecurity=False).hexdigest()
    assert image.name.startswith("webimg-image-")
    assert b"".join(admin.image.download_image(image, stream=True).iter_content(4096)) == DATA

    deleted = stoker("delete", "webimg", "--yes")
    assert deleted.exit_code == 0, deleted.output
    assert admin.image.find_image(image.id) is None


@pytest.mark.slow
def test_a_web_image_that_cannot_be_fetched_fails_its_resource(
    db_url: str, cloud_env: dict[str, str], admin: Any, web: str, tmp_path: Path
) -> None:
    def stoker(*args: str) -> Any:
        return CliRunner().invoke(cli, ["--db", db_url, "stack", *args])

    missing = _template(tmp_path / "missing.yaml", f"{web}/nothing-here.img")
    failed = stoker("create", "webimg-missing", "-t", str(missing))
    assert failed.exit_code != 0
    assert "web-download of" in failed.output and "nothing-here.img" in failed.output
    assert "os_glance_failed_import" in failed.output
    assert stoker("delete", "webimg-missing", "--yes").exit_code == 0
    assert [i for i in admin.image.images() if i.name.startswith("webimg-missing-")] == []
