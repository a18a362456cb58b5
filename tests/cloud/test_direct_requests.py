"""`stoker.cloud.direct` sends what keystoneauth would send, byte for byte, and leaves to
keystoneauth whatever it would do beyond sending: a new token after a 401, a redirect,
cookies, a configuration that adds to requests; connection failures are keystoneauth's
exceptions with its messages."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from keystoneauth1 import adapter as ksa_adapter
from keystoneauth1 import exceptions as ksa
from keystoneauth1 import plugin, session

from stoker.cloud import Cloud, CloudChoice, direct
from stoker.cloud.rest import send


@pytest.fixture(scope="module")
def opened(clouds_yaml: Path) -> Iterator[Cloud]:
    """One connection for the module's calls (opening one takes a second)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OS_CLIENT_CONFIG_FILE", str(clouds_yaml))
        cloud = Cloud(CloudChoice("sandbox"))
        cloud.connection()
    yield cloud
    cloud.close()


def _by_keystoneauth(
    connection: Any, service: str, method: str, path: str, body: Any, params: Any
) -> tuple[str, list[tuple[str, str]], bytes | None]:
    """What keystoneauth sends for the same call: URL, headers in order, body (seen by a
    response hook, which also keeps `direct` from sending it)."""
    seen: list[Any] = []
    hooks = connection.session.session.hooks["response"]
    hooks.append(lambda response, *args, **kwargs: seen.append(response.request))
    try:
        kwargs: dict[str, Any] = {"json": body} if body is not None else {}
        if params is not None:
            kwargs["params"] = params
        getattr(connection, service).request(path, method, raise_exc=False, **kwargs)
    finally:
        hooks.pop()
    [sent] = seen
    data = sent.body.encode() if isinstance(sent.body, str) else sent.body
    return sent.url, list(sent.headers.items()), data


@pytest.mark.parametrize(
    ("service", "method", "path", "body", "params"),
    [
        ("compute", "GET", "/servers", None, {"status": "BUILD"}),
        ("compute", "GET", "/servers/detail", None, {"name": "^(a-1|b\\.2)$"}),
        ("network", "GET", "/ports", None, {"device_id": ["a", "b"]}),
        ("network", "POST", "/networks", {"network": {"name": "direct ü"}}, None),
        ("network", "DELETE", "/networks/not-there", None, None),
        ("block_storage", "GET", "/volumes/detail", None, None),
        ("load_balancer", "GET", "/lbaas/loadbalancers", None, None),
        ("dns", "GET", "/zones", None, None),
    ],
)
def test_the_request_is_the_one_keystoneauth_sends(
    opened: Cloud, service: str, method: str, path: str, body: Any, params: Any
) -> None:
    cloud = opened
    connection = cloud.connection()
    sender = direct.of(connection)
    assert sender is not None
    before = cloud.requests
    answer = sender.send(getattr(connection, service), method, path, body, params)
    assert isinstance(answer, direct.Answer)
    assert cloud.requests == before + 1  # counted as keystoneauth's are
    url, headers, data = _by_keystoneauth(connection, service, method, path, body, params)
    assert (answer.url, list(answer.sent_headers.items()), answer.sent_body) == (
        url,
        headers,
        data,
    )
    response = send(connection, service, method, path, body, params)
    assert response.status_code == answer.status_code


def test_a_service_with_retries_configured_is_left_to_keystoneauth(opened: Cloud) -> None:
    connection = opened.connection()
    sender = direct.of(connection)
    assert sender is not None
    # openstacksdk retries the image service's 503s itself (status_code_retries)
    assert connection.image.status_code_retries
    assert sender.send(connection.image, "GET", "/images") is None
    assert send(connection, "image", "GET", "/images").status_code == 200


