"""ONAP's naming conventions beyond the seed's 5.2.2, as requirements (not quoted).

ONAP's sections 5.2.3 onwards (OS::Nova::Server, its metadata, resource ids, Neutron
ports, volume module outputs) that the seed points at or that ONAP's validation suite
checks on every package. Their text is summarised in stoker's words, not quoted.
"""

from __future__ import annotations

from stoker.lint.onap.requirement import (
    ADDRESS_FORMS,
    IDS,
    META,
    NAMING,
    NOVA,
    PORT_ADDRESS_IDS,
    Requirement,
    beyond,
    enumeration,
)
from stoker.lint.onap.requirements_constructs import CONSTRUCTS
from stoker.lint.onap.requirements_contrail import CONTRAIL
from stoker.lint.onap.requirements_resource_ids import RESOURCE_IDS
from stoker.lint.onap.requirements_servers import SERVERS


def _metadata_key(
    key: str, present: str, named: str, bare: str, absent: str
) -> tuple[Requirement, ...]:
    """The four requirements on a metadata key every server has (vnf_id ...)."""
    return (
        beyond(
            present, "MUST", META, f"A server's metadata has {key}, its value from a get_param."
        ),
        beyond(named, "MUST", META, f"The parameter of metadata {key} is {key}, a string."),
        beyond(bare, "MUST NOT", META, f"The parameter {key} has no constraints."),
        beyond(
            absent, "MUST NOT", META, f"The parameter {key} is not enumerated in the environment."
        ),
    )


#: Requirements from ONAP's naming-convention sections, beyond the seed's 5.2.2, that the
#: seed points at (R-98450 from R-90279, {vm-type}_names from R-10834) or that ONAP's
#: validation suite checks on every server. Summarised in stoker's words, not quoted.
BEYOND_SEED: tuple[Requirement, ...] = (
    beyond(
        "R-29751", "MUST", IDS, "An OS::Nova::Server's resource id is {vm-type}_server_{index}."
    ),
    beyond(
        "R-304011",
        "MUST",
        NOVA,
        "An OS::Nova::Server's resource id and the parameters of its image, flavor and name "
        "properties carry the same {vm-type}.",
    ),
    beyond("R-901331", "MUST", NOVA, "An OS::Nova::Server's image comes from a get_param."),
    beyond("R-71152", "MUST", NOVA, "The parameter of a server's image is a string."),
    beyond("R-58670", "MUST", NOVA, "The parameter of a server's image is {vm-type}_image_name."),
    beyond(
        "R-91125",
        "MUST",
        NOVA,
        "The parameter of a server's image is given a value in the module's environment file.",
    ),
    beyond("R-481670", "MUST", NOVA, "An OS::Nova::Server's flavor comes from a get_param."),
    beyond("R-50436", "MUST", NOVA, "The parameter of a server's flavor is a string."),
    beyond("R-45188", "MUST", NOVA, "The parameter of a server's flavor is {vm-type}_flavor_name."),
    beyond(
        "R-69431",
        "MUST",
        NOVA,
        "The parameter of a server's flavor is given a value in the module's environment file.",
    ),
    beyond("R-663631", "MUST", NOVA, "An OS::Nova::Server's name comes from a get_param."),
    beyond(
        "R-51430",
        "MUST",
        NOVA,
        "The parameter of a server's name is a string or a comma_delimited_list.",
    ),
    beyond(
        "R-54171",
        "MUST",
        NOVA,
        "A string parameter of a server's name is {vm-type}_name_{index}, the indexes of a "
        "template starting at 0 and increasing by one.",
    ),
    beyond(
        "R-87817",
        "MUST",
        NOVA,
        "A comma_delimited_list parameter of a server's name is {vm-type}_names.",
    ),
    enumeration("R-22838", NOVA, "The parameter of a server's name"),
    beyond(
        "R-98450",
        "MUST",
        NOVA,
        "In a base or incremental module, the parameter of a server's availability_zone is "
        "availability_zone_{index}, the indexes of a template starting at 0 and increasing "
        "by one.",
    ),
    beyond(
        "R-23311",
        "MUST",
        NOVA,
        "In a base or incremental module, the parameter of a server's availability_zone is a "
        "string.",
    ),
    enumeration("R-59568", NOVA, "The parameter of a server's availability_zone"),
    *_metadata_key("vnf_id", "R-37437", "R-07507", "R-55218", "R-20856"),
    *_metadata_key("vf_module_id", "R-71493", "R-82134", "R-98374", "R-72871"),
    *_metadata_key("vnf_name", "R-72483", "R-62428", "R-44318", "R-36542"),
)

