"""What a hostile client sends the sandbox (issue 28), over HTTP to a served sandbox:
JSON nested past any recursion, on each of the seven services, answered 400 in the
service's own error body; a body over `stoker serve`'s limit, answered 413 before it is
read, with or without a token."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import httpx
import pytest

from stoker.request_body import MAX_JSON_BODY_SIZE, MAX_JSON_DEPTH
from stoker.sandbox.app import SERVICES
from stoker.sandbox.http_errors import BadRequest

from .server import PASSWORD, RunningSandbox

TOO_DEEP = f"The request body is not valid JSON: it nests more than {MAX_JSON_DEPTH} levels deep."


def token_of(sandbox: RunningSandbox, user: str = "admin") -> tuple[str, str]:
    """A token of ``user`` scoped to the project of the same name, and that project's id."""
    default = {"name": "Default"}
    auth = {
        "auth": {
            "identity": {
                "methods": ["password"],
                "password": {"user": {"name": user, "domain": default, "password": PASSWORD}},
            },
            "scope": {"project": {"name": user, "domain": default}},
        }
    }
    answer = httpx.post(f"{sandbox.url}/identity/v3/auth/tokens", json=auth)
    assert answer.status_code == 201, answer.text
    return answer.headers["x-subject-token"], answer.json()["token"]["project"]["id"]


@pytest.fixture(scope="module")
def http(sandbox: RunningSandbox) -> Iterator[httpx.Client]:
    token, _ = token_of(sandbox)
    with httpx.Client(base_url=sandbox.url, headers={"x-auth-token": token}) as client:
        yield client


def json_posts(project: str) -> dict[str, str]:
    """One route of each service that reads a JSON body."""
    return {
        "identity": "/identity/v3/auth/tokens",  # needs no token
        "compute": "/compute/v2.1/servers",
        "image": "/image/v2/images",
        "network": "/network/v2.0/networks",
        "block-storage": f"/volume/v3/{project}/volumes",
        "load-balancer": "/load-balancer/v2/lbaas/loadbalancers",
        "dns": "/dns/v2/zones",
    }


def expected(service_type: str, error: Any) -> Any:
    """The body the service renders for ``error`` (each service has its own shape)."""
    service = next(s for s in SERVICES if s.type == service_type)
    response = service.error_body(error)
    return bytes(response.body)


@pytest.mark.parametrize("levels", [MAX_JSON_DEPTH + 1, 1_000, 100_000])
def test_deeply_nested_json_is_a_bad_request_in_each_services_own_shape(
    sandbox: RunningSandbox, http: httpx.Client, levels: int
) -> None:
    _, project = token_of(sandbox)
    body = '{"x": ' + "[" * levels + "]" * levels + "}"
    posts = json_posts(project)
    assert len(posts) == len(SERVICES) == 7
    for service_type, path in posts.items():
        headers = {"content-type": "application/json"}
        if service_type == "identity":
            headers["x-auth-token"] = ""
        answer = http.post(path, content=body, headers=headers)
        assert answer.status_code == 400, (path, answer.text)
        assert answer.content == expected(service_type, BadRequest(TOO_DEEP)), path


def test_a_json_patch_to_an_image_is_read_by_the_same_parser(http: httpx.Client) -> None:
    levels = 1_000
    answer = http.patch(
        "/image/v2/images/anything",
        content="[" * levels + "]" * levels,
        headers={"content-type": "application/openstack-images-v2.1-json-patch"},
    )
    assert answer.status_code == 400
    assert TOO_DEEP in answer.text


def test_a_body_over_the_limit_is_refused(http: httpx.Client) -> None:
    """No token needed to send it: the unauthenticated token route is where it matters.
    A declared length over the limit is refused at once; a chunked body (no declared
    length) is read no further than the limit (`test_serve.py` measures the memory)."""
    too_big = b'{"auth": "' + b"x" * MAX_JSON_BODY_SIZE + b'"}'
    declared = http.post(
        "/identity/v3/auth/tokens",
        content=too_big,
        headers={"content-type": "application/json", "x-auth-token": ""},
    )
    assert declared.status_code == 413
    error = declared.json()["error"]
    assert error["code"] == 413
    assert error["message"].startswith("Request limit exceeded: JSON body size")
    chunked = http.post(
        "/identity/v3/auth/tokens",
        content=(b" " * 1_048_576 for _ in range(20)),  # 20 MB of spaces, chunked
        headers={"content-type": "application/json", "x-auth-token": ""},
    )
    assert chunked.status_code == 413


