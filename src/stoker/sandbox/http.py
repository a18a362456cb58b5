"""Small helpers the REST handlers share: bodies in and out, listings, links."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from stoker import request_body
from stoker.errors import ApiError as StokerApiError
from stoker.request_body import MAX_JSON_BODY_SIZE
from stoker.sandbox.http_errors import ApiError, BadRequest

if TYPE_CHECKING:
    from stoker.sandbox.store import Document


async def read_body(
    request: Request, limit: int = MAX_JSON_BODY_SIZE, what: str = "JSON body"
) -> bytes:
    """The body, no larger than ``limit`` (413 beyond: `stoker serve`'s reader and limit,
    `stoker.request_body`), so that no request, authenticated or not, makes the sandbox
    hold more."""
    try:
        return await request_body.read_body(request, limit, what)
    except StokerApiError as error:
        raise _sandbox_error(error) from None


async def read_json_value(request: Request) -> Any:
    """The request's JSON value (None for an empty body), read by `read_body` and parsed
    by `stoker serve`'s parser: 400 in the service's own error body for a body that is
    not JSON or nests too deeply."""
    raw = await read_body(request)
    if not raw:
        return None
    try:
        return request_body.parse_json(raw)
    except StokerApiError as error:
        raise _sandbox_error(error) from None


def _sandbox_error(error: StokerApiError) -> ApiError:
    if error.status == 400:
        return BadRequest(error.message)
    return ApiError(error.message, status=error.status, kind="RequestEntityTooLarge")


async def read_json(request: Request, *, required: str | None = None) -> Document:
    """The request's JSON object (and its ``required`` top-level key's mapping, when
    given), or 400 as the real services answer a body they cannot read."""
    body = await read_json_value(request)
    if not isinstance(body, dict):
        raise BadRequest("The request body must be a JSON object")
    return body if required is None else member(body, required)


def member(body: Document, key: str) -> Document:
    """``body[key]``, which must be a mapping (400 otherwise, as the services answer)."""
    inner = body.get(key)
    if not isinstance(inner, dict):
        raise BadRequest(f"Invalid input for field/attribute {key}: a mapping is required")
    return inner


def public(document: Mapping[str, Any]) -> Document:
    """A document as the API shows it: without the fields a backend keeps for itself,
    whose names start with ``_`` (``_ready_at``, ``_password``...)."""
    return {k: v for k, v in document.items() if not k.startswith("_")}


def reply(body: Any, status: int = 200, headers: Mapping[str, str] | None = None) -> Response:
    return JSONResponse(body, status_code=status, headers=dict(headers or {}))


def no_content(status: int = 204) -> Response:
    return Response(status_code=status)


_Item = TypeVar("_Item", bound=Mapping[str, Any])


def paginate(
    request: Request, items: Sequence[_Item], key: Callable[[_Item], str] | None = None
) -> list[_Item]:
    """``?marker=ID&limit=N`` as the real services page: the items after ``marker``."""
    key = key or (lambda item: str(item.get("id")))
    result = list(items)
    marker = request.query_params.get("marker")
    if marker:
        ids = [key(item) for item in result]
        if marker not in ids:
            raise BadRequest(f"marker [{marker}] not found")
        result = result[ids.index(marker) + 1 :]
    limit = request.query_params.get("limit")
    if limit is not None:
        try:
            count = int(limit)
        except ValueError:
            raise BadRequest(f"Invalid input for query parameters limit: {limit!r}") from None
        if count < 0:
            raise BadRequest("limit must be >= 0")
        result = result[:count]
    return result


def next_page(request: Request, page: Sequence[Mapping[str, Any]]) -> str | None:
    """The URL of the page after ``page`` when ``?limit=N`` filled it (the same limit, its
    last item as the marker), as Designate and Octavia link it; None otherwise."""
    limit = request.query_params.get("limit")
    if limit and page and len(page) == int(limit):
        return f"{base_url(request)}{request.url.path}?limit={limit}&marker={page[-1]['id']}"
    return None


def base_url(request: Request) -> str:
    """The URL clients reach this sandbox at (scheme, host and port as they asked)."""
    return str(request.base_url).rstrip("/")


def link(href: str, rel: str = "self") -> Document:
    return {"rel": rel, "href": href}


def boolean(value: str | None, name: str) -> bool | None:
    """A query flag as the services read one (``true``/``1``/``false``/``0``)."""
    if value is None:
        return None
    lowered = value.strip().lower()
    if lowered in ("true", "1", "yes", "on"):
        return True
    if lowered in ("false", "0", "no", "off"):
        return False
    raise BadRequest(f"Invalid value {value!r} for boolean parameter {name}")
