"""Designate's types: a zone, and a recordset in one.

Both are ready when Designate says ``ACTIVE`` (``ERROR`` fails them); a delete is
accepted with 202 and waits for the 404. A zone's name is unique in the whole cloud and a
recordset's name and type in its zone, so a create cut off by a crash finds what it made
by them. A recordset lives under its zone (``/zones/{zone}/recordsets/{id}``): the zone's
id is kept in the record before the create is asked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from stoker.cloud.rest import find_id, remember, request
from stoker.resources.base import ResourceContext, ResourceView
from stoker.resources.openstack.base import (
    ApiResource,
    CloudResource,
    first_id,
    given,
)

#: the key in a recordset's record of the zone it lives in
ZONE_ID = "zone_id"
ZONE_NAME = "zone_name"


class DesignateResource(ApiResource):
    service = "dns"
    ready_statuses: ClassVar[frozenset[str]] = frozenset({"ACTIVE"})

    def findable(self, context: ResourceContext) -> bool:
        return True  # see the module docstring

    #: only 429 and 503: Designate's 409 says the name is taken (by another), never "try
    #: again", so nothing is adopted for it
    create_retried = frozenset({429, 503})


class Zone(DesignateResource):
    type_name = "OS::Designate::Zone"
    show_call = "dns.get_zone"
    collection = "zones"
    aliases = {"masters": "primaries"}
    live_attributes = frozenset({"serial"})

    def make(self, connection: Any, context: ResourceContext, name: str) -> dict[str, Any]:
        p = context.properties
        body: dict[str, Any] = {"name": name, "type": p.get("type") or "PRIMARY"}
        body.update(given(p, "email", "ttl", "description", "attributes"))
        if p.get("primaries"):
            body["masters"] = list(p["primaries"])
        made = self.post(connection, body)
        remember(connection, "zone", str(made["id"]), str(made["id"]))
        return made

    def find_for(self, connection: Any, name: str, context: ResourceContext) -> str | None:
        return first_id(self.listing(connection, {}, {"name": name}))

    async def update(self, context: ResourceContext, previous: ResourceView) -> None:
        physical_id, new, old = self.updating(context, previous)
        body: dict[str, Any] = {}
        for prop in ("email", "ttl", "description"):
            if new.get(prop) != old.get(prop) and new.get(prop) is not None:
                body[prop] = new[prop]
        if new.get("primaries") != old.get("primaries"):
            body["masters"] = list(new.get("primaries") or [])
        if body:
            await self.ask_api("PATCH", f"/zones/{physical_id}", "dns.update_zone", body)
        await self.refresh(context)


class RecordSet(DesignateResource):
    type_name = "OS::Designate::RecordSet"
    show_call = "dns.get_recordset"
    collection = "recordsets"

    def base_path(self, data: Mapping[str, Any]) -> str:
        return f"/zones/{data.get(ZONE_ID)}/recordsets"

    async def create(self, context: ResourceContext) -> None:
        if ZONE_ID not in context.data:
            zone = str(context.properties["zone"])

            def resolve(connection: Any) -> tuple[str, str]:
                found = find_id(connection, "dns", "zone", zone)
                shown = request(connection, "dns", "GET", f"/zones/{found}", "dns.get_zone")
                return found, str(shown["name"])

            found, name = await self.cloud.call("dns.find_zone", resolve)
            context.data[ZONE_ID], context.data[ZONE_NAME] = found, name
        await super().create(context)

    def cloud_name(self, context: ResourceContext) -> str:
        """A name relative to the zone gets the zone's name (as designateclient does)."""
        name = super().cloud_name(context)
        zone = str(context.data.get(ZONE_NAME) or "")
        if name.endswith("."):
            return name
        return f"{name}.{zone}" if zone else name

    def make(self, connection: Any, context: ResourceContext, name: str) -> dict[str, Any]:
        p = context.properties
        body: dict[str, Any] = {"name": name, "type": p["type"], "records": list(p["records"])}
        body.update(given(p, "ttl", "description"))
        return self.post(connection, body, context.data)

    def find_for(self, connection: Any, name: str, context: ResourceContext) -> str | None:
        if ZONE_ID not in context.data:
            return None
        params = {"name": name, "type": context.properties["type"]}
        return first_id(self.listing(connection, context.data, params))

    async def update(self, context: ResourceContext, previous: ResourceView) -> None:
        physical_id, new, old = self.updating(context, previous)
        body: dict[str, Any] = {}
        if new.get("records") != old.get("records"):
            body["records"] = list(new["records"])
        if new.get("ttl") != old.get("ttl"):
            body["ttl"] = new.get("ttl")
        if new.get("description") != old.get("description"):
            body["description"] = new.get("description")
        path = f"{self.base_path(context.data)}/{physical_id}"
        if body:
            await self.ask_api("PUT", path, "dns.update_recordset", body)
        await self.refresh(context)


TYPES: tuple[type[CloudResource], ...] = (Zone, RecordSet)
