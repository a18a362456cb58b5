"""ONAP's Contrail resource parameters (beyond the seed), summarised, not quoted.

Contrail's resources follow the Neutron port's conventions under requirements of their
own: instance IPs for fixed_ips, virtual machine interfaces for allowed_address_pairs.
"""

from __future__ import annotations

from stoker.lint.onap.requirement import (
    ADDRESS_FORMS,
    INSTANCE_IP_ADDRESS_IDS,
    NAMING,
    Requirement,
    beyond,
    enumeration,
)

_CONTRAIL = f"{NAMING}: Contrail Resource Parameters"
_IIP = "OS::ContrailV2::InstanceIp"
_VMI_AAP = "an OS::ContrailV2::VirtualMachineInterface's allowed address pair ip_prefix parameter"


def _contrail_address(rid: str, internal: bool, v6: bool, listed: bool, form: str) -> Requirement:
    network = "an internal" if internal else "an external"
    version = "IPv6" if v6 else "IPv4"
    kind = "comma_delimited_list" if listed else "string"
    index = "" if listed else ", the indexes starting at 0 and going up by one"
    text = (
        f"On {network} network, a {kind} parameter of an {_IIP}'s {version} "
        f"instance_ip_address is {form}{index}."
    )
    return beyond(rid, "MUST", _CONTRAIL, text)


#: Contrail's resources follow the Neutron port's conventions (instance IPs for fixed_ips,
#: virtual machine interfaces for allowed_address_pairs), under requirements of their own
CONTRAIL: tuple[Requirement, ...] = (
    beyond(
        "R-02164",
        "MUST",
        _CONTRAIL,
        "A Contrail resource's reference to an external network's FQDN is a string "
        "parameter {network-role}_net_fqdn, not enumerated in the environment file.",
    ),
    enumeration("R-92193", _CONTRAIL, "A {network-role}_net_fqdn parameter"),
    beyond(
        "R-28222",
        "MUST",
        _CONTRAIL,
        "An OS::ContrailV2::InterfaceRouteTable's interface_route_table_routes_route "
        "parameter is {vm-type}_{network-role}_route_prefixes.",
    ),
    beyond(
        "R-19756", "MUST", _CONTRAIL, "A {vm-type}_{network-role}_route_prefixes parameter is json."
    ),
    enumeration("R-76682", _CONTRAIL, "A {vm-type}_{network-role}_route_prefixes parameter"),
    beyond(
        "R-100000",
        "MUST",
        _CONTRAIL,
        f"The parameter of an {_IIP}'s instance_ip_address is a string or a comma_delimited_list.",
    ),
    *(
        requirement
        for (named, enumerated), (internal, v6, listed, form) in zip(
            INSTANCE_IP_ADDRESS_IDS, ADDRESS_FORMS, strict=True
        )
        for requirement in (
            _contrail_address(named, internal, v6, listed, form),
            enumeration(enumerated, _CONTRAIL, f"An {_IIP} parameter {form}", wanted=internal),
        )
    ),
    enumeration(
        "R-100170", _CONTRAIL, f"An {_IIP}'s instance_ip_address parameter on an external network"
    ),
    enumeration(
        "R-100180",
        _CONTRAIL,
        f"An {_IIP}'s instance_ip_address parameter on an internal network",
        wanted=True,
    ),
    beyond("R-100190", "MUST", _CONTRAIL, f"The parameter of an {_IIP}'s subnet_uuid is a string."),
    beyond(
        "R-100200",
        "MUST",
        _CONTRAIL,
        f"On an external network, an {_IIP}'s IPv4 subnet_uuid parameter is "
        "{network-role}_subnet_id.",
    ),
    enumeration("R-100210", _CONTRAIL, f"An {_IIP}'s {{network-role}}_subnet_id"),
    beyond(
        "R-100220",
        "MUST",
        _CONTRAIL,
        f"On an external network, an {_IIP}'s IPv6 subnet_uuid parameter is "
        "{network-role}_v6_subnet_id.",
    ),
    enumeration("R-100230", _CONTRAIL, f"An {_IIP}'s {{network-role}}_v6_subnet_id"),
    beyond(
        "R-100240",
        "MUST",
        _CONTRAIL,
        f"In an incremental module, on an internal network, an {_IIP}'s IPv4 subnet_uuid "
        "parameter is int_{network-role}_subnet_id.",
    ),
    enumeration("R-100250", _CONTRAIL, f"An {_IIP}'s int_{{network-role}}_subnet_id"),
    beyond(
        "R-100260",
        "MUST",
        _CONTRAIL,
        f"In an incremental module, on an internal network, an {_IIP}'s IPv6 subnet_uuid "
        "parameter is int_{network-role}_v6_subnet_id.",
    ),
    enumeration("R-100270", _CONTRAIL, f"An {_IIP}'s int_{{network-role}}_v6_subnet_id"),
    enumeration("R-100280", _CONTRAIL, f"On an external network, {_VMI_AAP}"),
    beyond(
        "R-100310",
        "MUST",
        _CONTRAIL,
        f"On an external network, {_VMI_AAP} for an IPv4 VIP (not listed in aap_exempt) is "
        "a string {vm-type}_{network-role}_floating_ip.",
    ),
    beyond(
        "R-100330",
        "MUST",
        _CONTRAIL,
        f"On an external network, {_VMI_AAP} for an IPv6 VIP (not listed in aap_exempt) is "
        "a string {vm-type}_{network-role}_floating_v6_ip.",
    ),
    beyond(
        "R-100350",
        "MUST",
        _CONTRAIL,
        "An OS::ContrailV2::VirtualMachineInterface whose allowed address pairs use "
        "parameters outside ONAP's naming lists them in its resource-level metadata, under "
        "aap_exempt.",
    ),
    beyond(
        "R-100360",
        "MUST",
        _CONTRAIL,
        f"On an internal network, {_VMI_AAP} for an IPv4 VIP is "
        "{vm-type}_int_{network-role}_floating_ip (a string) or ..._floating_ips (a "
        "comma_delimited_list), enumerated in the environment file.",
    ),
    beyond(
        "R-100370",
        "MUST",
        _CONTRAIL,
        f"On an internal network, {_VMI_AAP} for an IPv6 VIP is "
        "{vm-type}_int_{network-role}_floating_v6_ip (a string) or ..._floating_v6_ips (a "
        "comma_delimited_list), enumerated in the environment file.",
    ),
)
