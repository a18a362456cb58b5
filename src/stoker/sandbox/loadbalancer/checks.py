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
