"""One ONAP requirement as data: id, keyword (hence severity), validation mode, text.

Its own module so that the seed's table (`requirements`) and the naming conventions
beyond it (`naming`) share the type without importing each other.
"""

from __future__ import annotations

from typing import NamedTuple

from stoker.diagnostics import Severity

#: keyword -> severity (MUST / MUST NOT: error, SHOULD / SHOULD NOT: warning, MAY: info)
KEYWORD_SEVERITY = {
    "MUST": Severity.ERROR,
    "MUST NOT": Severity.ERROR,
    "SHOULD": Severity.WARNING,
    "SHOULD NOT": Severity.WARNING,
    "MAY": Severity.INFO,
    "MAY NOT": Severity.INFO,
}
SOURCE_DOCUMENT = "ONAP VNF Requirements, 5.2.2 ONAP Heat Orchestration Template Format"
#: why a MAY requirement is not checked
PERMISSION = "a MAY permission: nothing a template does can violate it"
#: sections of ONAP's naming conventions that several tables cite
NAMING = "5.2.3 ONAP Heat Resource ID and Parameter Naming Convention"
NOVA = f"{NAMING}: OS::Nova::Server"
META = NOVA + " metadata"
IDS = f"{NAMING}: Resource IDs"


class Requirement(NamedTuple):
    id: str
    keyword: str
    validation_mode: str | None  # "static", "none", or None when the document gives none
    section: str
    text: str
    #: why stoker does not check it (None for the static ones, which are rules)
    not_checked: str | None = None
    #: False when ``text`` summarises the requirement in stoker's words (beyond the seed)
    quoted: bool = True

    @property
    def severity(self) -> Severity:
        return KEYWORD_SEVERITY[self.keyword]

    @property
    def static(self) -> bool:
        """ONAP's own validation checks it statically."""
        return self.validation_mode == "static"

    @property
    def checked(self) -> bool:
        """stoker has a rule for it (every requirement a static check can decide, whatever
        ONAP's validation_mode; the others say why none can)."""
        return self.not_checked is None


def beyond(rid: str, keyword: str, section: str, text: str) -> Requirement:
    """A requirement beyond the seed, summarised in stoker's words (not quoted)."""
    return Requirement(rid, keyword, "static", section, text, quoted=False)


#: what ONAP's conventions say of a parameter and the environment file
NOT_IN_ENVIRONMENT = "is not enumerated in the environment file (ONAP supplies it)."
IN_ENVIRONMENT = "is enumerated in the environment file (the VNF's own addresses)."


def enumeration(rid: str, section: str, subject: str, wanted: bool = False) -> Requirement:
    """The requirement that parameter ``subject`` is not enumerated in the environment file
    (ONAP supplies it) or, ``wanted``, that it is (the VNF's own addresses)."""
    if wanted:
        return beyond(rid, "MUST", section, f"{subject} {IN_ENVIRONMENT}")
    return beyond(rid, "MUST NOT", section, f"{subject} {NOT_IN_ENVIRONMENT}")


def unchecked(
    rid: str, keyword: str, section: str, text: str, reason: str, mode: str | None = None
) -> Requirement:
    """A requirement no static check can decide, with the reason (``mode``: ONAP's
    validation_mode, None where the document gives none)."""
    return Requirement(rid, keyword, mode, section, text, not_checked=reason, quoted=False)


#: ONAP's eight forms of an address parameter's name, on a Neutron port's fixed_ips
#: ip_address and a Contrail instance IP's instance_ip_address alike: (internal network,
#: IPv6, comma_delimited_list rather than string, form)
ADDRESS_FORMS = (
    (False, False, False, "{vm-type}_{network-role}_ip_{index}"),
    (False, False, True, "{vm-type}_{network-role}_ips"),
    (False, True, False, "{vm-type}_{network-role}_v6_ip_{index}"),
    (False, True, True, "{vm-type}_{network-role}_v6_ips"),
    (True, False, False, "{vm-type}_int_{network-role}_ip_{index}"),
    (True, False, True, "{vm-type}_int_{network-role}_ips"),
    (True, True, False, "{vm-type}_int_{network-role}_v6_ip_{index}"),
    (True, True, True, "{vm-type}_int_{network-role}_v6_ips"),
)
#: each form's requirements, in that order: (its name, whether it is in the environment file)
PORT_ADDRESS_IDS = (
    *(("R-40971", "R-39841"), ("R-04697", "R-98905"), ("R-71577", "R-87123")),
    *(("R-23503", "R-93030"), ("R-78380", "R-28795"), ("R-85235", "R-90206")),
    *(("R-27818", "R-97201"), ("R-29765", "R-98569")),
)
INSTANCE_IP_ADDRESS_IDS = (
    *(("R-100010", "R-100020"), ("R-100030", "R-100040"), ("R-100050", "R-100060")),
    *(("R-100070", "R-100080"), ("R-100090", "R-100100"), ("R-100110", "R-100120")),
    *(("R-100130", "R-100140"), ("R-100150", "R-100160")),
)
