"""Heat's custom constraints that ask the cloud (``nova.flavor``, ``glance.image``, ...).

Each lists what exists once per process (names and ids) and accepts a value that is one
of them; an unknown value's message names the nearest existing names, so a typo in a
flavor is caught before anything is created.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from stoker.cloud import Cloud
from stoker.cloud.rest import remember, request, seen
from stoker.nearest import nearest
from stoker.parameters import CustomCheck, Shown

#: constraint -> (what Heat calls the thing, service, path, key of the list)
LISTINGS: dict[str, tuple[str, str, str, str]] = {
    "nova.flavor": ("Flavor", "compute", "/flavors", "flavors"),
    "nova.keypair": ("Key pair", "compute", "/os-keypairs", "keypairs"),
    "nova.server": ("Server", "compute", "/servers", "servers"),
    "glance.image": ("Image", "image", "/images", "images"),
    "neutron.network": ("Network", "network", "/networks", "networks"),
    "neutron.subnet": ("Subnet", "network", "/subnets", "subnets"),
    "neutron.port": ("Port", "network", "/ports", "ports"),
    "neutron.router": ("Router", "network", "/routers", "routers"),
    "neutron.security_group": ("Security group", "network", "/security-groups",
                               "security_groups"),
    "cinder.volume": ("Volume", "block_storage", "/volumes", "volumes"),
    "cinder.vtype": ("Volume type", "block_storage", "/types", "volume_types"),
    "cinder.snapshot": ("Snapshot", "block_storage", "/snapshots", "snapshots"),
    "octavia.loadbalancer": ("Load balancer", "load_balancer", "/lbaas/loadbalancers",
                             "loadbalancers"),
    "octavia.listener": ("Listener", "load_balancer", "/lbaas/listeners", "listeners"),
    "octavia.pool": ("Pool", "load_balancer", "/lbaas/pools", "pools"),
    "octavia.l7policy": ("L7 policy", "load_balancer", "/lbaas/l7policies", "l7policies"),
    "octavia.flavor": ("Octavia flavor", "load_balancer", "/lbaas/flavors", "flavors"),
    "octavia.availabilityzone": ("Octavia availability zone", "load_balancer",
                                 "/lbaas/availabilityzones", "availability_zones"),
    "designate.zone": ("Designate zone", "dns", "/zones", "zones"),
}  # fmt: skip

#: constraint -> the kind `stoker.cloud.rest.find_id` resolves (a listing made for a check
#: answers the lookups of that kind: a hundred servers' flavor is not looked up again)
LOOKUPS: dict[str, str] = {
    "nova.flavor": "flavor",
    "glance.image": "image",
    "neutron.network": "network",
    "neutron.subnet": "subnet",
    "neutron.port": "port",
    "neutron.router": "router",
    "neutron.security_group": "security_group",
}


class CloudNames:
    """What exists in the cloud, by constraint, listed on first need."""

    def __init__(self, cloud: Cloud) -> None:
        self.cloud = cloud
        self._lock = threading.Lock()
        #: by what the listing identity sees (`Cloud.view_key`: its project) and the constraint
        self._known: dict[tuple[str, str], tuple[set[str], list[str]]] = {}

    def known(self, constraint: str, *, fresh: bool = False) -> tuple[set[str], list[str]]:
        """The ids and names (ids and names accepted; names for suggestions); ``fresh``
        lists again (a stack's own network, made since the last listing)."""
        key = (self.cloud.view_key(), constraint)
        with self._lock:
            if fresh or key not in self._known:
                self._known[key] = self._list(constraint)
            return self._known[key]

    def _list(self, constraint: str) -> tuple[set[str], list[str]]:
        _, service, path, key = LISTINGS[constraint]

        def listing(connection: Any) -> list[dict[str, Any]]:
            params = {"limit": 1000} if service == "image" else None
            body = request(
                connection, service, "GET", path, f"{service}.list {path}", params=params
            )
            items = body.get(key) if isinstance(body, dict) else None
            if key == "keypairs" and isinstance(items, list):  # [{"keypair": {...}}]
                items = [item.get("keypair", item) for item in items]
            items = list(items or [])
            if constraint in LOOKUPS:
                _remember_all(connection, LOOKUPS[constraint], items)
            return items

        items = self.cloud.run(f"{service}.list {path}", listing)
        names = sorted({str(i["name"]) for i in items if i.get("name")})
        accepted = {str(i["id"]) for i in items if i.get("id")} | set(names)
        return accepted, names

    def zones(self) -> list[str]:
        """Nova's available zones (Fn::GetAZs), listed once."""
        key = (self.cloud.view_key(), "zones")
        with self._lock:
            if key not in self._known:

                def listing(connection: Any) -> list[dict[str, Any]]:
                    path = "/os-availability-zone"
                    body = request(connection, "compute", "GET", path, "compute.availability_zones")
                    return list((body or {}).get("availabilityZoneInfo") or [])

                found = self.cloud.run("compute.availability_zones", listing)
                names = [
                    str(z["zoneName"])
                    for z in found
                    if (z.get("zoneState") or {}).get("available", True)
                ]
                self._known[key] = (set(names), names)
            return list(self._known[key][1])

    def made(self, constraint: str, value: str) -> bool:
        """Whether ``value`` names what this process has made or found since the
        constraint's listing (a port the stack just created, given to its server by
        ``get_resource``): the cloud answered for it then, as the listing answers for
        what it lists, so it is not listed again. Without this, each resource made by
        the stack and checked by the next meant a listing of the whole kind, on the
        critical path of every such pair."""
        kind = LOOKUPS.get(constraint)
        return kind is not None and seen(self.cloud.connection(), kind, value)

    def check(self, constraint: str) -> CustomCheck:
        what = LISTINGS[constraint][0]

        def check(value: Any, shown: Shown) -> str | None:
            if self.made(constraint, str(value)):
                return None
            accepted, names = self.known(constraint)
            if str(value) in accepted:
                return None
            accepted, names = self.known(constraint, fresh=True)
            if str(value) in accepted:
                return None
            text = str(value).lower()
            containing = [n for n in names if text and text in n.lower()]
            similar = nearest(str(value), names, n=3, cutoff=0.5)
            closest = list(dict.fromkeys([*similar, *containing]))[:3]
            found = f"The {what} ({shown(value)}) could not be found"
            if closest:
                return f"{found}; the nearest names: {', '.join(closest)}"
            if names:
                listed = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
                return f"{found}; there are: {listed}"
            return f"{found}; the cloud has none"

        return check


def _remember_all(connection: Any, kind: str, items: list[dict[str, Any]]) -> None:
    """Note the ids of a listing for `find_id`: each id as itself, each name that only one
    item has as that item's id (a name two share stays a question for the cloud, which
    refuses it as the SDK's lookup would)."""
    ids = {str(i["id"]) for i in items if i.get("id")}
    by_name: dict[str, list[str]] = {}
    for item in items:
        if item.get("id") and item.get("name"):
            by_name.setdefault(str(item["name"]), []).append(str(item["id"]))
    for found in ids:
        remember(connection, kind, found, found)
    for name, named in by_name.items():
        if len(named) == 1 and name not in ids:
            remember(connection, kind, name, named[0])


def cloud_constraints(cloud: Cloud, names: CloudNames | None = None) -> dict[str, CustomCheck]:
    """The checks of every cloud constraint stoker can ask ``cloud`` about."""
    names = names or CloudNames(cloud)
    checks: dict[str, Callable[[Any, Shown], str | None]] = {
        constraint: names.check(constraint) for constraint in LISTINGS
    }
    return checks
