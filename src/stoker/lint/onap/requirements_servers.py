"""ONAP's conventions for OS::Nova::Server beyond the parameters of its image, flavor,
name and zone (`naming`): the rest of its metadata, one image and flavor per vm-type,
boot options, and the {vm-type} itself. Summarised in stoker's words, not quoted."""

from __future__ import annotations

from stoker.lint.onap.requirement import (
    META,
    NAMING,
    NOVA,
    PERMISSION,
    Requirement,
    beyond,
    enumeration,
    unchecked,
)

SERVERS: tuple[Requirement, ...] = ()

_META_NONE = "a MAY permission about how the parameter may be named: no name breaks it"


def _metadata_parameter(rids: tuple[str, str, str], key: str, kind: str) -> tuple[Requirement, ...]:
    named, bare, absent = rids
    return (
        beyond(named, "MUST", META, f"The parameter of metadata {key} is {key}, a {kind}."),
        beyond(bare, "MUST NOT", META, f"The parameter {key} has no constraints."),
        enumeration(absent, META, f"The parameter {key}"),
    )


#: the optional and recommended keys of a server's metadata
SERVERS += (
    beyond(
        "R-68023",
        "MUST",
        META,
        "A server's metadata should have vf_module_name; where it does, its value comes "
        "from a get_param.",
    ),
    *_metadata_parameter(("R-39067", "R-15480", "R-80374"), "vf_module_name", "string"),
    beyond(
        "R-50816",
        "MUST",
        META,
        "A server's metadata may have vf_module_index; where it does, its value comes from "
        "a get_param.",
    ),
    *_metadata_parameter(("R-54340", "R-09811", "R-37039"), "vf_module_index", "number"),
    beyond(
        "R-55306",
        "MUST NOT",
        META,
        "vf_module_index is not used in an OS::Cinder::Volume, nor in a volume module.",
    ),
    beyond("R-47061", "SHOULD", META, "A server's metadata has workload_context."),
    *_metadata_parameter(("R-74978", "R-34055", "R-02691"), "workload_context", "string"),
    beyond("R-88536", "SHOULD", META, "A server's metadata has environment_context."),
    *_metadata_parameter(("R-20308", "R-56183", "R-13194"), "environment_context", "string"),
    beyond(
        "R-85328",
        "MAY",
        META,
        "A server's metadata may have vm_role; its value is a get_param or written in the "
        "template.",
    ),
    unchecked(
        "R-95430",
        "MAY",
        META,
        "A vm_role parameter may be vm_role (string), vm_roles (comma_delimited_list) or "
        "{vm-type}_vm_role (string).",
        _META_NONE,
    ),
    beyond("R-67597", "MUST NOT", META, "The parameter of metadata vm_role has no constraints."),
    beyond(
        "R-86476",
        "MUST",
        META,
        "A server's metadata vm_role value holds only letters, digits and underscores.",
    ),
)

_BOOT = (
    "ONAP marks it validation_mode none: a server boots from an image exactly when it has "
    "an image and from a volume when it has a block device mapping; Heat itself wants one "
    "of them (R-92635)"
)

#: the rest of OS::Nova::Server's parameter section
SERVERS += (
    beyond(
        "R-57282",
        "MUST",
        NOVA,
        "Each vm-type has its own image parameter, even when vm-types share an image.",
    ),
    beyond(
        "R-40499",
        "MUST",
        NOVA,
        "Each vm-type has its own flavor parameter, even when vm-types share a flavor.",
    ),
    unchecked(
        "R-44271",
        "SHOULD NOT",
        NOVA,
        "The value of a server's name parameter holds no special characters.",
        "the value comes from ONAP at instantiation (R-22838 keeps it out of the "
        "environment file): no template holds it",
    ),
    unchecked(
        "R-256790",
        "MAY",
        NOVA,
        "The availability_zone parameter's name may change when passed into a nested file.",
        "a MAY permission, honoured by R-98450 (modules only) and R-708564 (which does not "
        "list availability_zone)",
        "none",
    ),
    unchecked(
        "R-01359",
        "MAY",
        NOVA,
        "A template may declare an availability_zone parameter no server uses.",
        "a MAY permission, honoured as the exception in R-90279",
    ),
    unchecked(
        "R-99798",
        "MAY",
        NOVA,
        "A server may boot from an image or from a Cinder volume.",
        PERMISSION,
    ),
    unchecked(
        "R-83706",
        "MUST",
        NOVA,
        "A server booting from an image uses the image property.",
        _BOOT,
        "none",
    ),
    unchecked(
        "R-69588",
        "MUST",
        NOVA,
        "A server booting from a Cinder volume uses block_device_mapping or "
        "block_device_mapping_v2.",
        _BOOT,
        "none",
    ),
)

_VM = f"{NAMING}: {{vm-type}}"

