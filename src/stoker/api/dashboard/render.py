"""Pages from the Jinja2 templates beside this module, and the one wrapper every
dashboard handler goes through: who is asking (`stoker.api.dashboard.session`), the CSRF
check of a form, and the error pages (login, 403, the library's errors as a page with
their status, never a traceback)."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from stoker.api.dashboard import session
from stoker.api.dashboard.session import Viewer
from stoker.errors import ApiError, StokerError

HERE = Path(__file__).parent
ROOT = "/dashboard"
#: the largest form a page accepts (a template pasted or uploaded, a ZIP package)
MAX_FORM_BYTES = 64 * 1_048_576

_environment = Environment(
    loader=FileSystemLoader(HERE / "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
    trim_blocks=True,
    lstrip_blocks=True,
)


def state_class(state: str | None) -> str:
    """The CSS class of a status (``CREATE_IN_PROGRESS`` -> ``in-progress``)."""
    text = state or ""
    if text.startswith("INIT") or text == "DELETE_COMPLETE":  # not there (yet, any more)
        return "init"
    for status in ("IN_PROGRESS", "COMPLETE", "FAILED"):
        if text.endswith(status):
            return status.lower().replace("_", "-")
    return "init"


_environment.filters["state_class"] = state_class


def page(request: Request, name: str, context: dict[str, Any], status: int = 200) -> HTMLResponse:
    """The template ``name`` rendered, with what every page shows (the viewer, the
    CSRF token, the auth mode)."""
    token = session.csrf_token(request)
    values = {
        "root": ROOT,
        "csrf_field": session.CSRF_FIELD,
        "csrf": token,
        "keystone": session.keystone_of(request) is not None,
        **context,
    }
    html = _environment.get_template(name).render(values)
    response = HTMLResponse(html, status_code=status)
    # pages show stack state, and a revealed output: never kept by a shared cache
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["Content-Security-Policy"] = (
        "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
        "frame-ancestors 'none'; form-action 'self'"
    )
    session.keep_csrf(response, request)
    return response


def error_page(request: Request, status: int, title: str, message: str) -> HTMLResponse:
    return page(request, "error.html", {"title": title, "message": message}, status)


Handler = Callable[[Request, Viewer], Awaitable[Response]]


def dashboard_page(rule: str | None = None) -> Callable[[Handler], Callable[..., Any]]:
    """A handler for a logged-in viewer whose roles allow ``rule`` (Heat's policy name
    of the action, `stoker.api.policy`); a POST must carry the form's CSRF token."""

    def wrap(handler: Handler) -> Callable[..., Any]:
        @functools.wraps(handler)
        async def endpoint(request: Request) -> Response:
            try:
                viewer = await session.viewer_of(request)
                if rule is not None:
                    viewer.require(rule)
                if request.method == "POST":
                    form = await read_form(request)
                    if not session.csrf_ok(request, form.get(session.CSRF_FIELD)):
                        return error_page(
                            request,
                            403,
                            "Form expired",
                            "The form's security token did not match: reload the page and "
                            "send it again.",
                        )
                return await handler(request, viewer)
            except session.LoginNeeded:
                return RedirectResponse(f"{ROOT}/login", status_code=303)
            except session.Refused as refused:
                return error_page(
                    request, 403, "Not allowed", f"Your roles do not allow {refused.rule}."
                )
            except ApiError as error:
                return error_page(request, error.status, error.kind, error.message)
            except StokerError as error:
                from stoker.api.errors import from_stoker

                shown = from_stoker(error)
                return error_page(request, shown.status, shown.kind, shown.message)
            finally:  # an uploaded file's spooled copy
                spooled: FormData | None = request.scope.get("stoker_form")
                if spooled is not None:
                    await spooled.close()

        return endpoint

    return wrap


async def read_form(request: Request) -> FormData:
    """The request's form (urlencoded or multipart), read once and kept on the request."""
    cached: FormData | None = request.scope.get("stoker_form")
    if cached is None:
        length = int(request.headers.get("content-length") or 0)
        if length > MAX_FORM_BYTES:
            raise ApiError(413, "RequestLimitExceeded", "The form is too large.")
        cached = await request.form(max_part_size=MAX_FORM_BYTES)
        request.scope["stoker_form"] = cached
    return cached


def text_field(form: FormData, name: str) -> str:
    value = form.get(name)
    return value if isinstance(value, str) else ""
