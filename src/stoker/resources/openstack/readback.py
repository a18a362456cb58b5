"""Reading a stack's resources back from the cloud for a drift, as few calls as it takes.

A hundred servers read one at a time is two hundred GETs (the server, its ports). As
the create does (`server_listings`), the servers are read together: the project's
servers in detail in one listing, and the ports of all of them in another; a server the
listing leaves out (a listing cut into pages, or one gone) is then shown by itself. Every
other resource is shown by its type's own ``show`` on the cloud's threads, all at once.
Each resource's comparison (`drift.COMPARERS`) runs on the cloud's threads too: it may
look up an id by name, which openstacksdk does synchronously (and remembers).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from typing import Any

from stoker.cloud.connection import NotFoundError
from stoker.cloud.rest import request
from stoker.errors import CloudError
from stoker.resources.base import ResourceView
from stoker.resources.openstack.base import CloudResource
from stoker.resources.openstack.drift import COMPARERS, Pairs
from stoker.resources.openstack.server_listings import ports_of_devices

SERVER = "OS::Nova::Server"
#: statuses of a server Nova is done with (shown a while before it is gone)
_GONE_STATUSES = frozenset({"DELETED", "SOFT_DELETED"})


class Gone:
    """The cloud no longer has the resource."""


GONE = Gone()
#: a resource's read: its compared properties, None (its type is not compared), `Gone`,
#: or the `CloudError` that kept it from being read
Outcome = Pairs | None | Gone | CloudError


async def read(items: list[tuple[CloudResource, ResourceView]]) -> list[Outcome]:
    """The outcome of each ``(plugin, record)``, in order."""
    servers: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
    by_cloud: dict[int, tuple[CloudResource, list[str]]] = {}
    for plugin, record in items:
        if plugin.type_name == SERVER and record.physical_id:
            by_cloud.setdefault(id(plugin.cloud), (plugin, []))[1].append(record.physical_id)
    for plugin, ids in by_cloud.values():
        # a listing refused: each server is then shown by itself, and fails alone
        with contextlib.suppress(CloudError):
            servers.update(await _servers(plugin, ids))
    return list(await asyncio.gather(*(_one(p, r, servers) for p, r in items)))


async def _servers(
    plugin: CloudResource, ids: list[str]
) -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    """The servers of ``ids`` the project's detail listing shows, each with its ports."""

    def listing(connection: Any) -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
        body = request(connection, "compute", "GET", "/servers/detail", "compute.list_servers")
        wanted = set(ids)
        shown = {
            str(s["id"]): dict(s) for s in (body or {}).get("servers") or [] if s["id"] in wanted
        }
        ports = ports_of_devices(connection, sorted(shown)) if shown else {}
        return {sid: (s, {"ports": ports.get(sid, [])}) for sid, s in shown.items()}

    return await plugin.cloud.call("compute.list_servers", listing)


async def _one(
    plugin: CloudResource,
    record: ResourceView,
    servers: Mapping[str, tuple[dict[str, Any], dict[str, Any]]],
) -> Outcome:
    physical_id = str(record.physical_id)
    comparer = COMPARERS.get(plugin.type_name)
    try:
        if physical_id in servers:
            shown, extra = servers[physical_id]
        else:
            shown = await plugin.cloud.call(
                plugin.show_call, lambda c: plugin.show_for(c, physical_id, record.data)
            )
            extra = {}
            if plugin.type_name == SERVER:
                extra = {
                    "ports": (
                        await plugin.cloud.call(
                            "network.list_ports", lambda c: ports_of_devices(c, [physical_id])
                        )
                    )[physical_id]
                }
        if str(shown.get("status") or "").upper() in _GONE_STATUSES:
            return GONE
        if comparer is None:
            return None
        properties = plugin.normalize(record.properties)
        return await plugin.cloud.call(
            f"{plugin.show_call} (drift)", lambda c: comparer(c, shown, properties, extra)
        )
    except NotFoundError:
        return GONE
    except CloudError as error:
        return error
