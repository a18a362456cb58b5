"""ONAP's requirements on template constructs beyond the seed: nested templates,
resource groups, predefined output parameters and get_file (summarised, not quoted)."""

from __future__ import annotations

from stoker.lint.onap.requirement import PERMISSION, Requirement, beyond, unchecked

_NESTED = "5.2.4 ONAP Heat Template Constructs: Nested Heat Templates"
_GROUPS = "5.2.4 ONAP Heat Template Constructs: Use of Heat ResourceGroup"
_FILES = "5.2.4 ONAP Heat Template Constructs: Heat Files Support (get_file)"
_OUTPUTS = "5.2.3 ONAP Output Parameter Names"
_APPROPRIATE = (
    'it holds "when appropriate", and whether a name ought to carry a vm-type or a '
    "network role is the designer's judgement: no static check can decide it"
)


def _may(rid: str, section: str, text: str) -> Requirement:
    """A construct a template may use: a permission."""
    return unchecked(rid, "MAY", section, text, PERMISSION)


def _appropriate(rid: str, text: str) -> Requirement:
    """An output name convention that holds "when appropriate", the designer's judgement."""
    return unchecked(rid, "MUST", _OUTPUTS, text, _APPROPRIATE, "static")


#: nested templates, resource groups, predefined outputs, get_file
CONSTRUCTS: tuple[Requirement, ...] = (
    _may("R-00228", _NESTED, "A template may invoke a nested file statically."),
    _may(
        "R-01101",
        _NESTED,
        "A template may invoke a nested file through an OS::Heat::ResourceGroup.",
    ),
    beyond("R-60011", "MUST", _NESTED, "Templates nest no more than two levels deep."),
    beyond(
        "R-17528",
        "MUST",
        _NESTED,
        "A first-level nested file holds at most one OS::Nova::Server; a second-level one "
        "holds none.",
    ),
    beyond(
        "R-708564",
        "MUST NOT",
        _NESTED,
        "The names of the parameters of the properties ONAP inventories (a server's image, "
        "flavor, name and metadata keys; a port's network, fixed_ips and "
        "allowed_address_pairs addresses; the Contrail equivalents) do not change when "
        "passed into a nested file.",
    ),
    beyond(
        "R-11041",
        "MUST",
        _NESTED,
        "Every parameter a nested file declares is passed in as a property of the resource "
        "invoking it.",
    ),
    _may("R-90022", _NESTED, "A nested file may be invoked more than once."),
    _may("R-04344", _NESTED, "A nested file may be invoked by more than one of a VNF's templates."),
    beyond(
        "R-50011",
        "MUST",
        _GROUPS,
        "An OS::Heat::ResourceGroup's count is enumerated in the environment file, with a value.",
    ),
    beyond(
        "R-76718",
        "MUST",
        _FILES,
        "A get_file target is referenced by file name.",
    ),
    beyond("R-41888", "MUST NOT", _FILES, "No get_file retrieves a file from a URL."),
    _may(
        "R-05050",
        _FILES,
        "A get_file target may be used more than once, by several templates, in nested files.",
    ),
    _appropriate(
        "R-97726",
        "A base module's output names contain {vm-type} and/or {network-role} when appropriate.",
    ),
    _appropriate("R-88524", "A volume module's output names contain {vm-type} when appropriate."),
    _may("R-47874", _OUTPUTS, "A VNF may have an IPv4, an IPv6, or both OAM management addresses."),
    beyond(
        "R-18683",
        "MUST",
        _OUTPUTS,
        "An IPv4 OAM management address ONAP inventories is the output "
        "oam_management_v4_address, declared in only one of the VNF's templates.",
    ),
    beyond(
        "R-94669",
        "MUST",
        _OUTPUTS,
        "An IPv6 OAM management address ONAP inventories is the output "
        "oam_management_v6_address, declared in only one of the VNF's templates.",
    ),
    beyond(
        "R-56287",
        "MUST",
        _OUTPUTS,
        "An OAM management address assigned by ONAP is output by echoing the parameter of "
        "the port's fixed_ips ip_address.",
    ),
    beyond(
        "R-48987",
        "MUST",
        _OUTPUTS,
        "An OAM management address assigned by the cloud is output from the port's "
        "ip_address attribute.",
    ),
)
