"""Neutron's types: networks, subnets, ports, routers and their interfaces, security
groups and rules, floating IPs. Names given for networks, subnets, security groups and
routers are resolved to ids as Heat resolves them (by id or unique name)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from stoker.cloud.connection import NotFoundError
from stoker.cloud.rest import find_id, forget, refused, remember, send
from stoker.resources.base import ResourceContext, ResourceView
from stoker.resources.openstack import bulk
from stoker.resources.openstack.base import (
    CloudResource,
    given,
    raw_show,
)


def network_id(connection: Any, name_or_id: str) -> str:
    return find_id(connection, "network", "network", name_or_id)


def subnet_id(connection: Any, name_or_id: str) -> str:
    return find_id(connection, "network", "subnet", name_or_id)


def security_group_ids(connection: Any, names: list[str]) -> list[str]:
    return [find_id(connection, "network", "security_group", name) for name in names]


def value_specs(properties: Mapping[str, Any]) -> dict[str, Any]:
    return dict(properties.get("value_specs") or {})


class NeutronResource(CloudResource):
    """A Neutron resource at ``/v2.0/<collection>/<id>`` under key ``<kind>``."""

    kind: ClassVar[str]
    collection: ClassVar[str]

    def show(self, connection: Any, physical_id: str) -> dict[str, Any]:
        return raw_show(connection, "network", f"/{self.collection}/{physical_id}", self.kind)

    def post(self, connection: Any, body: dict[str, Any]) -> dict[str, Any]:
        """Create through the SDK's adapter with Heat's own body (value_specs merged in as
        Heat merges them, so any field the API takes passes through)."""
        response = send(connection, "network", "POST", f"/{self.collection}", {self.kind: body})
        made = self._answer(response, f"network.create_{self.kind}")
        remember(connection, self.kind, str(made["id"]), str(made["id"]))
        return made

    def put(self, connection: Any, physical_id: str, body: dict[str, Any]) -> dict[str, Any]:
        response = send(
            connection, "network", "PUT", f"/{self.collection}/{physical_id}", {self.kind: body}
        )
        return self._answer(response, f"network.update_{self.kind}")

    def _answer(self, response: Any, what: str) -> dict[str, Any]:
        if response.status_code >= 400:
            raise refused(what, response)
        return dict(response.json()[self.kind])

    def drop(self, connection: Any, physical_id: str, data: Mapping[str, Any]) -> None:
        response = send(connection, "network", "DELETE", f"/{self.collection}/{physical_id}")
        if response.status_code < 400 or response.status_code == 404:
            forget(connection, self.kind, physical_id)
        if response.status_code == 404:
            raise NotFoundError(f"network.delete_{self.kind}: not found", 404)
        if response.status_code >= 400:
            raise refused(f"network.delete_{self.kind}", response)

    def find(self, connection: Any, name: str) -> str | None:
        attribute = "name" if self.name_property is not None else self.mark_attribute
        assert attribute is not None
        response = send(
            connection, "network", "GET", f"/{self.collection}", params={attribute: name}
        )
        if response.status_code >= 400:
            return None
        listed = response.json().get(self.collection.replace("-", "_")) or []
        found = [item for item in listed if item.get(attribute) == name]
        return str(found[0]["id"]) if found else None

    def marked(self, context: ResourceContext, body: dict[str, Any], name: str) -> dict[str, Any]:
        """The create body with stoker's mark (the physical name), unless the template
        gave the marked attribute a value of its own."""
        if self.mark_attribute is not None and self.template_mark(context) is None:
            body[self.mark_attribute] = name
        return body

    def body(self, connection: Any, context: ResourceContext, name: str) -> dict[str, Any]:
        raise NotImplementedError

    def create_body(self, connection: Any, context: ResourceContext, name: str) -> dict[str, Any]:
        """The create's body: the type's, with value_specs merged in as Heat merges them."""
        body = self.body(connection, context, name)
        body.update(value_specs(context.properties))
        return body

    def make(self, connection: Any, context: ResourceContext, name: str) -> dict[str, Any]:
        return self.post(connection, self.create_body(connection, context, name))

    def update_body(
        self, connection: Any, context: ResourceContext, previous: Mapping[str, Any]
    ) -> dict[str, Any]:
        """The fields an in-place update changes (update_allowed properties only)."""
        changed = {
            key: value for key, value in context.properties.items() if previous.get(key) != value
        }
        return self.translate(connection, context, changed)

    def translate(
        self, connection: Any, context: ResourceContext, changed: dict[str, Any]
    ) -> dict[str, Any]:
        """The changed properties as the API's fields: value_specs merged in; a name
        removed is stoker's physical name again."""
        body = {k: v for k, v in changed.items() if k != "value_specs"}
        body.update(value_specs(changed))
        if "name" in body and body["name"] is None:
            body["name"] = context.physical_name
        return body

    async def update(self, context: ResourceContext, previous: ResourceView) -> None:
        physical_id, _, old = self.updating(context, previous)

        def apply(connection: Any) -> dict[str, Any]:
            body = self.update_body(connection, context, old)
            if not body:
                return self.show(connection, physical_id)
            return self.put(connection, physical_id, body)

        await self.cloud.call(f"network.update_{self.kind}", apply)
        await self.refresh(context)


