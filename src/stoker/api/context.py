"""What every handler needs: the server's operations, Heat's request limits, the
request's project, its body, the stack it names, and the links Heat writes."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

from starlette.requests import Request
from starlette.types import Scope

from stoker.api.errors import bad_request, not_found
from stoker.api.links import root_url
from stoker.api.operations import Operations
from stoker.engine import StackRecord
from stoker.request_body import MAX_JSON_BODY_SIZE, parse_json, read_body

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ApiLimits:
    """Heat's API limits (its configuration options of the same names and defaults)."""

    max_template_size: int = 524_288
    max_json_body_size: int = MAX_JSON_BODY_SIZE
    #: a ZIP package's bytes as uploaded (stoker's own: Heat takes no packages)
    max_package_size: int = 64 * 1_048_576


@dataclass(slots=True)
class Api:
    """The server's state, shared by every request."""

    operations: Operations
    limits: ApiLimits
    started: datetime = field(default_factory=lambda: datetime.now(UTC))
    service_id: str = field(default_factory=lambda: str(uuid.uuid4()))


def api_of(request: Request) -> Api:
    api: Api = request.app.state.api
    return api


def project_of(request: Request) -> str:
    return str(request.path_params["project"])


def base_url(request: Request) -> str:
    """``{public URL}/v1/{project}`` (`stoker.api.links`: never from the request's
    ``Host`` header)."""
    return f"{root_url(request)}/v1/{project_of(request)}"


def stack_url(request: Request, stack: StackRecord) -> str:
    return f"{base_url(request)}/stacks/{stack.name}/{stack.id}"


def stack_links(request: Request, stack: StackRecord) -> list[dict[str, str]]:
    return [{"href": stack_url(request, stack), "rel": "self"}]


async def body_of(request: Request) -> dict[str, Any]:
    """The JSON body as a mapping, within Heat's ``max_json_body_size`` and no deeper
    than `stoker.request_body.MAX_JSON_DEPTH` (the one parser the sandbox uses too)."""
    raw = await read_body(request, api_of(request).limits.max_json_body_size)
    if not raw.strip():
        return {}
    data = parse_json(raw)
    if not isinstance(data, dict):
        raise bad_request("The request body must be a JSON object.")
    return data


async def find_stack(request: Request, *, deleted: bool = True) -> StackRecord:
    """The stack ``{stack_name}/{stack_id}`` names, in the request's project only: another
    project's stack is not found, as in Heat."""
    name = str(request.path_params["stack_name"])
    stack_id = str(request.path_params["stack_id"])
    store = api_of(request).operations.store
    found = await asyncio.to_thread(store.get_stack, stack_id, project_of(request))
    if (
        found is None
        or found.id != stack_id
        or found.name != name
        or (found.deleted_at is not None and not deleted)
    ):
        raise not_found(f"The Stack ({name}) could not be found.")
    return found


def flag(value: str | None) -> bool:
    """A boolean query parameter as Heat reads one (``true``/``1``/``yes``/``on``)."""
    return value is not None and value.strip().lower() in ("true", "1", "yes", "on", "t", "y")


def integer(request: Request, name: str, default: int | None = None) -> int | None:
    value = request.query_params.get(name)
    if value is None or value == "":
        return default
    try:
        number = int(value)
    except ValueError:
        raise bad_request(f'Invalid value "{value}" for {name}: it must be an integer') from None
    if number < 0:
        raise bad_request(f'Invalid value "{value}" for {name}: it must not be negative')
    return number


def sort_direction(request: Request) -> str:
    """``sort_dir``: ``desc`` (the default) or ``asc``."""
    direction = request.query_params.get("sort_dir", "desc")
    if direction not in ("asc", "desc"):
        raise bad_request(f"Sort direction '{direction}' is not supported (asc or desc).")
    return direction


def after_marker(
    items: list[T], marker: str | None, ident: Callable[[T], Any], missing: str
) -> list[T]:
    """The items after the one whose id (``ident``) is ``marker``, Heat's paging (all of
    them without one); 404 with ``missing`` when no item has that id."""
    if not marker:
        return items
    at = next((i for i, item in enumerate(items) if ident(item) == marker), None)
    if at is None:
        raise not_found(missing)
    return items[at + 1 :]


def authorize(scope: Scope, rule: str) -> bool:
    """Whether the request's caller may act under ``rule`` (always, without
    ``--auth keystone``): for the handlers whose rule depends on the body. Here, not in
    `stoker.api.auth`, so that a server without Keystone never imports that module and
    its policy."""
    grant = scope.get("state", {}).get("grant")
    return grant is None or bool(grant.allows(rule))
