"""The sandbox's router, which tries only the routes of a request's first path segment,
answers as Starlette's own router over the whole table does: matches, 404s, 405s (with
their Allow header) and slash redirects alike."""

from __future__ import annotations

from starlette.routing import Router
from starlette.testclient import TestClient

from stoker.sandbox.app import create_app

REQUESTS = [
    ("GET", "/compute/v2.1/flavors"),
    ("GET", "/compute/v2.1/flavors/"),
    ("GET", "/compute"),
    ("GET", "/compute/"),
    ("PATCH", "/compute/v2.1/servers"),
    ("GET", "/compute/v2.1/no-such-thing"),
    ("DELETE", "/network/v2.0/ports"),
    ("GET", "/network/v2.0/ports/"),
    ("GET", "/sandbox/stats"),
    ("POST", "/sandbox/stats"),
    ("DELETE", "/sandbox/stats"),  # the last route of its segment
    ("GET", "/no-such-service/x"),
    ("GET", "/"),
    ("GET", "/identity/v3"),
]


def _answers(client: TestClient, token: str) -> list[tuple[int, str, str]]:
    answers = []
    for method, path in REQUESTS:
        response = client.request(
            method, path, headers={"X-Auth-Token": token}, follow_redirects=False
        )
        body = response.text if response.status_code >= 300 else ""
        answers.append((response.status_code, response.headers.get("allow", ""), body))
    return answers


def test_the_router_answers_as_starlettes_does() -> None:
    app = create_app("sqlite://")
    with TestClient(app) as client:
        default = {"name": "Default"}
        user = {"name": "admin", "domain": default, "password": "sandbox"}
        auth = {
            "auth": {
                "identity": {"methods": ["password"], "password": {"user": user}},
                "scope": {"project": {"name": "admin", "domain": default}},
            }
        }
        token = client.post("/identity/v3/auth/tokens", json=auth).headers["x-subject-token"]
        ours = _answers(client, token)
        app.router = Router(routes=app.router.routes)  # Starlette's, over every route
        app.middleware_stack = None
        theirs = _answers(client, token)
    assert ours == theirs
    assert [status for status, _, _ in ours][:6] == [200, 307, 200, 200, 405, 404]
