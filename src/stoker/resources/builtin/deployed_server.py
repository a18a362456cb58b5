"""``OS::Heat::DeployedServer``: a server that exists already, outside the cloud's Nova.

TripleO's "deployed servers" mode represents each node with one: the node and its ports
were provisioned before the stack, so the resource only gives the node an identity (a
random UUID, its reference id, as Heat gives it) and a name. Heat also makes the
credentials the node's config agent polls with (a Keystone stack user, a Swift temp URL
or a Zaqar queue, by ``software_config_transport``); stoker has no Keystone, Swift or
Zaqar to make them in, so ``os_collect_config`` is empty, as it is for stoker's
``OS::Nova::Server`` (docs/heat-differences.md). Updates apply in place.
"""

from __future__ import annotations

from typing import Any

from stoker.resources.base import ResourceContext, ResourcePlugin, ResourceView, Traits
from stoker.resources.builtin.none_resource import uuid4_text
from stoker.resources.catalog import heat_catalog

_SCHEMA = heat_catalog().types["OS::Heat::DeployedServer"]


class DeployedServer(ResourcePlugin):
    """A pre-provisioned server: a UUID and a name, no cloud call."""

    type_name = "OS::Heat::DeployedServer"
    properties_schema = _SCHEMA.properties
    attributes_schema = _SCHEMA.attributes
    traits = Traits(external_effect=False)

    async def create(self, context: ResourceContext) -> None:
        identifier = uuid4_text()
        context.data["uuid"] = identifier
        context.data["name"] = context.properties.get("name") or context.physical_name
        context.physical_id = identifier

    def reference_id(self, view: ResourceView) -> str | None:
        return view.data.get("uuid") or view.physical_id or view.name

    def attribute(self, view: ResourceView, name: str) -> Any:
        if name == "name":
            return view.data.get("name")
        if name == "os_collect_config":
            return {}
        if name == "show":
            return {"id": view.physical_id, "name": view.data.get("name")}
        return None