_VOLUME = "5.2.3 ONAP Output Parameter Names: ONAP Volume Module Output Parameters"
_PORT = f"{NAMING}: OS::Neutron::Port"
BEYOND_SEED += (
    beyond(
        "R-25720",
        "MUST",
        IDS,
        "An OS::Neutron::Net's resource id is int_{network-role}_network (a VNF's templates "
        "create only internal networks).",
    ),
    beyond(
        "R-20453",
        "MUST",
        IDS,
        "An OS::Neutron::Port on an external network has the resource id "
        "{vm-type}_{vm-type_index}_{network-role}_port_{port-index}.",
    ),
    beyond(
        "R-26351",
        "MUST",
        IDS,
        "An OS::Neutron::Port on an internal network has the resource id "
        "{vm-type}_{vm-type_index}_int_{network-role}_port_{port-index}.",
    ),
    beyond(
        "R-34037",
        "MUST",
        _PORT,
        "The parameter of an OS::Neutron::Port's fixed_ips ip_address is a string or a "
        "comma_delimited_list.",
    ),
    beyond(
        "R-82732",
        "MUST",
        _VOLUME,
        "A volume module is named after the base or incremental module it serves: "
        "<module>_volume.yaml beside <module>.yaml.",
    ),
    beyond(
        "R-89913",
        "MUST",
        _VOLUME,
        "A volume module's outputs include the UUID of each Cinder volume it creates.",
    ),
    beyond(
        "R-07443",
        "MUST",
        _VOLUME,
        "Each output of a volume module is an input parameter of its base or incremental "
        "module, of the matching type (a volume's UUID: string).",
    ),
    beyond(
        "R-20547",
        "SHOULD NOT",
        _VOLUME,
        "A module's parameter fed by its volume module's output declares no constraints.",
    ),
)

_NET = _PORT + " network"
_FIXED = _PORT + " fixed_ips"
_AAP = _PORT + " allowed_address_pairs"

_PORT_FORMS = tuple(zip(PORT_ADDRESS_IDS, ADDRESS_FORMS, strict=True))


def _port_address(rid: str, internal: bool, v6: bool, listed: bool, form: str) -> Requirement:
    network = "an internal" if internal else "an external"
    version = "IPv6" if v6 else "IPv4"
    if listed:
        text = f"a comma_delimited_list parameter of fixed_ips {version} addresses is {form}."
    else:
        text = (
            f"a string parameter of a fixed_ips {version} ip_address is {form}, the indexes "
            "starting at 0 and going up by one."
        )
    return beyond(rid, "MUST", _FIXED, f"On {network} network, {text}")


