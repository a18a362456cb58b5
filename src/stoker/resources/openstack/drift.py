"""What each OpenStack type compares when a stack's drift is asked: its expected
properties (as the stack resolved them) against the resource as the cloud shows it now.

A comparer gets the openstacksdk connection, what the cloud showed (the type's own
``show``, or a listing's entry for many servers at once) and the properties the stack
holds, and answers each property it compares as ``(expected, actual)``, both in the
template's form: a flavor named in the template is compared by its id but reported by
name, a default the cloud fills in (Neutron's default security group on a port given
none, the egress rules Heat keeps when a group has none of its own) counts as what the
template asked for. Where the cloud's value is the template's value in another form, the
actual value *is* the expected one, so storing the actual value (``drift --accept``) or
handing it to an update (``update --repair``) changes nothing that is in sync.

A property not given in the template (None) is not compared: the cloud chose its value.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from stoker.cloud.rest import find_id, request
from stoker.resources.openstack.neutron import network_id, security_group_ids, subnet_id
from stoker.resources.openstack.nova import flavor_id, image_id
from stoker.resources.openstack.security import _rule_body, _same_rule, default_egress

#: one property compared: (expected, actual), both in the template's form
Pair = tuple[Any, Any]
#: what a comparer answers: the pair of each property it compared
Pairs = dict[str, Pair]
#: a comparer: (connection, shown, expected properties, extra) -> pairs; ``extra`` holds
#: what a batch read alongside (a server's ports)
Comparer = Callable[[Any, Mapping[str, Any], Mapping[str, Any], Mapping[str, Any]], Pairs]


def _same(expected: Any, actual: Any, equal: bool) -> Pair:
    """The pair for a value the cloud may show in another form: the expected value
    itself when ``equal``."""
    return (expected, expected if equal else actual)


def _flag(p: Mapping[str, Any], shown: Mapping[str, Any], name: str, default: bool = True) -> Pair:
    """A boolean property: the template's value (``default``, the cloud's, when it gives
    none) and the cloud's."""
    return (default if p.get(name) is None else bool(p[name]), bool(shown.get(name)))


def server(
    connection: Any, shown: Mapping[str, Any], p: Mapping[str, Any], extra: Mapping[str, Any]
) -> Pairs:
    """Flavor, image, metadata, networks and security groups of an ``OS::Nova::Server``."""
    pairs: Pairs = {}
    flavor = shown.get("flavor") or {}
    if p.get("flavor") is not None:
        expected = str(p["flavor"])
        wanted = flavor_id(connection, expected)
        actual = flavor.get("original_name") or flavor.get("id")
        equal = actual is not None and (
            str(actual) == expected or flavor_id(connection, str(actual)) == wanted
        )
        if not equal and flavor.get("id") and expected != wanted:  # a name in the template
            actual = _name_of(connection, "compute", f"/flavors/{flavor['id']}", "flavor")
        pairs["flavor"] = _same(p["flavor"], actual, equal)
    image = shown.get("image")
    if p.get("image") is not None and isinstance(image, dict):
        actual_id = str(image.get("id"))
        wanted = image_id(connection, str(p["image"]))
        shown_as = actual_id
        if actual_id != wanted and wanted != str(p["image"]):
            shown_as = _name_of(connection, "image", f"/images/{actual_id}", "")
        pairs["image"] = _same(p["image"], shown_as, actual_id == wanted)
    expected_metadata = {k: str(v) for k, v in (p.get("metadata") or {}).items()}
    pairs["metadata"] = (expected_metadata, dict(shown.get("metadata") or {}))
    ports: list[Mapping[str, Any]] = list(extra.get("ports") or [])
    entries = list(p.get("networks") or [])
    if entries:
        pairs["networks"] = _server_networks(connection, entries, ports)
    groups = p.get("security_groups")
    owned = [port for port in ports if not _port_given(connection, entries, port)]
    if groups and owned:
        actual_ids = sorted({str(g) for port in owned for g in port.get("security_groups") or []})
        pairs["security_groups"] = _groups(connection, groups, actual_ids)
    return pairs


def _groups(connection: Any, groups: list[Any], actual_ids: list[str]) -> Pair:
    """The template's security groups against the ids (sorted) the cloud shows, a group
    the template names reported by its name."""
    expected_ids = security_group_ids(connection, [str(g) for g in groups])
    named = dict(zip(expected_ids, groups, strict=True))
    equal = sorted(set(expected_ids)) == actual_ids
    return _same(list(groups), [named.get(g, g) for g in actual_ids], equal)


def _name_of(connection: Any, service: str, path: str, key: str) -> str:
    """The name of a flavor or image the cloud shows by id (the template named it)."""
    body: dict[str, Any] = request(connection, service, "GET", path, f"{service}.get") or {}
    found = body.get(key) if key else body
    return str((found or {}).get("name") or path.rsplit("/", 1)[-1])


