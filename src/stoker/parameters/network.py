"""Offline checks for Heat's address and DNS custom constraints.

Heat delegates these to netaddr and neutron-lib; the standard library's ``ipaddress`` gives
the same verdicts for the forms those accept, and the reasons below use their wording so a
failure reads the same as it would from Heat. Every check takes ``shown``, which renders a
value for a message (the mask for hidden parameters), and returns None when the value is
valid or the reason it is not.
"""

from __future__ import annotations

import ipaddress
import re
from typing import TYPE_CHECKING, Any

from stoker.parameters.checks import Shown
from stoker.patterns import LazyPattern

if TYPE_CHECKING:  # ipaddress is imported when an address is checked
    import ipaddress

_WHITESPACE = LazyPattern(r"\s")


def ip_addr(value: Any, shown: Shown) -> str | None:
    """``ip_addr``: an IPv4 or IPv6 address (no leading zeros, no zone, no spaces)."""
    if not isinstance(value, str) or _ip_address_problem(value, shown) is not None:
        return "Invalid IP address"
    return None


def mac_addr(value: Any, shown: Shown) -> str | None:
    """``mac_addr``: a 48-bit MAC address in one of the notations netaddr accepts."""
    if isinstance(value, str) and any(form.match(value) for form in _MAC_FORMATS):
        return None
    return "Invalid MAC address."


def net_cidr(value: Any, shown: Shown) -> str | None:
    """``net_cidr``: an address with a prefix length (host bits may be set)."""
    if not isinstance(value, str) or _interface(value) is None:
        return f"Invalid net cidr invalid IPNetwork {shown(value)}"
    return _subnet_problem(value, shown)


def ip_or_cidr(value: Any, shown: Shown) -> str | None:
    """``ip_or_cidr``: ``net_cidr`` rules when there is a ``/``, ``ip_addr`` rules otherwise."""
    if not isinstance(value, str):
        return f"{shown(value)} is not a valid IP or CIDR"
    if "/" in value:
        return _subnet_problem(value, shown)
    return _ip_address_problem(value, shown)


def _ip_address_problem(data: str, shown: Shown) -> str | None:
    """neutron-lib's ``validate_ip_address``, which Heat's IP constraints call."""
    invalid = f"'{shown(data)}' is not a valid IP address"
    if _WHITESPACE.search(data) or "%" in data:
        return invalid
    if ":" not in data and data.count(".") != 3:
        return invalid

    try:
        ipaddress.ip_address(data)
    except ValueError:
        zero_filled = _zero_filled_ipv4(data)
        if zero_filled is None:
            return invalid
        # neutron rejects leading zeros as ambiguous (octal or decimal?) and says why.
        return (
            f"'{shown(data)}' is not an accurate IP address, '{shown(zero_filled)}' is recommended"
        )
    return None


def _zero_filled_ipv4(data: str) -> str | None:
    parts = data.split(".")
    if len(parts) != 4 or not all(part.isascii() and part.isdigit() for part in parts):
        return None
    numbers = [int(part) for part in parts]
    if any(number > 255 for number in numbers):
        return None
    return ".".join(str(number) for number in numbers)


def _interface(data: str) -> ipaddress.IPv4Interface | ipaddress.IPv6Interface | None:
    if _WHITESPACE.search(data) or "%" in data:
        return None
    try:
        return ipaddress.ip_interface(data)
    except ValueError:
        return None


def _subnet_problem(data: str, shown: Shown) -> str | None:
    """neutron-lib's ``validate_subnet``: a prefix is required and IPv4 must be canonical."""
    interface = _interface(data)
    if interface is None:
        return f"'{shown(data)}' is not a valid IP subnet"
    if "/" not in data or (interface.version == 4 and str(interface) != data):
        return (
            f"'{shown(data)}' isn't a recognized IP subnet cidr, "
            f"'{shown(interface.network)}' is recommended"
        )
    return None


def _mac_forms() -> list[LazyPattern]:
    def joined(separator: str, group: str, count: int) -> LazyPattern:
        return LazyPattern("^" + separator.join([group] * count) + "$", re.IGNORECASE)

    return [
        joined(":", "[0-9A-F]{1,2}", 6),
        joined("-", "[0-9A-F]{1,2}", 6),
        joined(":", "[0-9A-F]{1,4}", 3),
        joined("-", "[0-9A-F]{1,4}", 3),
        joined(r"\.", "[0-9A-F]{1,4}", 3),
        joined("-", "[0-9A-F]{5,6}", 2),
        joined(":", "[0-9A-F]{5,6}", 2),
        LazyPattern(r"^[0-9A-F]{11,12}$", re.IGNORECASE),
    ]


_MAC_FORMATS = _mac_forms()

# --------------------------------------------------------------------------- DNS

FQDN_MAX_LEN = 255
DNS_LABEL_MAX_LEN = 63
_DNS_LABEL = LazyPattern(rf"[a-z0-9-]{{1,{DNS_LABEL_MAX_LEN}}}$")
_ALL_DIGITS = LazyPattern(r"^[0-9]+$")


def dns_name(value: Any, shown: Shown) -> str | None:
    """``dns_name``: labels of lowercase letters, digits and hyphens; a trailing dot is ok."""
    if not isinstance(value, str):
        return f"'{shown(value)}' not in valid format. Reason: a DNS name must be a string"
    reason = _dns_format_problem(value, shown)
    if reason is not None:
        return f"'{shown(value)}' not in valid format. Reason: {reason}"
    return None


def rel_dns_name(value: Any, shown: Shown) -> str | None:
    """``rel_dns_name``: a relative name (no trailing dot) that leaves room for a domain."""
    if not value:
        return None
    if not isinstance(value, str):
        return dns_name(value, shown)
    if value.endswith("."):
        return f"'{shown(value)}' is a FQDN. It should be a relative domain name."
    if len(value) > FQDN_MAX_LEN - 3:
        return (
            f"'{shown(value)}' contains '{len(value)}' characters. Adding a domain name will "
            f"cause it to exceed the maximum length of a FQDN of '{FQDN_MAX_LEN}'."
        )
    return dns_name(value, shown)


def dns_domain(value: Any, shown: Shown) -> str | None:
    """``dns_domain``: a valid DNS name that ends with a dot."""
    if not value:
        return None
    problem = dns_name(value, shown)
    if problem is not None:
        return problem
    if not value.endswith("."):
        return f"'{shown(value)}' must end with '.'."
    return None


def _dns_format_problem(data: str, shown: Shown) -> str | None:
    """Heat's ``netutils.validate_dns_format``."""
    if not data:
        return None
    trimmed = data[:-1] if data.endswith(".") else data
    if len(trimmed) > FQDN_MAX_LEN:
        return f"'{shown(trimmed)}' exceeds the {FQDN_MAX_LEN} character FQDN limit"
    names = trimmed.split(".")
    for name in names:
        if not name:
            return "Encountered an empty component."
        if name.startswith("-") or name.endswith("-"):
            return f"Name '{shown(name)}' must not start or end with a hyphen."
        if not _DNS_LABEL.match(name):
            return (
                f"Name '{shown(name)}' must be 1-{DNS_LABEL_MAX_LEN} characters long, each of "
                "which can only be alphanumeric or a hyphen."
            )
    # RFC 1123 hints that a top-level domain is never all digits.
    if len(names) > 1 and _ALL_DIGITS.match(names[-1]):
        return f"TLD '{shown(names[-1])}' must not be all numeric."
    return None