class Net(NeutronResource):
    type_name = "OS::Neutron::Net"
    kind, collection = "network", "networks"
    live_attributes = frozenset({"subnets", "status"})
    show_call = "network.get_network"

    def body(self, connection: Any, context: ResourceContext, name: str) -> dict[str, Any]:
        p = context.properties
        body = {"name": name, **given(p, "admin_state_up", "shared", "port_security_enabled")}
        body.update(given(p, "dns_domain", "availability_zone_hints", "tags"))
        if p.get("tenant_id"):
            body["tenant_id"] = p["tenant_id"]
        if p.get("qos_policy"):
            body["qos_policy_id"] = p["qos_policy"]
        return body

    def translate(
        self, connection: Any, context: ResourceContext, changed: dict[str, Any]
    ) -> dict[str, Any]:
        body = super().translate(connection, context, changed)
        body.pop("dhcp_agent_ids", None)
        if "qos_policy" in body:
            body["qos_policy_id"] = body.pop("qos_policy")
        return body

    def attribute_of(self, shown: Mapping[str, Any], name: str) -> Any:
        if name == "segments":
            return shown.get("segments", [])
        return shown.get(name)


class _MadeInBulk(NeutronResource):
    """A type Neutron makes many of in one call: subnets and ports asked for together
    are made in one bulk call (`bulk`)."""

    async def ask_create(self, context: ResourceContext, name: str) -> dict[str, Any]:
        return await bulk.create(self, context, name)


class Subnet(_MadeInBulk):
    type_name = "OS::Neutron::Subnet"
    aliases = {"network_id": "network"}
    kind, collection = "subnet", "subnets"
    show_call = "network.get_subnet"

    def body(self, connection: Any, context: ResourceContext, name: str) -> dict[str, Any]:
        p = context.properties
        body: dict[str, Any] = {
            "name": name,
            "network_id": network_id(connection, str(p["network"])),
            "ip_version": int(p.get("ip_version") or 4),
        }
        body.update(given(p, "cidr", "allocation_pools", "dns_nameservers", "enable_dhcp"))
        body.update(given(p, "host_routes", "ipv6_address_mode", "ipv6_ra_mode", "prefixlen"))
        body.update(given(p, "tenant_id", "tags"))
        if "gateway_ip" in p:
            gateway = p["gateway_ip"]
            # Heat: "~" or "" means no gateway, absent means Neutron's default
            if gateway in ("", "~"):
                body["gateway_ip"] = None
            elif gateway is not None:
                body["gateway_ip"] = gateway
        if p.get("subnetpool"):
            response = connection.network.find_subnet_pool(p["subnetpool"], ignore_missing=False)
            body["subnetpool_id"] = response.id
        if p.get("segment"):
            body["segment_id"] = p["segment"]
        return body

    def translate(
        self, connection: Any, context: ResourceContext, changed: dict[str, Any]
    ) -> dict[str, Any]:
        body = super().translate(connection, context, changed)
        if body.get("gateway_ip") in ("", "~"):
            body["gateway_ip"] = None
        if "segment" in body:
            body["segment_id"] = body.pop("segment")
        return body