def _port_given(connection: Any, entries: list[Any], port: Mapping[str, Any]) -> bool:
    """Whether ``port`` is one a networks entry names (not one Nova made for a network)."""
    return any(
        isinstance(e, dict)
        and e.get("port")
        and _port_id(connection, e["port"], [port]) == port.get("id")
        for e in entries
    )


def _port_id(connection: Any, reference: Any, known: list[Mapping[str, Any]]) -> str:
    """The id of the port ``reference`` names: itself when it is the id of one of
    ``known`` (a template's ``get_resource``), else looked up by name."""
    if any(port.get("id") == reference for port in known):
        return str(reference)
    return find_id(connection, "network", "port", str(reference))


def _server_networks(connection: Any, entries: list[Any], ports: list[Mapping[str, Any]]) -> Pair:
    """The server's networks entries each matched to a port it has; a port none asked
    for (attached by hand) is reported as ``{"port": id}``, an entry no port answers is
    missing from the actual list (``allocate_network: none`` asks for none)."""
    free = list(ports)
    actual: list[Any] = []
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        match = None
        if entry.get("allocate_network") == "none":  # no network asked for: no port
            actual.append(entry)
            continue
        if entry.get("port"):
            wanted = _port_id(connection, entry["port"], free)
            match = next((port for port in free if port.get("id") == wanted), None)
        elif entry.get("network"):
            net = network_id(connection, str(entry["network"]))
            match = next((port for port in free if port.get("network_id") == net), None)
        else:
            match = free[0] if free else None
        if match is not None:
            free.remove(match)
            actual.append(entry)
    actual += [{"port": str(port.get("id"))} for port in free]
    return (list(entries), actual)


def port(
    connection: Any, shown: Mapping[str, Any], p: Mapping[str, Any], extra: Mapping[str, Any]
) -> Pairs:
    """Fixed IPs, security groups and admin state of an ``OS::Neutron::Port``."""
    pairs: Pairs = {}
    expected_ips = p.get("fixed_ips")
    if expected_ips:
        pairs["fixed_ips"] = _fixed_ips(connection, list(expected_ips), shown)
    groups = p.get("security_groups")
    if groups is not None:
        actual_ids = sorted(str(g) for g in shown.get("security_groups") or [])
        pairs["security_groups"] = _groups(connection, groups, actual_ids)
    pairs["admin_state_up"] = _flag(p, shown, "admin_state_up")
    return pairs


def _fixed_ips(connection: Any, expected: list[Any], shown: Mapping[str, Any]) -> Pair:
    free = [dict(item) for item in shown.get("fixed_ips") or []]
    actual: list[Any] = []
    for item in expected:
        if not isinstance(item, dict):
            continue
        subnet = item.get("subnet") or item.get("subnet_id")
        wanted_subnet = subnet_id(connection, str(subnet)) if subnet else None
        match = next(
            (
                ip
                for ip in free
                if (wanted_subnet is None or ip.get("subnet_id") == wanted_subnet)
                and (not item.get("ip_address") or ip.get("ip_address") == item["ip_address"])
            ),
            None,
        )
        if match is not None:
            free.remove(match)
            actual.append(item)
    actual += [{"subnet": ip.get("subnet_id"), "ip_address": ip.get("ip_address")} for ip in free]
    return (list(expected), actual)


def security_group(
    connection: Any, shown: Mapping[str, Any], p: Mapping[str, Any], extra: Mapping[str, Any]
) -> Pairs:
    """The rules (and description) of an ``OS::Neutron::SecurityGroup``: each of the
    cloud's rules matched to one the template asks for (Neutron's egress defaults count
    as asked for when the template has no egress rule, as Heat keeps them); a rule none
    asks for is reported in the template's form."""
    group = str(shown.get("id"))
    rules = list(p.get("rules") or [])
    wanted = [_rule_body(connection, group, rule) for rule in rules]
    open_wanted = list(enumerate(wanted))
    open_defaults = default_egress(group, wanted)
    matched: set[int] = set()
    extras: list[dict[str, Any]] = []
    for rule in shown.get("security_group_rules") or []:
        hit = next((i for i, w in open_wanted if _same_rule(w, rule)), None)
        if hit is not None:
            matched.add(hit)
            open_wanted = [(i, w) for i, w in open_wanted if i != hit]
            continue
        default = next((d for d in open_defaults if _same_rule(d, rule)), None)
        if default is not None:
            open_defaults.remove(default)
            continue
        extras.append(_as_template_rule(rule, group))
    actual = [rule for i, rule in enumerate(rules) if i in matched] + extras
    pairs: Pairs = {"rules": (rules, actual)}
    if p.get("description") is not None:
        pairs["description"] = (p["description"], shown.get("description") or "")
    return pairs


