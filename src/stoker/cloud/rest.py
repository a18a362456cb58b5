"""Requests through openstacksdk's service adapters (auth, endpoints and microversions
are the SDK's), with the cloud's refusals turned into `CloudError`s that quote it."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Mapping
from typing import Any

from stoker.cloud.connection import NotFoundError
from stoker.errors import CloudError


def send(
    connection: Any,
    service: str,
    method: str,
    path: str,
    body: Any = None,
    params: Mapping[str, Any] | None = None,
    headers: Mapping[str, str] | None = None,
) -> Any:
    """``method path`` on ``service`` (``body`` sent as JSON): the response, whatever its
    status (``status_code``, ``json()``, ``content``, ``text``, ``headers``)."""
    adapter = getattr(connection, service)
    given = {"json": body, "params": params, "headers": headers}
    kwargs = {key: value for key, value in given.items() if value is not None}
    return adapter.request(path, method, raise_exc=False, **kwargs)


def request(
    connection: Any,
    service: str,
    method: str,
    path: str,
    what: str,
    body: Any = None,
    params: Mapping[str, Any] | None = None,
    headers: Mapping[str, str] | None = None,
) -> Any:
    """``method path`` on ``service``; the answer's JSON (None when it has none)."""
    response = send(connection, service, method, path, body, params, headers)
    if response.status_code == 404:
        raise NotFoundError(f"{what} failed (HTTP 404): {message(response)}", 404)
    if response.status_code >= 400:
        raise refused(what, response)
    if not response.content:
        return None
    try:
        return response.json()
    except ValueError:
        return None


def refused(what: str, response: Any) -> CloudError:
    """The cloud's refusal of ``what`` (an answer of 400 or more), quoting its message."""
    return CloudError(
        f"{what} failed (HTTP {response.status_code}): {message(response)}",
        response.status_code,
    )


def message(response: Any) -> str:
    """The error body's message, whatever the service's shape of it (Nova's
    ``{"badRequest": {"message": ...}}``, Neutron's ``NeutronError``, Keystone's
    ``error``), else the start of the text."""
    try:
        body = response.json()
    except ValueError:
        return str(response.text)[:300]
    if isinstance(body, dict):
        for value in body.values():
            if isinstance(value, dict) and value.get("message"):
                return str(value["message"])
        if body.get("message"):
            return str(body["message"])
        if body.get("faultstring"):  # Octavia's (WSME's) error body
            return str(body["faultstring"])
    return str(body)[:300]


_IDS: weakref.WeakKeyDictionary[Any, dict[tuple[str, str], str]] = weakref.WeakKeyDictionary()
_LOCKS: dict[tuple[str, str], threading.Lock] = {}
_IDS_LOCK = threading.Lock()


def find_id(connection: Any, service: str, kind: str, name_or_id: str) -> str:
    """The id of the ``kind`` (``flavor``, ``network``...) named or identified by
    ``name_or_id``, through the SDK's ``find_<kind>`` (ids first, then unique names, as
    Heat resolves them), remembered for the connection's life: a hundred servers of one
    flavor ask once (the others wait for that answer), not a hundred times."""
    key = (kind, name_or_id)
    with _IDS_LOCK:
        lock = _LOCKS.setdefault(key, threading.Lock())
    with lock:
        with _IDS_LOCK:
            known = _IDS.setdefault(connection, {}).get(key)
        if known is not None:
            return known
        finder = getattr(getattr(connection, service), f"find_{kind}")
        found = str(finder(name_or_id, ignore_missing=False).id)
        remember(connection, kind, name_or_id, found)
        return found


def seen(connection: Any, kind: str, name_or_id: str) -> bool:
    """Whether this process has already seen the cloud answer for ``name_or_id`` (an id
    it made, or a lookup or listing that found it)."""
    with _IDS_LOCK:
        return (kind, name_or_id) in _IDS.get(connection, {})


def remember(connection: Any, kind: str, name_or_id: str, found: str) -> None:
    """Note an id stoker already knows (one it just made is its own id)."""
    with _IDS_LOCK:
        _IDS.setdefault(connection, {})[(kind, name_or_id)] = found


def forget(connection: Any, kind: str, physical_id: str) -> None:
    """Drop what was noted for an id stoker deleted (and names that led to it): it is no
    longer the cloud's answer for them."""
    with _IDS_LOCK:
        ids = _IDS.get(connection, {})
        for key in [k for k, v in ids.items() if k[0] == kind and v == physical_id]:
            del ids[key]
