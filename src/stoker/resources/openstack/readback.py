"""Reading a stack's resources back from the cloud for a drift, as few calls as it takes.

A hundred servers read one at a time is two hundred GETs (the server, its ports), and
their hundred ports a hundred more. As the create does (`server_listings`, `bulk`), they
are read together: the project's servers in detail in one listing and the ports of all
of them in another; the resources of each Neutron type in one listing filtered by their
ids. A resource a listing leaves out (a listing cut into pages, or one gone) is then
shown by itself, as is every other resource (its type's own ``show`` on the cloud's
threads, all at once).
Each resource's comparison (`drift.COMPARERS`) runs on the cloud's threads too: it may
look up an id by name, which openstacksdk does synchronously (and remembers).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from stoker.cloud.connection import NotFoundError
from stoker.cloud.rest import request
from stoker.errors import CloudError
from stoker.resources.base import ResourceView
from stoker.resources.openstack.base import CloudResource
from stoker.resources.openstack.drift import COMPARERS, Pairs
from stoker.resources.openstack.neutron import NeutronResource
from stoker.resources.openstack.server_listings import list_servers, ports_of_devices

SERVER = "OS::Nova::Server"
#: the most ids one listing is filtered by (the length of its URL)
CHUNK = 100
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
    listed: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
    groups: dict[tuple[int, str], tuple[CloudResource, list[str]]] = {}
    for plugin, record in items:
        if record.physical_id and (plugin.type_name == SERVER or _listable(plugin)):
            key = (id(plugin.cloud), plugin.type_name)
            groups.setdefault(key, (plugin, []))[1].append(record.physical_id)
    batches = [
        _servers(plugin, ids) if plugin.type_name == SERVER else _neutron(plugin, ids)
        for plugin, ids in groups.values()
    ]
    for answer in await asyncio.gather(*batches, return_exceptions=True):
        # a listing refused: each of its resources is then shown by itself, failing alone
        if isinstance(answer, dict):
            listed.update(answer)
        elif not isinstance(answer, CloudError):
            raise answer
    return list(await asyncio.gather(*(_one(p, r, listed) for p, r in items)))


def _listable(plugin: CloudResource) -> bool:
    """A Neutron type shown by the common ``show`` (so its listing shows it the same)."""
    return isinstance(plugin, NeutronResource) and type(plugin).show is NeutronResource.show


async def _neutron(
    plugin: CloudResource, ids: list[str]
) -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    """The resources of ``ids`` (one Neutron type) in listings filtered by id: one call
    for up to `CHUNK` of them (Neutron takes the ``id`` filter repeated)."""
    assert isinstance(plugin, NeutronResource)
    collection, plural = plugin.collection, plugin.collection.replace("-", "_")

    def listing(connection: Any) -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
        found: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
        for start in range(0, len(ids), CHUNK):
            chunk = ids[start : start + CHUNK]
            what = f"network.list_{plural}"
            body = request(
                connection, "network", "GET", f"/{collection}", what, params={"id": chunk}
            )
            for item in (body or {}).get(plural) or []:
                found[str(item["id"])] = (dict(item), {})
        return found

    return await plugin.cloud.call(f"network.list_{plural}", listing)


async def _servers(
    plugin: CloudResource, ids: list[str]
) -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    """The servers of ``ids`` the project's detail listing shows, each with its ports."""

    def listing(connection: Any) -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
        body = list_servers(connection, "/servers/detail")
        wanted = set(ids)
        shown = {str(s["id"]): dict(s) for s in body.get("servers") or [] if s["id"] in wanted}
        ports = ports_of_devices(connection, sorted(shown)) if shown else {}
        return {sid: (s, {"ports": ports.get(sid, [])}) for sid, s in shown.items()}

    return await plugin.cloud.call("compute.list_servers", listing)


async def _one(
    plugin: CloudResource,
    record: ResourceView,
    listed: Mapping[str, tuple[dict[str, Any], dict[str, Any]]],
) -> Outcome:
    physical_id = str(record.physical_id)
    comparer = COMPARERS.get(plugin.type_name)
    try:
        if physical_id in listed:
            shown, extra = listed[physical_id]
        else:
            shown = await plugin.read(physical_id, record.data)
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
