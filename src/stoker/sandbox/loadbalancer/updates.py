"""What an update (PUT) of each Octavia object may change, checked as on create."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stoker.sandbox.loadbalancer import checks
from stoker.sandbox.loadbalancer.kinds import (
    L7POLICY,
    L7RULE,
    LISTENER,
    LOADBALANCER,
    MEMBER,
    MONITOR,
    POOL,
)

#: what PUT may change, by kind, besides its tags (others are refused as Octavia's types
#: refuse them)
_COMMON = ("name", "description", "admin_state_up")
_CHANGEABLE: dict[str, tuple[str, ...]] = {
    LOADBALANCER: (*_COMMON, "vip_qos_policy_id"),
    LISTENER: (
        *_COMMON,
        "connection_limit",
        "default_pool_id",
        "default_tls_container_ref",
        "sni_container_refs",
        "allowed_cidrs",
        "insert_headers",
        "timeout_client_data",
        "timeout_member_connect",
        "timeout_member_data",
        "timeout_tcp_inspect",
    ),
    POOL: (
        *_COMMON,
        "lb_algorithm",
        "session_persistence",
        "tls_enabled",
        "tls_container_ref",
        "ca_tls_container_ref",
        "crl_container_ref",
    ),
    MEMBER: ("name", "admin_state_up", "weight", "backup", "monitor_address", "monitor_port"),
    MONITOR: (
        "name",
        "admin_state_up",
        "delay",
        "timeout",
        "max_retries",
        "max_retries_down",
        "http_method",
        "url_path",
        "expected_codes",
        "http_version",
        "domain_name",
    ),
    L7POLICY: (
        *_COMMON,
        "action",
        "position",
        "redirect_pool_id",
        "redirect_url",
        "redirect_prefix",
        "redirect_http_code",
    ),
    L7RULE: ("admin_state_up", "type", "compare_type", "key", "value", "invert"),
}
UPDATABLE = {kind: (*names, "tags") for kind, names in _CHANGEABLE.items()}


def checked(kind: str, body: Mapping[str, Any]) -> dict[str, Any]:
    """The changes ``body`` asks, checked (400 for a field the kind cannot change)."""
    for name in body:
        if name not in UPDATABLE[kind]:
            raise checks.invalid(name, body[name], "Cannot be updated.")
    changes = dict(body)
    for name in ("name", "description"):
        if name in changes:
            changes[name] = checks.text(changes, name)
    if "admin_state_up" in changes:
        changes["admin_state_up"] = checks.boolean(changes, "admin_state_up", True)
    if "tags" in changes:
        changes["tags"] = checks.tags(changes)
    if kind == POOL:
        if "lb_algorithm" in changes:
            checks.choice(changes, "lb_algorithm", checks.ALGORITHMS)
        if "session_persistence" in changes:
            changes["session_persistence"] = checks.persistence(changes["session_persistence"])
    if kind == MEMBER:
        if "weight" in changes:
            changes["weight"] = checks.integer(changes, "weight", 1, minimum=0, maximum=256)
        if "monitor_address" in changes:
            changes["monitor_address"] = checks.address(changes, "monitor_address")
    if kind == MONITOR:
        for name in ("delay", "timeout"):
            if name in changes:
                changes[name] = checks.integer(changes, name, minimum=0)
        if "max_retries" in changes:
            changes["max_retries"] = checks.integer(changes, "max_retries", minimum=1, maximum=10)
        if "http_method" in changes:
            checks.choice(changes, "http_method", checks.HTTP_METHODS)
    if kind == LISTENER:
        if "connection_limit" in changes:
            changes["connection_limit"] = checks.integer(
                changes, "connection_limit", -1, minimum=-1
            )
        if "allowed_cidrs" in changes:
            changes["allowed_cidrs"] = checks.cidrs(changes["allowed_cidrs"])
    if kind == L7POLICY:
        checks.choice(changes, "action", checks.L7_ACTIONS)
        if "position" in changes:
            changes["position"] = checks.integer(changes, "position", minimum=1)
    if kind == L7RULE:
        checks.choice(changes, "type", checks.L7_RULE_TYPES)
        checks.choice(changes, "compare_type", checks.L7_COMPARE_TYPES)
        if "invert" in changes:
            changes["invert"] = checks.boolean(changes, "invert", False)
    return changes