def _as_template_rule(rule: Mapping[str, Any], group: str) -> dict[str, Any]:
    """A rule of the cloud's in the form a template's ``rules`` entry has."""
    out: dict[str, Any] = {"direction": rule.get("direction"), "ethertype": rule.get("ethertype")}
    for key in ("protocol", "port_range_min", "port_range_max", "remote_ip_prefix"):
        if rule.get(key) not in (None, ""):
            out[key] = rule[key]
    if rule.get("remote_group_id"):
        out["remote_mode"] = "remote_group_id"
        if rule["remote_group_id"] != group:
            out["remote_group_id"] = rule["remote_group_id"]
    return out


def security_group_rule(
    connection: Any, shown: Mapping[str, Any], p: Mapping[str, Any], extra: Mapping[str, Any]
) -> Pairs:
    """The direction, protocol and ports of an ``OS::Neutron::SecurityGroupRule``."""
    pairs: Pairs = {}
    for key, default in (("direction", "ingress"), ("ethertype", "IPv4")):
        pairs[key] = (p.get(key) or default, shown.get(key))
    for key in ("protocol", "port_range_min", "port_range_max", "remote_ip_prefix"):
        if p.get(key) is not None:
            pairs[key] = _same(p[key], shown.get(key), str(p[key]) == str(shown.get(key)))
    return pairs


def volume(
    connection: Any, shown: Mapping[str, Any], p: Mapping[str, Any], extra: Mapping[str, Any]
) -> Pairs:
    """Size and type of an ``OS::Cinder::Volume`` (its attachments are compared by the
    ``OS::Cinder::VolumeAttachment`` that made them)."""
    pairs: Pairs = {}
    if p.get("size") is not None:
        pairs["size"] = (int(p["size"]), int(shown.get("size") or 0))
    if p.get("volume_type") is not None:
        pairs["volume_type"] = (p["volume_type"], shown.get("volume_type"))
    return pairs


def irreversible(type_name: str, name: str, expected: Any, actual: Any) -> str | None:
    """Why an update cannot bring property ``name`` of a ``type_name`` back from
    ``actual`` to ``expected`` (it would fail as Heat's does: Cinder cannot shrink a
    volume), or None. A repair leaves such a difference as it is: replacing the resource
    instead would lose its data."""
    growing = isinstance(expected, int) and isinstance(actual, int) and actual > expected
    if type_name == "OS::Cinder::Volume" and name == "size" and growing:
        return f"Cinder cannot shrink a volume (from {actual} GB back to {expected} GB)"
    return None


def volume_attachment(
    connection: Any, shown: Mapping[str, Any], p: Mapping[str, Any], extra: Mapping[str, Any]
) -> Pairs:
    """The server an ``OS::Cinder::VolumeAttachment`` attaches its volume to."""
    servers = [str(a.get("server_id")) for a in shown.get("attachments") or []]
    expected = str(p.get("instance_uuid"))
    actual = expected if expected in servers else (servers[0] if servers else None)
    return {"instance_uuid": (expected, actual)}


def floating_ip(
    connection: Any, shown: Mapping[str, Any], p: Mapping[str, Any], extra: Mapping[str, Any]
) -> Pairs:
    """The port an ``OS::Neutron::FloatingIP`` is on (when the template puts it on one)."""
    pairs: Pairs = {}
    if p.get("port_id") is not None:
        pairs["port_id"] = _floating_port(connection, p["port_id"], shown)
    if p.get("fixed_ip_address") is not None:
        pairs["fixed_ip_address"] = (p["fixed_ip_address"], shown.get("fixed_ip_address"))
    return pairs


def floating_ip_association(
    connection: Any, shown: Mapping[str, Any], p: Mapping[str, Any], extra: Mapping[str, Any]
) -> Pairs:
    return {"port_id": _floating_port(connection, p["port_id"], shown)}


def _floating_port(connection: Any, expected: Any, shown: Mapping[str, Any]) -> Pair:
    """The port a floating IP is on against the one the template puts it on."""
    actual = shown.get("port_id")
    wanted = _port_id(connection, expected, [{"id": actual}])
    return _same(expected, actual, wanted == actual)


def net(
    connection: Any, shown: Mapping[str, Any], p: Mapping[str, Any], extra: Mapping[str, Any]
) -> Pairs:
    """Admin state, sharing and port security of an ``OS::Neutron::Net``."""
    pairs: Pairs = {
        "admin_state_up": _flag(p, shown, "admin_state_up"),
        "shared": _flag(p, shown, "shared", default=False),
    }
    if p.get("port_security_enabled") is not None:
        pairs["port_security_enabled"] = _flag(p, shown, "port_security_enabled")
    return pairs