class Port(_MadeInBulk):
    type_name = "OS::Neutron::Port"
    aliases = {"network_id": "network"}
    kind, collection = "port", "ports"
    show_call = "network.get_port"

    def body(self, connection: Any, context: ResourceContext, name: str) -> dict[str, Any]:
        p = context.properties
        body: dict[str, Any] = {
            "name": name,
            "network_id": network_id(connection, str(p["network"])),
        }
        body.update(self.translate(connection, context, dict(p)))
        body.pop("network", None)
        body.pop("name", None)
        body["name"] = name
        return body

    def translate(
        self, connection: Any, context: ResourceContext, changed: dict[str, Any]
    ) -> dict[str, Any]:
        body: dict[str, Any] = {}
        for key, value in changed.items():
            if key in ("network", "value_specs", "no_fixed_ips", "replacement_policy"):
                continue
            if key == "fixed_ips":
                if value is not None:
                    body["fixed_ips"] = [_fixed_ip(connection, item) for item in value]
            elif key == "security_groups":
                if value is not None:
                    body["security_groups"] = security_group_ids(connection, list(value))
            elif key == "qos_policy":
                body["qos_policy_id"] = value
            elif key == "allowed_address_pairs":
                if value is not None:
                    body[key] = [{k: v for k, v in pair.items() if v is not None} for pair in value]
            elif key == "name":
                body["name"] = value if value is not None else context.physical_name
            elif value is not None:
                body[key] = value
        if changed.get("no_fixed_ips"):
            body["fixed_ips"] = []
        body.update(value_specs(changed))
        return body

    def attribute_of(self, shown: Mapping[str, Any], name: str) -> Any:
        if name in ("network", "subnets"):
            return None  # Heat shows them only through show
        return shown.get(name)


def _fixed_ip(connection: Any, item: Mapping[str, Any]) -> dict[str, Any]:
    entry: dict[str, Any] = {}
    subnet = item.get("subnet") or item.get("subnet_id")
    if subnet:
        entry["subnet_id"] = subnet_id(connection, str(subnet))
    if item.get("ip_address"):
        entry["ip_address"] = item["ip_address"]
    return entry


class Router(NeutronResource):
    type_name = "OS::Neutron::Router"
    kind, collection = "router", "routers"
    show_call = "network.get_router"

    def body(self, connection: Any, context: ResourceContext, name: str) -> dict[str, Any]:
        p = context.properties
        body: dict[str, Any] = {"name": name, **given(p, "admin_state_up", "tenant_id", "tags")}
        body.update(given(p, "distributed", "ha", "availability_zone_hints"))
        gateway = self.gateway(connection, p.get("external_gateway_info"))
        if gateway:
            body["external_gateway_info"] = gateway
        return body

    @staticmethod
    def gateway(connection: Any, info: Mapping[str, Any] | None) -> dict[str, Any] | None:
        if not info:
            return None
        gateway: dict[str, Any] = {"network_id": network_id(connection, str(info["network"]))}
        if info.get("enable_snat") is not None:
            gateway["enable_snat"] = info["enable_snat"]
        fixed = info.get("external_fixed_ips")
        if fixed:
            gateway["external_fixed_ips"] = [_fixed_ip(connection, item) for item in fixed]
        return gateway

    def translate(
        self, connection: Any, context: ResourceContext, changed: dict[str, Any]
    ) -> dict[str, Any]:
        body = super().translate(connection, context, changed)
        body.pop("l3_agent_ids", None)
        if "external_gateway_info" in body:
            body["external_gateway_info"] = (
                self.gateway(connection, body["external_gateway_info"]) or {}
            )
        return body

    def drop(self, connection: Any, physical_id: str, data: Mapping[str, Any]) -> None:
        # Heat clears the gateway first (a router with a gateway port may refuse deletion)
        connection.network.put(
            f"/routers/{physical_id}",
            json={"router": {"external_gateway_info": {}}},
            raise_exc=False,
        )
        super().drop(connection, physical_id, data)


