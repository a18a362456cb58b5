"""The reads that answer for many servers at once, each a single listing.

A hundred servers being made, or deleted, are each polled and read; asked one at a time
that is a hundred GETs a round. These listings answer a whole batch of them (`Coalescer`
gathers the batch): the project's servers in BUILD, its servers in detail by name, its
servers' ids, the ports of many devices."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from stoker.cloud.rest import request


def list_servers(
    connection: Any, path: str, params: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Nova's listing of the project's servers at ``path`` (``/servers``, or
    ``/servers/detail``) filtered by ``params``: the answer's body."""
    return request(connection, "compute", "GET", path, "compute.list_servers", params=params) or {}


def in_build(connection: Any, servers: list[str]) -> dict[str, bool]:
    """Which of ``servers`` the project's listing of servers in BUILD holds (one call
    whatever their number; the listing's ids only, not each server's detail)."""
    body = list_servers(connection, "/servers", {"status": "BUILD"})
    listed = {str(s.get("id")) for s in body.get("servers") or []}
    return {server: True for server in servers if server in listed}


def detail_by_name(
    connection: Any, servers: list[tuple[str, str]]
) -> dict[tuple[str, str], dict[str, Any]]:
    """Each of ``servers`` (id, name) as the project's detail listing shows it: one call
    whatever their number, filtered by their names (Nova's ``name`` is a regular
    expression: anchored, escaped, exact); a server the listing leaves out is not
    answered (another of the same name may be listed: each is matched by its id)."""
    names = sorted({name for _, name in servers})
    pattern = "^(" + "|".join(re.escape(name) for name in names) + ")$"
    body = list_servers(connection, "/servers/detail", {"name": pattern})
    listed = {str(s.get("id")): s for s in body.get("servers") or []}
    return {key: dict(listed[key[0]]) for key in servers if key[0] in listed}


def listed(connection: Any, servers: list[str]) -> dict[str, bool]:
    """Which of ``servers`` the project's listing holds (False: not listed, and the
    listing is whole; a listing cut into pages answers only for the servers it shows)."""
    body = list_servers(connection, "/servers")
    listed = {str(s.get("id")) for s in body.get("servers") or []}
    whole = not any(link.get("rel") == "next" for link in body.get("servers_links") or [])
    return {server: server in listed for server in servers if server in listed or whole}


def ports_of_devices(connection: Any, servers: list[str]) -> dict[str, list[dict[str, Any]]]:
    """Neutron's ports of each of ``servers`` (one listing, the ids as repeated filters)."""
    body = request(
        connection,
        "network",
        "GET",
        "/ports",
        "network.list_ports",
        params={"device_id": servers},
    )
    found: dict[str, list[dict[str, Any]]] = {server: [] for server in servers}
    for port in (body or {}).get("ports") or []:
        if port.get("device_id") in found:
            found[str(port["device_id"])].append(port)
    return found