def subnet(
    connection: Any, shown: Mapping[str, Any], p: Mapping[str, Any], extra: Mapping[str, Any]
) -> Pairs:
    """CIDR, gateway, DHCP, name servers and allocation pools of an
    ``OS::Neutron::Subnet``."""
    pairs: Pairs = {}
    if p.get("cidr") is not None:
        pairs["cidr"] = (p["cidr"], shown.get("cidr"))
    if p.get("gateway_ip") is not None:
        pairs["gateway_ip"] = (p["gateway_ip"], shown.get("gateway_ip"))
    pairs["enable_dhcp"] = _flag(p, shown, "enable_dhcp")
    pairs["dns_nameservers"] = (
        list(p.get("dns_nameservers") or []),
        list(shown.get("dns_nameservers") or []),
    )
    if p.get("allocation_pools"):
        expected = [{"start": a["start"], "end": a["end"]} for a in p["allocation_pools"]]
        actual = [
            {"start": a.get("start"), "end": a.get("end")}
            for a in shown.get("allocation_pools") or []
        ]
        pairs["allocation_pools"] = (expected, actual)
    return pairs


def router(
    connection: Any, shown: Mapping[str, Any], p: Mapping[str, Any], extra: Mapping[str, Any]
) -> Pairs:
    """The external gateway's network and admin state of an ``OS::Neutron::Router``."""
    pairs: Pairs = {"admin_state_up": _flag(p, shown, "admin_state_up")}
    gateway = p.get("external_gateway_info")
    if isinstance(gateway, dict) and gateway.get("network"):
        info = shown.get("external_gateway_info") or {}
        actual = info.get("network_id")
        equal = actual == network_id(connection, str(gateway["network"]))
        pairs["external_gateway_info"] = _same(
            dict(gateway), {**gateway, "network": actual} if actual else None, equal
        )
    return pairs


def settings(defaults: Mapping[str, Any], *given_only: str) -> Comparer:
    """A comparer of fields the cloud shows under the properties' own names: those of
    ``defaults`` always (the template's value, else the default the cloud fills in),
    those of ``given_only`` when the template gives them. A list is compared as a set
    (Designate's records come back in its own order)."""

    def compare(
        connection: Any, shown: Mapping[str, Any], p: Mapping[str, Any], extra: Mapping[str, Any]
    ) -> Pairs:
        pairs: Pairs = {}
        names = [*defaults, *(n for n in given_only if p.get(n) is not None)]
        for name in names:
            expected = p.get(name)
            if expected is None:
                expected = defaults[name]
            actual = shown.get(name)
            if isinstance(expected, list) and isinstance(actual, list):
                same = sorted(map(str, expected)) == sorted(map(str, actual))
                pairs[name] = _same(expected, actual, same)
            else:
                pairs[name] = (expected, actual)
        return pairs

    return compare


def exists_only(
    connection: Any, shown: Mapping[str, Any], p: Mapping[str, Any], extra: Mapping[str, Any]
) -> Pairs:
    """A type whose whole state is that it exists (a router's interface)."""
    return {}


#: the comparer of each type; a cloud type not here is only looked for (NOT_CHECKED
#: when found, DELETED when gone)
COMPARERS: Mapping[str, Comparer] = {
    "OS::Nova::Server": server,
    "OS::Neutron::Port": port,
    "OS::Neutron::SecurityGroup": security_group,
    "OS::Neutron::SecurityGroupRule": security_group_rule,
    "OS::Cinder::Volume": volume,
    "OS::Cinder::VolumeAttachment": volume_attachment,
    "OS::Neutron::FloatingIP": floating_ip,
    "OS::Neutron::FloatingIPAssociation": floating_ip_association,
    "OS::Neutron::Net": net,
    "OS::Neutron::Subnet": subnet,
    "OS::Neutron::Router": router,
    "OS::Neutron::RouterInterface": exists_only,
    "OS::Octavia::LoadBalancer": settings({"admin_state_up": True}, "description"),
    "OS::Octavia::Listener": settings(
        {"admin_state_up": True}, "protocol", "protocol_port", "connection_limit"
    ),
    "OS::Octavia::Pool": settings({"admin_state_up": True}, "lb_algorithm", "protocol"),
    "OS::Octavia::PoolMember": settings(
        {"admin_state_up": True, "weight": 1}, "address", "protocol_port"
    ),
    "OS::Octavia::HealthMonitor": settings(
        {"admin_state_up": True},
        "type",
        "delay",
        "timeout",
        "max_retries",
        "url_path",
        "http_method",
        "expected_codes",
    ),  # fmt: skip
    "OS::Octavia::L7Policy": settings({"admin_state_up": True}, "action", "position"),
    "OS::Octavia::L7Rule": settings({}, "type", "compare_type", "value", "key", "invert"),
    "OS::Designate::Zone": settings({}, "email", "ttl", "description"),
    "OS::Designate::RecordSet": settings({}, "type", "ttl", "records", "description"),
}
