"""Security groups and their rules.

Every project has a group named ``default``, made the first time the project uses Neutron,
with Neutron's default rules: all egress, and ingress from members of the same group, for
IPv4 and IPv6 alike. A new group starts with the two egress rules. Rules are checked and
deduplicated as Neutron does it (``SecurityGroupRuleExists`` names the existing rule).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any

from stoker.sandbox.http import public
from stoker.sandbox.http_errors import BadRequest, Conflict
from stoker.sandbox.network.records import (
    Records,
    boolean,
    invalid,
    reject_read_only,
    require,
)
from stoker.sandbox.service import Hub
from stoker.sandbox.store import Document

#: protocol names Neutron accepts, with their IANA numbers
PROTOCOLS = {
    "ah": 51, "dccp": 33, "egp": 8, "esp": 50, "gre": 47, "hopopt": 0, "icmp": 1,
    "igmp": 2, "ipip": 4, "ipv6-encap": 41, "ipv6-frag": 44, "ipv6-icmp": 58, "icmpv6": 58,
    "ipv6-nonxt": 59, "ipv6-opts": 60, "ipv6-route": 43, "ospf": 89, "pgm": 113, "rsvp": 46,
    "sctp": 132, "tcp": 6, "udp": 17, "udplite": 136, "vrrp": 112,
}  # fmt: skip
#: protocols whose rules take port ranges
PORTED = {"tcp", "udp", "udplite", "sctp", "dccp", "6", "17", "136", "132", "33"}
ICMP = {"icmp", "icmpv6", "ipv6-icmp", "1", "58"}
#: what a rule is compared on when Neutron looks for a duplicate
IDENTITY = (
    "security_group_id",
    "direction",
    "ethertype",
    "protocol",
    "port_range_min",
    "port_range_max",
    "remote_ip_prefix",
    "remote_group_id",
    "remote_address_group_id",
)


class SecurityGroups:
    """``/v2.0/security-groups`` and ``/v2.0/security-group-rules``."""

    def __init__(self, hub: Hub) -> None:
        self.groups = Records(
            hub,
            "security_group",
            "Security group",
            missing=lambda id: f"Security group {id} does not exist",
        )
        self.rules = Records(
            hub,
            "security_group_rule",
            "Security group rule",
            missing=lambda id: f"Security group rule {id} does not exist",
        )

    # groups

    def default_group(self, project: str) -> Document:
        """The project's ``default`` group, made on first use as Neutron makes it."""
        found = self.groups.where(lambda g: g["project_id"] == project and g.get("_default", False))
        if found:
            return found[0]
        group = self._new_group(project, {"name": "default"}, "Default security group")
        group["_default"] = True
        self.groups.insert(group)
        for ethertype in ("IPv4", "IPv6"):
            self._insert_rule(project, group["id"], "egress", ethertype, default=True)
            self._insert_rule(
                project, group["id"], "ingress", ethertype, remote=group["id"], default=True
            )
        return group

    def _new_group(self, project: str, body: Mapping[str, Any], description: str) -> Document:
        return self.groups.new(
            project,
            {"description": body.get("description", description), "tags": body.get("tags")},
            name=str(body.get("name") or ""),
            stateful=boolean(body, "stateful", True),
            shared=False,
        )

    def create_group(self, project: str, body: Mapping[str, Any]) -> Document:
        reject_read_only(body)
        self.default_group(project)
        if str(body.get("name") or "") == "default":
            raise Conflict(
                "Default security group default already exists.",
                kind="SecurityGroupDefaultAlreadyExists",
            )
        group = self.groups.insert(self._new_group(project, body, ""))
        for ethertype in ("IPv4", "IPv6"):
            self._insert_rule(project, group["id"], "egress", ethertype)
        return group

    def show_group(self, group: Document) -> Document:
        """The group as the API shows it: its rules inline."""
        shown = public(group)
        shown["security_group_rules"] = [
            dict(rule) for rule in self.rules.where(lambda r: r["security_group_id"] == group["id"])
        ]
        return shown

    def update_group(self, id: str, project: str | None, body: Mapping[str, Any]) -> Document:
        reject_read_only(body, "PUT")
        group = self.groups.get(id, project)
        if "name" in body:
            if group.get("_default") and body["name"] != "default":
                raise Conflict(
                    "Insufficient rights for removing default security group.",
                    kind="SecurityGroupCannotUpdateDefault",
                )
            group["name"] = str(body["name"] or "")
        if "description" in body:
            group["description"] = str(body["description"] or "")
        if "stateful" in body:
            group["stateful"] = boolean(body, "stateful", True)
        return self.groups.save(group)

    def delete_group(self, id: str, project: str | None, in_use: bool) -> None:
        group = self.groups.get(id, project)
        if group.get("_default"):
            raise Conflict(
                "Insufficient rights for removing default security group.",
                kind="SecurityGroupCannotRemoveDefault",
            )
        if in_use:
            raise Conflict(f"Security Group {id} in use.", kind="SecurityGroupInUse")
        for rule in self.rules.where(lambda r: r["security_group_id"] == id):
            self.rules.delete(rule["id"])
        self.groups.delete(id)

    # rules

    def _insert_rule(
        self,
        project: str,
        group: str,
        direction: str,
        ethertype: str,
        remote: str | None = None,
        *,
        default: bool = False,
    ) -> Document:
        rule = self.rules.new(
            project,
            {},
            security_group_id=group,
            direction=direction,
            ethertype=ethertype,
            protocol=None,
            port_range_min=None,
            port_range_max=None,
            remote_ip_prefix=None,
            normalized_cidr=None,
            remote_group_id=remote,
            remote_address_group_id=None,
            belongs_to_default_sg=default,
        )
        return self.rules.insert(rule)

    def create_rule(self, project: str, body: Mapping[str, Any]) -> Document:
        reject_read_only(body)
        require(body, "security_group_id")
        group = self.groups.get(body["security_group_id"], project)
        direction = body.get("direction")
        if direction not in ("ingress", "egress"):
            raise invalid("direction", f"{direction} is not in valid_values")
        ethertype = body.get("ethertype") or "IPv4"
        if ethertype not in ("IPv4", "IPv6"):
            raise invalid("ethertype", f"{ethertype} is not in valid_values")
        protocol = self._protocol(body.get("protocol"))
        low, high = self._ports(protocol, body.get("port_range_min"), body.get("port_range_max"))
        prefix = body.get("remote_ip_prefix")
        remote_group = body.get("remote_group_id")
        if prefix is not None and remote_group is not None:
            raise BadRequest(
                "Only remote_ip_prefix or remote_group_id may be provided.",
                kind="SecurityGroupRemoteGroupAndRemoteIpPrefix",
            )
        normalized = None
        if prefix is not None:
            try:
                remote = ipaddress.ip_network(str(prefix), strict=False)
            except ValueError:
                raise invalid("remote_ip_prefix", f"'{prefix}' is not a valid IP subnet") from None
            normalized = str(remote)
            if remote.version != int(ethertype[-1]):
                raise BadRequest(
                    f"Conflicting value ethertype {ethertype} for CIDR {prefix}",
                    kind="SecurityGroupRuleParameterConflict",
                )
        if remote_group is not None:
            self.groups.get(str(remote_group), project)
        rule = self.rules.new(
            project,
            body,
            security_group_id=group["id"],
            direction=direction,
            ethertype=ethertype,
            protocol=protocol,
            port_range_min=low,
            port_range_max=high,
            remote_ip_prefix=None if prefix is None else str(prefix),
            normalized_cidr=normalized,
            remote_group_id=remote_group,
            remote_address_group_id=None,
            belongs_to_default_sg=bool(group.get("_default")),
        )
        for existing in self.rules.where(lambda r: r["security_group_id"] == group["id"]):
            if all(existing.get(key) == rule.get(key) for key in IDENTITY):
                raise Conflict(
                    f"Security group rule already exists. Rule id is {existing['id']}.",
                    kind="SecurityGroupRuleExists",
                )
        return self.rules.insert(rule)

    @staticmethod
    def _protocol(value: Any) -> str | None:
        if value is None or str(value).lower() in ("", "any"):
            return None
        text = str(value).lower()
        if text in PROTOCOLS:
            return text
        if text.isdigit() and 0 <= int(text) <= 255:
            return text
        raise BadRequest(
            f"Security group rule protocol {value} not supported. Only protocol values "
            f"[{', '.join(sorted(PROTOCOLS))}] and integer representations [0 to 255] are "
            "supported.",
            kind="SecurityGroupRuleInvalidProtocol",
        )

    @staticmethod
    def _ports(protocol: str | None, low: Any, high: Any) -> tuple[int | None, int | None]:
        def number(value: Any) -> int | None:
            if value is None:
                return None
            try:
                return int(value)
            except (TypeError, ValueError):
                raise invalid("port_range", f"'{value}' is not an integer") from None

        first, last = number(low), number(high)
        if first is None and last is None:
            return None, None
        if protocol is None:
            raise BadRequest(
                "Must also specify protocol if port range is given.",
                kind="SecurityGroupProtocolRequiredWithPorts",
            )
        if protocol in PORTED:
            if first is None or last is None:
                first, last = first if first is not None else last, last or first
            assert first is not None and last is not None
            if not (1 <= first <= 65535 and 1 <= last <= 65535) or first > last:
                raise BadRequest(
                    "For TCP/UDP protocols, port_range_min must be <= port_range_max",
                    kind="SecurityGroupInvalidPortRange",
                )
        elif protocol in ICMP:
            for name, value in (("type", first), ("code", last)):
                if value is not None and not 0 <= value <= 255:
                    raise BadRequest(
                        f"Invalid value for ICMP {name} (port_range_"
                        f"{'min' if name == 'type' else 'max'}) {value}. It must be 0 to 255.",
                        kind="SecurityGroupInvalidIcmpValue",
                    )
        return first, last

    def delete_rule(self, id: str, project: str | None) -> None:
        self.rules.get(id, project)
        self.rules.delete(id)
