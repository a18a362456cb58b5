"""How Octavia's API refuses a body (its WSME types answer 400 with these words), and
the errors it raises for objects, so the backend reads as Octavia's rules, not as parsing."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from typing import Any

from stoker.sandbox.http_errors import BadRequest, Conflict, NotFound

#: what Octavia accepts, by field
LISTENER_PROTOCOLS = ("HTTP", "HTTPS", "TCP", "TERMINATED_HTTPS", "UDP", "SCTP", "PROMETHEUS")
POOL_PROTOCOLS = ("HTTP", "HTTPS", "PROXY", "PROXYV2", "TCP", "UDP", "SCTP")
ALGORITHMS = ("ROUND_ROBIN", "LEAST_CONNECTIONS", "SOURCE_IP", "SOURCE_IP_PORT")
MONITOR_TYPES = ("HTTP", "HTTPS", "PING", "TCP", "TLS-HELLO", "UDP-CONNECT", "SCTP")
HTTP_METHODS = ("GET", "HEAD", "POST", "PUT", "DELETE", "TRACE", "OPTIONS", "CONNECT", "PATCH")
PERSISTENCE_TYPES = ("SOURCE_IP", "HTTP_COOKIE", "APP_COOKIE")
L7_ACTIONS = ("REJECT", "REDIRECT_TO_POOL", "REDIRECT_TO_URL", "REDIRECT_PREFIX")
L7_RULE_TYPES = ("HOST_NAME", "PATH", "FILE_TYPE", "HEADER", "COOKIE", "SSL_CONN_HAS_CERT",
                 "SSL_VERIFY_RESULT", "SSL_DN_FIELD")  # fmt: skip
L7_COMPARE_TYPES = ("REGEX", "STARTS_WITH", "ENDS_WITH", "CONTAINS", "EQUAL_TO")
#: the pool protocols a listener of each protocol may send to (Octavia's compatibility map)
COMPATIBLE = {
    "HTTP": ("HTTP", "PROXY", "PROXYV2"),
    "HTTPS": ("HTTPS", "PROXY", "PROXYV2", "TCP"),
    "TCP": ("HTTP", "HTTPS", "PROXY", "PROXYV2", "TCP"),
    "TERMINATED_HTTPS": ("HTTP", "PROXY", "PROXYV2"),
    "UDP": ("UDP",),
    "SCTP": ("SCTP",),
    "PROMETHEUS": (),
}


def invalid(name: str, value: Any, why: str) -> BadRequest:
    return BadRequest(f"Invalid input for field/attribute {name}. Value: '{value}'. {why}")


def required(body: Mapping[str, Any], name: str) -> Any:
    value = body.get(name)
    if value is None:
        raise invalid(name, None, "Mandatory field missing.")
    return value


def choice(body: Mapping[str, Any], name: str, allowed: Iterable[str], default: Any = None) -> Any:
    value = body.get(name, default)
    if value is None:
        return None
    options = tuple(allowed)
    if value not in options:
        raise invalid(name, value, f"Value should be one of: {', '.join(options)}")
    return value


def integer(
    body: Mapping[str, Any],
    name: str,
    default: int | None = None,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
) -> int | None:
    value = body.get(name, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            value = int(str(value))
        except ValueError:
            raise invalid(name, value, "Wrong type. Expected 'integer'") from None
    if minimum is not None and value < minimum:
        raise invalid(name, value, f"Value should be greater or equal to {minimum}")
    if maximum is not None and value > maximum:
        raise invalid(name, value, f"Value should be lower or equal to {maximum}")
    return int(value)


def boolean(body: Mapping[str, Any], name: str, default: bool) -> bool:
    value = body.get(name, default)
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "1", "yes", "on", "y", "t"):
        return True
    if text in ("false", "0", "no", "off", "n", "f"):
        return False
    raise invalid(name, value, "Wrong type. Expected 'bool'")


def text(body: Mapping[str, Any], name: str, default: str | None = "") -> str | None:
    value = body.get(name, default)
    if value is None:
        return default
    if not isinstance(value, str):
        raise invalid(name, value, "Wrong type. Expected 'str'")
    if len(value) > 255:
        raise invalid(name, value, "Value should have a maximum character requirement of 255")
    return value


def address(body: Mapping[str, Any], name: str) -> str | None:
    value = body.get(name)
    if value is None:
        return None
    try:
        return str(ipaddress.ip_address(str(value)))
    except ValueError:
        raise invalid(name, value, "Value should be IPv4 or IPv6 format") from None


def tags(body: Mapping[str, Any]) -> list[str]:
    value = body.get("tags")
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise invalid("tags", value, "Value should be a list of strings")
    return list(dict.fromkeys(value))


def not_found(label: str, id: str) -> NotFound:
    return NotFound(f"{label} {id} not found.")


def missing_subresource(label: str, id: str) -> BadRequest:
    """A referenced object that does not exist: 400, not 404 (Octavia's InvalidSubresource)."""
    return BadRequest(f"{label} {id} not found.")


def immutable(label: str, id: str) -> Conflict:
    return Conflict(f"{label} {id} is immutable and cannot be updated.")


def validation(message: str) -> BadRequest:
    return BadRequest(f"Validation failure: {message}")


def cidrs(value: Any) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise invalid("allowed_cidrs", value, "Value should be a list")
    result = []
    for cidr in value:
        try:
            result.append(str(ipaddress.ip_network(str(cidr), strict=False)))
        except ValueError:
            raise invalid("allowed_cidrs", cidr, "Value should be a valid CIDR") from None
    return result


def persistence(value: Any) -> dict[str, Any] | None:
    if value is None or value == {}:
        return None
    if not isinstance(value, dict):
        raise invalid("session_persistence", value, "Value should be a dictionary")
    kind = choice(value, "type", PERSISTENCE_TYPES)
    required(value, "type")
    cookie = value.get("cookie_name")
    if kind == "APP_COOKIE" and not cookie:
        raise validation("session_persistence cookie_name is required for APP_COOKIE.")
    if kind != "APP_COOKIE" and cookie:
        raise validation(
            f"session_persistence cookie_name is only valid with APP_COOKIE, not {kind}."
        )
    return {
        "type": kind,
        "cookie_name": cookie,
        "persistence_timeout": value.get("persistence_timeout"),
        "persistence_granularity": value.get("persistence_granularity"),
    }