class RouterInterface(CloudResource):
    """A router's interface on a subnet or a port; Heat's id ``<router>:subnet_id=<id>``
    (or ``port_id=``)."""

    type_name = "OS::Neutron::RouterInterface"
    aliases = {"router_id": "router", "subnet_id": "subnet", "port_id": "port"}
    show_call = "network.get_router"
    name_property = None

    def validate(self, properties: Mapping[str, Any]) -> list[str]:
        problems = super().validate(properties)
        properties = self.normalize(properties)
        if bool(properties.get("subnet")) == bool(properties.get("port")):
            problems.append("Exactly one of subnet or port must be given for a router interface.")
        return problems

    def calls(self) -> tuple[str, str]:
        return ("network.add_interface_to_router", "network.remove_interface_from_router")

    def make(self, connection: Any, context: ResourceContext, name: str) -> dict[str, Any]:
        p = context.properties
        router = find_id(connection, "network", "router", str(p["router"]))
        if p.get("subnet"):
            kind, value = "subnet", subnet_id(connection, str(p["subnet"]))
        else:
            kind, value = "port", find_id(connection, "network", "port", str(p["port"]))
        physical_id = f"{router}:{kind}_id={value}"
        if not self.exists(connection, physical_id):  # else: made before a crash
            connection.network.add_interface_to_router(router, **{kind: value})
        return {"id": physical_id}

    def show(self, connection: Any, physical_id: str) -> dict[str, Any]:
        router, _, what = physical_id.partition(":")
        key, _, value = what.partition("=")
        ports = (
            connection.network.get("/ports", params={"device_id": router}, raise_exc=False)
            .json()
            .get("ports", [])
        )
        for port in ports:
            if key == "port_id" and port["id"] == value:
                return dict(port)
            if key == "subnet_id" and any(f.get("subnet_id") == value for f in port["fixed_ips"]):
                return dict(port)
        raise NotFoundError(f"router {router} has no interface {what}", 404)

    def drop(self, connection: Any, physical_id: str, data: Mapping[str, Any]) -> None:
        router, _, what = physical_id.partition(":")
        key, _, value = what.partition("=")
        kind = "subnet" if key == "subnet_id" else "port"
        try:
            connection.network.remove_interface_from_router(router, **{kind: value})
        except Exception as error:  # the SDK's NotFound, or a router already gone
            if getattr(error, "status_code", None) == 404:
                raise NotFoundError(str(error), 404) from None
            raise


class FloatingIP(NeutronResource):
    type_name = "OS::Neutron::FloatingIP"
    aliases = {"floating_network_id": "floating_network"}
    kind, collection = "floatingip", "floatingips"
    show_call = "network.get_floatingip"
    name_property = None
    mark_attribute = "description"

    def body(self, connection: Any, context: ResourceContext, name: str) -> dict[str, Any]:
        p = context.properties
        body: dict[str, Any] = self.marked(
            context,
            {"floating_network_id": network_id(connection, str(p["floating_network"]))},
            name,
        )
        body.update(given(p, "port_id", "fixed_ip_address", "floating_ip_address"))
        body.update(given(p, "dns_name", "dns_domain"))
        if p.get("floating_subnet"):
            body["subnet_id"] = subnet_id(connection, str(p["floating_subnet"]))
        return body

    def translate(
        self, connection: Any, context: ResourceContext, changed: dict[str, Any]
    ) -> dict[str, Any]:
        body = {k: v for k, v in changed.items() if k in ("port_id", "fixed_ip_address")}
        if "port_id" in changed and changed.get("port_id") is None:
            body = {"port_id": None}
        return body


class FloatingIPAssociation(CloudResource):
    """A floating IP's port: Heat's id is ``<floatingip>:<port>`` here (Heat makes up one)."""

    type_name = "OS::Neutron::FloatingIPAssociation"
    show_call = "network.get_floatingip"
    name_property = None

    def calls(self) -> tuple[str, str]:
        return ("network.update_floatingip", "network.update_floatingip")

    def make(self, connection: Any, context: ResourceContext, name: str) -> dict[str, Any]:
        p = context.properties
        fip, port = str(p["floatingip_id"]), str(p["port_id"])
        body = {"port_id": port, **given(p, "fixed_ip_address")}
        response = connection.network.put(
            f"/floatingips/{fip}", json={"floatingip": body}, raise_exc=False
        )
        if response.status_code >= 400:
            raise refused("network.update_floatingip", response)
        return {"id": f"{fip}:{port}", **response.json()["floatingip"]}

    def show(self, connection: Any, physical_id: str) -> dict[str, Any]:
        fip, _, port = physical_id.partition(":")
        shown = raw_show(connection, "network", f"/floatingips/{fip}", "floatingip")
        if shown.get("port_id") != port:
            raise NotFoundError(f"floating IP {fip} is not on port {port}", 404)
        return shown

    def drop(self, connection: Any, physical_id: str, data: Mapping[str, Any]) -> None:
        fip, _, port = physical_id.partition(":")
        shown = raw_show(connection, "network", f"/floatingips/{fip}", "floatingip")
        if shown.get("port_id") != port:
            raise NotFoundError("already dissociated", 404)
        connection.network.put(
            f"/floatingips/{fip}", json={"floatingip": {"port_id": None}}, raise_exc=False
        )

    async def update(self, context: ResourceContext, previous: ResourceView) -> None:
        await self.delete(context)
        context.physical_id = None
        await self.create(context)


TYPES: tuple[type[CloudResource], ...] = (
    Net, Subnet, Port, Router, RouterInterface, FloatingIP, FloatingIPAssociation,
)  # fmt: skip
