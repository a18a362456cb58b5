"""Version discovery (``GET /`` and ``GET /v1/{project}``): the routes a load balancer's
health check and every client's first request hit, so they import nothing of the engine
(the other handlers are imported on their first request, see `stoker.api.app`)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from stoker.api.links import root_url


async def versions(request: Request) -> Response:
    """``GET /``: Heat answers 300 Multiple Choices with its one version; a browser
    (asking for HTML, not JSON) is sent to the dashboard."""
    accept = request.headers.get("accept", "")
    if "text/html" in accept and "json" not in accept:
        return RedirectResponse("/dashboard", status_code=303)
    root = root_url(request)
    body = {
        "versions": [
            {"id": "v1.0", "status": "CURRENT", "links": [{"rel": "self", "href": f"{root}/v1/"}]}
        ]
    }
    return JSONResponse(body, status_code=300)


async def version(request: Request) -> Response:
    """``GET /v1/{project}``: the one version's document. Heat answers 404 here;
    keystoneauth looks here for a version when a client (openstacksdk) is given this URL as
    its endpoint, and fails without one, so stoker answers (a deliberate difference)."""
    root = root_url(request)
    project = request.path_params.get("project")
    href = f"{root}/v1/{project}/" if project else f"{root}/v1/"
    body = {
        "version": {"id": "v1.0", "status": "CURRENT", "links": [{"rel": "self", "href": href}]}
    }
    return JSONResponse(body)
