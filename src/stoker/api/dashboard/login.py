"""The login page: in ``--auth noauth`` the project to act in (as the API's URL names
one); with ``--auth keystone`` Keystone's user name, password and project, exchanged for
a project-scoped token at once (the password is never kept). Logging out forgets both."""

from __future__ import annotations

import asyncio
from pathlib import Path

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from stoker.api.dashboard import session
from stoker.api.dashboard.render import HERE, ROOT, error_page, page, read_form, text_field
from stoker.errors import ApiError

STATIC = {
    "dashboard.css": "text/css; charset=utf-8",
    "dashboard.js": "text/javascript; charset=utf-8",
}


async def login(request: Request) -> Response:
    validator = session.keystone_of(request)
    context = {"title": "Log in", "project": session.DEFAULT_PROJECT, "username": ""}
    if request.method == "GET":
        return page(request, "login.html", context)
    form = await read_form(request)
    if not session.csrf_ok(request, form.get(session.CSRF_FIELD)):
        return error_page(request, 403, "Form expired", "Reload the login page and try again.")
    project = text_field(form, "project").strip()
    context.update(project=project, username=text_field(form, "username"))
    if not project:
        return page(request, "login.html", {**context, "error": "Name a project."}, 400)
    token = None
    if validator is not None:
        asked = session.Login(
            text_field(form, "username"),
            text_field(form, "password"),
            project,
            text_field(form, "domain") or "Default",
        )
        try:
            token, project = await asyncio.to_thread(session.keystone_login, validator, asked)
        except ApiError as error:
            return page(request, "login.html", {**context, "error": error.message}, error.status)
    response = RedirectResponse(f"{ROOT}/stacks", status_code=303)
    session.set_login(response, request, project, token)
    return response


async def logout(request: Request) -> Response:
    form = await read_form(request)
    if not session.csrf_ok(request, form.get(session.CSRF_FIELD)):
        return error_page(request, 403, "Form expired", "Reload the page and try again.")
    response = RedirectResponse(f"{ROOT}/login", status_code=303)
    session.clear_login(response)
    return response


async def static(request: Request) -> Response:
    """The dashboard's own stylesheet and script (no build step: as written)."""
    name = str(request.path_params["name"])
    if name not in STATIC:
        return Response("Not found", status_code=404, media_type="text/plain")
    path = Path(HERE / "static" / name)
    body = await asyncio.to_thread(path.read_bytes)
    return Response(body, media_type=STATIC[name], headers={"Cache-Control": "max-age=300"})
