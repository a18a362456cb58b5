"""A request's body, read for `stoker serve` and for every service of `stoker sandbox`
alike: no further than a size limit (413 beyond), and JSON no deeper than a depth limit
(400 beyond).

Both bounds are there for hostile input. A body is read in chunks and the read stops at
the limit, so an unauthenticated 200 MB POST costs no more memory than the limit. JSON
nested a thousand levels deep makes Python's decoder, and every recursive walk after it
(template nodes, masking, copies), raise `RecursionError`: a 500 at best. The decoded
value's depth is measured without recursion and refused past `MAX_JSON_DEPTH`, before any
handler sees it.

The refusals are `stoker.errors.ApiError` (Heat's status and type): `stoker serve`
renders them as Heat's error body; the sandbox turns them into its own error, which each
service renders in its own shape (`stoker.sandbox.http.read_json`).
"""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request

from stoker.errors import ApiError

#: Heat's ``max_json_body_size``: the default limit of a JSON body, for `stoker serve`
#: and the sandbox
MAX_JSON_BODY_SIZE = 1_048_576
#: the deepest nesting a JSON body may have: twice the depth a template's own data may
#: reach (``--max-depth``, 100 levels, `stoker.limits`), room for the body's envelope
#: around it, and far from where Python's recursion gives out (~1,000 frames)
MAX_JSON_DEPTH = 200


async def read_body(request: Request, limit: int, what: str = "JSON body") -> bytes:
    """The body, read no further than ``limit`` bytes (413 beyond, as Heat answers a JSON
    body over ``max_json_body_size``): a client cannot make the server hold more."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise too_large(int(declared), limit, what)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise too_large(size, limit, what)
        chunks.append(chunk)
    return b"".join(chunks)


def too_large(size: int, limit: int, what: str) -> ApiError:
    return ApiError(
        413,
        "RequestLimitExceeded",
        f"Request limit exceeded: {what} size ({size} bytes) exceeds maximum allowed size "
        f"({limit} bytes).",
    )


def parse_json(raw: bytes, max_depth: int = MAX_JSON_DEPTH, what: str = "The request body") -> Any:
    """The JSON value of ``raw`` (400 when it is not JSON, nests deeper than
    ``max_depth`` levels, or has a NUL character in a string: no name or value may hold
    one, as PostgreSQL's text cannot, so a body is refused alike on every store)."""
    try:
        data = json.loads(raw)
    except RecursionError:
        raise _too_deep(max_depth, what) from None
    except (ValueError, UnicodeDecodeError) as error:
        raise bad_json(f"{what} is not valid JSON: {error}") from None
    problem = check_value(data, max_depth)
    if problem == _DEEP:
        raise _too_deep(max_depth, what)
    if problem == _NUL:
        raise bad_json(
            f"{what} is not valid here: a name or value holds a NUL character (\\u0000)."
        )
    return data


#: what `check_value` finds wrong
_DEEP, _NUL = 1, 2


def check_value(value: Any, limit: int) -> int:
    """0 when ``value`` (decoded JSON) is fit to handle, `_DEEP` when its containers nest
    more than ``limit`` deep, `_NUL` when a key or string in it holds a NUL. A walk with
    a stack of its own, so any depth can be measured; only containers are pushed, so it
    costs about what decoding took."""
    if type(value) is str:
        return _NUL if "\0" in value else 0
    if type(value) is not dict and type(value) is not list:
        return 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    pop, push = stack.pop, stack.append
    while stack:
        item, depth = pop()
        if depth > limit:
            return _DEEP
        if type(item) is dict:
            if any("\0" in key for key in item):
                return _NUL
            item = item.values()
        for entry in item:
            kind = type(entry)
            if kind is str:
                if "\0" in entry:
                    return _NUL
            elif kind is dict or kind is list:
                push((entry, depth + 1))
    return 0


def bad_json(message: str) -> ApiError:
    return ApiError(400, "HTTPBadRequest", message)


def _too_deep(limit: int, what: str) -> ApiError:
    return bad_json(f"{what} is not valid JSON: it nests more than {limit} levels deep.")