# -- a cloud of one endpoint, to answer what the sandbox never does --------------------


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    seen: list[tuple[str, str, str | None, str | None]] = []

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        token = self.headers.get("X-Auth-Token")
        self.seen.append(("GET", self.path, token, self.headers.get("Cookie")))
        if token != "fresh":
            self._answer(401, {"error": {"message": "expired"}})
        elif self.path == "/v1/moved":
            port = self.server.server_address[1]
            self._answer(307, {}, {"Location": f"http://127.0.0.1:{port}/v1/here"})
        elif self.path == "/v1/cookie":
            self._answer(200, {"ok": True}, {"Set-Cookie": "lb=one; Path=/"})
        else:
            self._answer(200, {"path": self.path})

    def _answer(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        for name, value in {"Content-Type": "application/json", **(headers or {})}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


class _Renewed(plugin.BaseAuthPlugin):
    """A token that is stale until keystoneauth invalidates it once."""

    def __init__(self) -> None:
        super().__init__()
        self.token = "stale"

    def get_token(self, session: Any, **kwargs: Any) -> str:
        return self.token

    def invalidate(self) -> bool:
        self.token = "fresh"
        return True


@pytest.fixture
def endpoint() -> Iterator[str]:
    _Handler.seen = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def _sender(url: str, auth: plugin.BaseAuthPlugin) -> tuple[direct.Direct, Any]:
    keystone = session.Session(auth=auth, additional_user_agent=[("stoker-test", "1")])
    keystone.session.trust_env = False
    counted: list[Any] = []
    return direct.Direct(keystone, counted.append), ksa_adapter.Adapter(
        keystone, endpoint_override=url
    )


def test_a_401_gets_keystoneauths_one_new_token_and_one_more_try(endpoint: str) -> None:
    sender, adapter = _sender(endpoint, _Renewed())
    response = sender.send(adapter, "GET", "/thing")
    assert response.status_code == 200 and response.json() == {"path": "/v1/thing"}
    assert [(m, p, t) for m, p, t, _ in _Handler.seen] == [
        ("GET", "/v1/thing", "stale"),
        ("GET", "/v1/thing", "fresh"),
    ]


def test_a_redirect_is_followed_as_keystoneauth_follows_one(endpoint: str) -> None:
    auth = _Renewed()
    auth.token = "fresh"
    sender, adapter = _sender(endpoint, auth)
    response = sender.send(adapter, "GET", "/moved")
    assert response.status_code == 200 and response.json() == {"path": "/v1/here"}
    assert [p for _, p, _, _ in _Handler.seen] == ["/v1/moved", "/v1/here"]


def test_a_cookie_is_kept_and_sent_back_by_keystoneauth(endpoint: str) -> None:
    auth = _Renewed()
    auth.token = "fresh"
    sender, adapter = _sender(endpoint, auth)
    assert sender.send(adapter, "GET", "/cookie").status_code == 200
    assert sender.session.cookies.get("lb") == "one"
    assert sender.send(adapter, "GET", "/again") is None  # a cookie to send: keystoneauth's
    adapter.get("/again", raise_exc=False)
    assert _Handler.seen[-1][3] == "lb=one"


def test_a_connection_failure_is_keystoneauths_with_its_message(endpoint: str) -> None:
    auth = _Renewed()
    sender, adapter = _sender("http://127.0.0.1:9/v1", auth)  # the discard port: refused
    with pytest.raises(ksa.ConnectFailure) as raised:
        sender.send(adapter, "GET", "/thing")
    assert str(raised.value).startswith("Unable to establish connection to http://127.0.0.1:9/v1")
    with pytest.raises(ksa.ConnectFailure) as by_keystoneauth:
        adapter.get("/thing")
    assert type(raised.value) is type(by_keystoneauth.value)


def test_configuration_that_adds_to_a_request_is_left_to_keystoneauth(endpoint: str) -> None:
    auth = _Renewed()
    auth.token = "fresh"
    keystone = session.Session(auth=auth, additional_user_agent=[("stoker-test", "1")])
    keystone.session.trust_env = False
    sender = direct.Direct(keystone, lambda response: None)
    for adapter in (
        ksa_adapter.Adapter(keystone, endpoint_override=endpoint, default_microversion="2.1"),
        ksa_adapter.Adapter(keystone, endpoint_override=endpoint, connect_retries=2),
        ksa_adapter.Adapter(keystone, endpoint_override=endpoint, additional_headers={"A": "b"}),
        ksa_adapter.Adapter(keystone, service_type="compute"),  # no pinned endpoint
    ):
        assert sender.send(adapter, "GET", "/thing") is None
    plain = ksa_adapter.Adapter(keystone, endpoint_override=endpoint)
    assert sender.send(plain, "GET", "/thing").status_code == 200
    keystone.session.trust_env = True  # requests would read the environment
    assert sender.send(plain, "GET", "/thing") is None


@settings(max_examples=300, deadline=None)
@given(st.from_regex(direct._PLAIN_URL, fullmatch=True))
def test_a_plain_url_is_the_one_requests_prepares(url: str) -> None:
    """Where `direct` skips requests' `prepare_url` (no query, a URL its pattern calls
    plain), the URL and the path sent are the ones requests would have made."""
    import requests

    prepared = requests.PreparedRequest()
    prepared.prepare_url(url, None)
    match = direct._PLAIN_URL.fullmatch(url)
    assert match is not None
    assert (prepared.url, prepared.path_url) == (url, match["path"])


def test_a_pool_the_pool_manager_closed_is_not_used_again(opened: Cloud) -> None:
    """The pool kept for an origin is got again once it is closed (urllib3 1.x closes
    the pools its manager stops keeping beyond a few)."""
    connection = opened.connection()
    sender = direct.of(connection)
    assert sender is not None
    assert sender.send(connection.network, "GET", "/networks").status_code == 200
    [(adapter, pool)] = [entry for key, entry in sender._pools.items() if "http" in key[0]]
    adapter.poolmanager.clear()  # as urllib3 1.x evicts one: out of its keeping, closed
    pool.close()
    assert sender.send(connection.network, "GET", "/networks").status_code == 200
    [(_, again)] = [entry for key, entry in sender._pools.items() if "http" in key[0]]
    assert again is not pool and again.pool is not None
