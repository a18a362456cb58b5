"""Neutron's security groups and their rules, as Heat makes them: the template's rules
replace Neutron's default egress ones unless it has no egress rule of its own."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stoker.cloud.rest import refused
from stoker.resources.base import ResourceContext, ResourceView
from stoker.resources.openstack.base import CloudResource, given
from stoker.resources.openstack.neutron import NeutronResource, security_group_ids


class SecurityGroup(NeutronResource):
    """Heat's security group: the template's rules replace Neutron's default egress ones
    (which come back, as Heat does, when the template has no egress rule)."""

    type_name = "OS::Neutron::SecurityGroup"
    kind, collection = "security_group", "security-groups"
    show_call = "network.get_security_group"

    def body(self, connection: Any, context: ResourceContext, name: str) -> dict[str, Any]:
        return {"name": name, "description": context.properties.get("description") or ""}

    def make(self, connection: Any, context: ResourceContext, name: str) -> dict[str, Any]:
        group = self.post(connection, self.body(connection, context, name))
        self.set_rules(connection, group, list(context.properties.get("rules") or []))
        return self.show(connection, str(group["id"]))

    def set_rules(self, connection: Any, group: Mapping[str, Any], rules: list[Any]) -> None:
        """Make the group's rules the template's (egress defaults kept if it has none)."""
        group_id = str(group["id"])
        existing = (
            connection.network.get(
                "/security-group-rules", params={"security_group_id": group_id}, raise_exc=False
            )
            .json()
            .get("security_group_rules", [])
        )
        wanted = [_rule_body(connection, group_id, rule) for rule in rules]
        wanted += default_egress(group_id, wanted)
        keep: list[dict[str, Any]] = []
        for rule in existing:
            match = next((w for w in wanted if _same_rule(w, rule) and w not in keep), None)
            if match is not None:
                keep.append(match)
                continue
            connection.network.delete(f"/security-group-rules/{rule['id']}", raise_exc=False)
        for rule in wanted:
            if rule in keep:
                continue
            response = connection.network.post(
                "/security-group-rules", json={"security_group_rule": rule}, raise_exc=False
            )
            if response.status_code >= 400:
                raise refused("network.create_security_group_rule", response)

    async def update(self, context: ResourceContext, previous: ResourceView) -> None:
        physical_id = context.physical_id
        assert physical_id is not None
        p = context.properties

        def apply(connection: Any) -> None:
            body = {"name": self.cloud_name(context), "description": p.get("description") or ""}
            self.put(connection, physical_id, body)
            if p.get("rules") != previous.properties.get("rules"):  # no aliases here
                self.set_rules(connection, {"id": physical_id}, list(p.get("rules") or []))

        await self.cloud.call("network.update_security_group", apply)
        await self.refresh(context)


_RULE_FIELDS = (
    "direction", "ethertype", "protocol", "port_range_min", "port_range_max",
    "remote_ip_prefix", "remote_group_id",
)  # fmt: skip


def _rule_body(connection: Any, group_id: str, rule: Mapping[str, Any]) -> dict[str, Any]:
    body: dict[str, Any] = {
        "security_group_id": group_id,
        "direction": rule.get("direction") or "ingress",
        "ethertype": rule.get("ethertype") or "IPv4",
    }
    body.update(given(rule, "protocol", "port_range_min", "port_range_max", "description"))
    remote_mode = rule.get("remote_mode") or "remote_ip_prefix"
    if remote_mode == "remote_group_id":
        remote = rule.get("remote_group_id")
        body["remote_group_id"] = (
            security_group_ids(connection, [str(remote)])[0] if remote else group_id
        )
    elif rule.get("remote_ip_prefix"):
        body["remote_ip_prefix"] = rule["remote_ip_prefix"]
    if body.get("protocol") is not None:
        body["protocol"] = str(body["protocol"])
    return body


def default_egress(group_id: str, wanted: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Neutron's default egress rules, which Heat keeps for a group whose rules
    (``wanted``, as `_rule_body` makes them) have no egress rule of their own."""
    if any(rule["direction"] == "egress" for rule in wanted):
        return []
    return [
        {"security_group_id": group_id, "direction": "egress", "ethertype": ethertype}
        for ethertype in ("IPv4", "IPv6")
    ]


def _same_rule(wanted: Mapping[str, Any], rule: Mapping[str, Any]) -> bool:
    def norm(value: Any) -> Any:
        return None if value in ("", None) else str(value)

    return all(norm(wanted.get(k)) == norm(rule.get(k)) for k in _RULE_FIELDS)


class SecurityGroupRule(NeutronResource):
    type_name = "OS::Neutron::SecurityGroupRule"
    kind, collection = "security_group_rule", "security-group-rules"
    show_call = "network.get_security_group_rule"
    name_property = None
    mark_attribute = "description"

    def body(self, connection: Any, context: ResourceContext, name: str) -> dict[str, Any]:
        p = dict(context.properties)
        group = security_group_ids(connection, [str(p["security_group"])])[0]
        rule = dict(p)
        if p.get("remote_group"):
            rule["remote_mode"] = "remote_group_id"
            rule["remote_group_id"] = p["remote_group"]
        return self.marked(context, _rule_body(connection, group, rule), name)


TYPES: tuple[type[CloudResource], ...] = (SecurityGroup, SecurityGroupRule)