#: the {vm-type} itself
SERVERS += (
    beyond(
        "R-01455",
        "MUST",
        _VM,
        "Each class of VMs (identical flavor, image, volume attachments, network "
        "attachments and addressing) has its own {vm-type}, unique in the VNF.",
    ),
    unchecked(
        "R-82481",
        "MUST",
        _VM,
        "A parameter associated with one vm-type includes the {vm-type} in its name (not "
        "availability_zone and the metadata parameters).",
        "ONAP marks it validation_mode none: which vm-type a parameter is associated with "
        "is the designer's intent, which a template does not state",
        "none",
    ),
    beyond(
        "R-98407",
        "MUST NOT",
        _VM,
        "A {vm-type} holds only letters, digits and underscores, and not int_, _int or _int_.",
    ),
    beyond("R-48067", "MUST NOT", _VM, "A {vm-type} is not a substring of a {network-role}."),
    beyond(
        "R-32394",
        "MUST",
        _VM,
        "A {vm-type} is written in the same letter case in all parameter names.",
    ),
    beyond(
        "R-46839",
        "MUST",
        _VM,
        "A {vm-type} is written in the same letter case in all resource ids.",
    ),
    beyond(
        "R-36687",
        "SHOULD",
        _VM,
        "A {vm-type}'s case in parameter names matches its case in resource ids.",
    ),
)

_ROLE = f"{NAMING}: {{network-role}}"
_INTENT = (
    "ONAP marks it validation_mode none: which network a port, parameter or resource is "
    "associated with, and what the designer calls it, is intent a template does not state"
)


def _intent(rid: str, text: str) -> Requirement:
    """A network-role convention about the designer's intent, which no template states."""
    return unchecked(rid, "MUST", _ROLE, text, _INTENT, "none")


#: the {network-role} itself
SERVERS += (
    _intent(
        "R-69014",
        "A network a VNF's port connects to is assigned a {network-role}, used in ids and "
        "parameter names.",
    ),
    _intent(
        "R-05201", "Each of two or more networks a VNF connects to has its own {network-role}."
    ),
    _intent(
        "R-21330", "A parameter associated with an external network includes its {network-role}."
    ),
    _intent(
        "R-11168", "A resource id associated with an external network includes its {network-role}."
    ),
    _intent(
        "R-84322", "A parameter associated with an internal network includes int_{network-role}."
    ),
    _intent(
        "R-96983", "A resource id associated with an internal network includes int_{network-role}."
    ),
    beyond(
        "R-26506",
        "MUST NOT",
        _ROLE,
        "A {network-role} holds only letters, digits and underscores, contains no int_, _int "
        "or _int_, does not end in _v6, and has no _<number>_ nor ends in _<number>.",
    ),
    beyond("R-00977", "MUST NOT", _ROLE, "A {network-role} is not a substring of a {vm-type}."),
    beyond(
        "R-58424",
        "MUST",
        _ROLE,
        "A {network-role} is written in the same letter case in all parameter names.",
    ),
    beyond(
        "R-21511",
        "MUST",
        _ROLE,
        "A {network-role} is written in the same letter case in all resource ids.",
    ),
    beyond(
        "R-86588",
        "SHOULD",
        _ROLE,
        "A {network-role}'s case in parameter names matches its case in resource ids.",
    ),
)

_CINDER = "5.2.4 ONAP Heat Cinder Volumes"

#: Cinder volumes (the volume module's outputs are in `naming`)
SERVERS += (
    beyond(
        "R-270358",
        "MUST",
        _CINDER,
        "A volume module contains an OS::Cinder::Volume, directly, through a ResourceGroup's "
        "nested file, or through a nested file used as a type.",
    ),
    beyond(
        "R-25190", "SHOULD NOT", _CINDER, "An OS::Cinder::Volume declares no availability_zone."
    ),
)

_MODULES = "5.2.4 ONAP Heat VNF Modularity"


def _permits(rid: str, text: str) -> Requirement:
    """What a module may hold: a permission."""
    return unchecked(rid, "MAY", _MODULES, text, PERMISSION, "none")


#: what base and incremental modules hold
SERVERS += (
    _permits("R-610010", "A base module may declare any number of servers, itself or nested."),
    beyond(
        "R-610015",
        "SHOULD NOT",
        _MODULES,
        "When a VNF has incremental modules, its base module declares no OS::Nova::Server.",
    ),
    _permits("R-610020", "A base module's servers may share a vm-type or not."),
    beyond(
        "R-610030",
        "MUST",
        _MODULES,
        "An incremental module declares one or more servers or volumes, itself or in nested "
        "files it invokes.",
    ),
    _permits("R-610040", "An incremental module's servers may share a vm-type or not."),
    _permits("R-610050", "A vm-type may appear in the base module and in incremental modules."),
    unchecked(
        "R-61001",
        "MUST",
        _MODULES,
        "A shared resource is defined in the base module and its UUID output for the "
        "incremental modules, which declare that output as a parameter.",
        "ONAP marks it validation_mode none: which resources are shared is the designer's "
        "intent; what a template does state, base outputs matching incremental "
        "parameters, is R-07443's kind of check only for volume modules",
        "none",
    ),
)