@pytest.fixture
def new_image(http: httpx.Client) -> Iterator[Callable[[], str]]:
    """Makes queued images, deleted after the test: the session's sandbox is shared, and
    other tests boot its newest image."""
    made: list[str] = []

    def make() -> str:
        formats = {"disk_format": "raw", "container_format": "bare"}
        made.append(http.post("/image/v2/images", json={"name": "t", **formats}).json()["id"])
        return made[-1]

    yield make
    for image_id in made:
        assert http.delete(f"/image/v2/images/{image_id}").status_code == 204


def test_image_data_has_a_limit_of_its_own(
    http: httpx.Client, new_image: Callable[[], str]
) -> None:
    from stoker.sandbox.image.backend import IMPORT_LIMIT

    image = {"id": new_image()}
    chunks = (b"\0" * 1_048_576 for _ in range(IMPORT_LIMIT // 1_048_576 + 1))
    answer = http.put(
        f"/image/v2/images/{image['id']}/file",
        content=chunks,
        headers={"content-type": "application/octet-stream"},
    )
    assert answer.status_code == 413
    assert "image data size" in answer.text
    assert http.get(f"/image/v2/images/{image['id']}").json()["status"] == "queued"


DATA = b"an image\n" * 10


class _Web(BaseHTTPRequestHandler):
    """``/disk.img``: the image; ``/elsewhere``: a redirect to it on ``localhost``."""

    asked: ClassVar[list[str]] = []

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self.asked.append(self.path)
        if self.path == "/elsewhere":
            self.send_response(302)
            port = self.server.server_address[1]
            self.send_header("Location", f"http://localhost:{port}/disk.img")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(DATA)))
        self.end_headers()
        self.wfile.write(DATA)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def web(sandbox: RunningSandbox) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Web)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    saved = sandbox.config.import_allow
    _Web.asked.clear()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    sandbox.config.import_allow = saved
    server.shutdown()
    server.server_close()


def test_web_download_fetches_only_from_allowed_hosts(
    sandbox: RunningSandbox, http: httpx.Client, web: str, new_image: Callable[[], str]
) -> None:
    """Glance's web-download fetched any http URL, so a user could read the sandbox's
    loopback services through it (issue 28). By default no host is allowed; a redirect
    from an allowed host to another is not followed."""

    def start(image_id: str, uri: str) -> httpx.Response:
        method = {"method": {"name": "web-download", "uri": uri}}
        return http.post(f"/image/v2/images/{image_id}/import", json=method)

    assert sandbox.config.import_allow == ()
    refused = new_image()
    answer = start(refused, f"{web}/disk.img")
    assert answer.status_code == 400
    assert "does not pass filtering" in answer.text and "--import-allow HOST" in answer.text
    assert http.get(f"/image/v2/images/{refused}").json()["status"] == "queued"
    assert _Web.asked == []

    sandbox.config.import_allow = ("127.0.0.1",)
    allowed = new_image()
    assert start(allowed, f"{web}/disk.img").status_code == 202
    shown = http.get(f"/image/v2/images/{allowed}").json()
    assert (shown["status"], shown["size"]) == ("active", len(DATA))

    redirected = new_image()
    assert start(redirected, f"{web}/elsewhere").status_code == 202
    shown = http.get(f"/image/v2/images/{redirected}").json()
    assert (shown["status"], shown["os_glance_failed_import"]) == ("queued", "sandbox")
    assert _Web.asked == ["/disk.img", "/elsewhere"]  # never /disk.img through localhost


def test_sandbox_serve_takes_import_allow_hosts() -> None:
    from click.testing import CliRunner

    from stoker.cli.main import cli

    result = CliRunner().invoke(cli, ["sandbox", "serve", "--help"])
    assert "--import-allow HOST" in result.output