#: OS::Neutron::Port's parameters, per network kind: an ONAP external network (ONAP gives
#: its id and addresses) or an ONAP internal one (the VNF's own, from its base module).
BEYOND_SEED += (
    beyond(
        "R-681859",
        "MUST",
        _PORT,
        "A port's resource id and the parameters of its network, fixed_ips (ip_address, "
        "subnet) and allowed_address_pairs carry the identical {network-role}.",
    ),
    beyond("R-18008", "MUST", _NET, "The parameter of a port's network is declared a string."),
    beyond(
        "R-62983",
        "MUST",
        _NET,
        "A port on an external network reads its network from a get_param named "
        "{network-role}_net_id (a UUID) or {network-role}_net_name (a name).",
    ),
    beyond(
        "R-86182",
        "MUST",
        _NET,
        "In an incremental module, a port on an internal network (created by the base "
        "module) reads its network from a get_param named int_{network-role}_net_id or "
        "int_{network-role}_net_name.",
    ),
    enumeration("R-29872", _NET, "The parameter of a port's network"),
    *(_port_address(name, *form) for (name, _), form in _PORT_FORMS),
    *(
        enumeration(rid, _FIXED, f"A {name} parameter", wanted=internal)
        for (_, rid), (internal, _, _, name) in _PORT_FORMS
    ),
    enumeration(
        "R-62590", _FIXED, "A fixed_ips ip_address parameter of a port on an external network"
    ),
    enumeration(
        "R-93496",
        _FIXED,
        "A fixed_ips ip_address parameter of a port on an internal network",
        wanted=True,
    ),
    beyond("R-38236", "MUST", _FIXED, "The parameter of a fixed_ips subnet is declared a string."),
    beyond(
        "R-62802",
        "MUST",
        _FIXED,
        "On an external network, the parameter of a fixed_ips IPv4 subnet is "
        "{network-role}_subnet_id.",
    ),
    beyond(
        "R-15287",
        "MUST",
        _FIXED,
        "On an external network, the parameter of a fixed_ips IPv6 subnet is "
        "{network-role}_v6_subnet_id.",
    ),
    beyond(
        "R-84123",
        "MUST",
        _FIXED,
        "In an incremental module, on an internal network, the parameter of a fixed_ips IPv4 "
        "subnet is int_{network-role}_subnet_id.",
    ),
    beyond(
        "R-76160",
        "MUST",
        _FIXED,
        "In an incremental module, on an internal network, the parameter of a fixed_ips IPv6 "
        "subnet is int_{network-role}_v6_subnet_id.",
    ),
    enumeration("R-83677", _FIXED, "A {network-role}_subnet_id parameter"),
    enumeration("R-80829", _FIXED, "A {network-role}_v6_subnet_id parameter"),
    enumeration("R-69634", _FIXED, "An int_{network-role}_subnet_id parameter"),
    enumeration("R-22288", _FIXED, "An int_{network-role}_v6_subnet_id parameter"),
    enumeration(
        "R-83412",
        _AAP,
        "An allowed_address_pairs ip_address parameter of a port on an external network",
    ),
    beyond(
        "R-41492",
        "MUST",
        _AAP,
        "On an external network, an IPv4 VIP (an allowed_address_pairs ip_address not listed "
        "in the port's metadata aap_exempt) is a string parameter "
        "{vm-type}_{network-role}_floating_ip.",
    ),
    beyond(
        "R-35735",
        "MUST",
        _AAP,
        "On an external network, an IPv6 VIP (not listed in aap_exempt) is a string parameter "
        "{vm-type}_{network-role}_floating_v6_ip.",
    ),
    beyond(
        "R-41493",
        "MUST",
        _AAP,
        "A port whose allowed_address_pairs use parameters outside ONAP's naming lists them "
        "in its resource-level metadata, under aap_exempt.",
    ),
    beyond(
        "R-717227",
        "MUST",
        _AAP,
        "On an internal network, an IPv4 VIP parameter is {vm-type}_int_{network-role}"
        "_floating_ip (a string) or ..._floating_ips (a comma_delimited_list), enumerated in "
        "the environment file.",
    ),
    beyond(
        "R-805572",
        "MUST",
        _AAP,
        "On an internal network, an IPv6 VIP parameter is {vm-type}_int_{network-role}"
        "_floating_v6_ip (a string) or ..._floating_v6_ips (a comma_delimited_list), "
        "enumerated in the environment file.",
    ),
    beyond("R-05257", "MUST NOT", _AAP, "A template has no OS::Neutron::FloatingIP resource."),
    beyond(
        "R-76449",
        "MUST NOT",
        _AAP,
        "A template has no OS::Neutron::FloatingIPAssociation resource.",
    ),
)

BEYOND_SEED += SERVERS + CONSTRUCTS + CONTRAIL + RESOURCE_IDS
