"""The offline custom constraints (heat-semantics §3) and the registry that holds them."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from stoker.parameters import (
    CLOUD_CONSTRAINTS,
    MASK,
    CheckStatus,
    CustomConstraintRegistry,
    NotCheckable,
    default_constraints,
)


def fixed_now() -> datetime:
    return datetime(2030, 6, 1, 12, 0, tzinfo=UTC)


REGISTRY = default_constraints(now=fixed_now)

PASSES: list[tuple[str, Any]] = [
    ("cron_expression", "*/5 * * * *"),
    ("cron_expression", "0 3 * * mon-fri"),
    ("cron_expression", "0 0 1,15 jan,jul *"),
    ("cron_expression", "0 12 L * 5L"),
    ("cron_expression", "0 0 ? * 1#2"),
    ("cron_expression", "0 0 * * 5-0"),
    ("cron_expression", "0 0 * * * 30"),
    ("cron_expression", "@daily"),
    ("cron_expression", ""),
    ("dns_domain", "example.com."),
    ("dns_domain", ""),
    ("dns_name", "www.example.com"),
    ("dns_name", "www.example.com."),
    ("dns_name", "a-b.c1"),
    ("expiration", "2031-01-01T00:00:00Z"),
    ("expiration", " 2030-06-01T13:00:00+00:00 "),
    ("expiration", ""),
    ("rel_dns_name", "www"),
    ("rel_dns_name", "web.internal"),
    ("ip_addr", "192.168.0.1"),
    ("ip_addr", "::1"),
    ("ip_addr", "fe80::1:2"),
    ("iso_8601", "2015-01-01"),
    ("iso_8601", "2015-01-01T10:20:30Z"),
    ("iso_8601", "2015-01-01 10:20:30.123+02:00"),
    ("iso_8601", "20150101T102030"),
    ("iso_8601", "2015"),
    ("mac_addr", "fa:16:3e:00:00:01"),
    ("mac_addr", "FA-16-3E-00-00-01"),
    ("mac_addr", "fa16.3e00.0001"),
    ("mac_addr", "fa163e000001"),
    ("net_cidr", "10.0.0.0/24"),
    ("net_cidr", "10.0.0.1/24"),
    ("net_cidr", "2001:db8::/32"),
    ("ip_or_cidr", "10.0.0.1"),
    ("ip_or_cidr", "10.0.0.0/8"),
    ("timezone", "Europe/Paris"),
    ("timezone", "UTC"),
    ("timezone", "america/new_york"),
    ("timezone", ""),
    ("json_string", '{"a": [1, 2]}'),
    ("json_string", "[]"),
    ("test_constr", 1),
    ("test_constr", 0.5),
]


@pytest.mark.parametrize(
    ("name", "value"), PASSES, ids=[f"{name}-{value!r}" for name, value in PASSES]
)
def test_valid_values_pass(name: str, value: Any) -> None:
    outcome = REGISTRY.check(name, value)
    assert outcome.status is CheckStatus.PASSED, outcome.message


CRON = "Invalid CRON expression: "
LABEL_RULE = "must be 1-63 characters long, each of which can only be alphanumeric or a hyphen."
LONG = "a" * 64

# (constraint, value, the reason after "Error validating value '<value>'", exact?)
FAILS: list[tuple[str, Any, str, bool]] = [
    (
        "cron_expression",
        "* * * *",
        CRON + "Exactly 5, 6 or 7 columns has to be specified for iterator expression.",
        True,
    ),
    ("cron_expression", "61 * * * *", CRON + "[61 * * * *] is not acceptable, out of range", True),
    ("cron_expression", "* * * foo *", CRON + "[* * * foo *] is not acceptable", True),
    ("cron_expression", "5-1 * * * *", CRON + "[5-1 * * * *] is not acceptable", True),
    ("cron_expression", "*/0 * * * *", CRON + "[*/0 * * * *] is not acceptable", True),
    ("dns_domain", "example.com", "'example.com' must end with '.'.", True),
    (
        "dns_domain",
        "exa_mple.com.",
        f"'exa_mple.com.' not in valid format. Reason: Name 'exa_mple' {LABEL_RULE}",
        True,
    ),
    (
        "dns_name",
        "a..b",
        "'a..b' not in valid format. Reason: Encountered an empty component.",
        True,
    ),
    (
        "dns_name",
        "-a.b",
        "'-a.b' not in valid format. Reason: Name '-a' must not start or end with a hyphen.",
        True,
    ),
    (
        "dns_name",
        "Upper.com",
        f"'Upper.com' not in valid format. Reason: Name 'Upper' {LABEL_RULE}",
        True,
    ),
    (
        "dns_name",
        "www.example.123",
        "'www.example.123' not in valid format. Reason: TLD '123' must not be all numeric.",
        True,
    ),
    ("dns_name", LONG, f"'{LONG}' not in valid format. Reason: Name '{LONG}' {LABEL_RULE}", True),
    ("dns_name", ("a" * 60 + ".") * 5, "the 255 character FQDN limit", False),
    (
        "expiration",
        "2020-01-01T00:00:00Z",
        "Expiration 2020-01-01T00:00:00Z is invalid: Expiration time is out of date.",
        True,
    ),
    (
        "expiration",
        "tomorrow",
        "Expiration tomorrow is invalid: Unable to parse date string 'tomorrow'",
        True,
    ),
    ("rel_dns_name", "www.", "'www.' is a FQDN. It should be a relative domain name.", True),
    (
        "rel_dns_name",
        "a" * 253,
        "characters. Adding a domain name will cause it to exceed the maximum length of a FQDN "
        "of '255'.",
        False,
    ),
    ("rel_dns_name", "a_b", f"'a_b' not in valid format. Reason: Name 'a_b' {LABEL_RULE}", True),
    ("ip_addr", "10.0.0.300", "Invalid IP address", True),
    ("ip_addr", "10.0.0", "Invalid IP address", True),
    ("ip_addr", "010.0.0.1", "Invalid IP address", True),
    ("ip_addr", "fe80::1%eth0", "Invalid IP address", True),
    ("ip_addr", " 10.0.0.1", "Invalid IP address", True),
    ("iso_8601", "2015-13-01", "", True),
    ("iso_8601", "yesterday", "", True),
    ("iso_8601", "201501", "", True),
    ("mac_addr", "fa:16:3e:00:00", "Invalid MAC address.", True),
    ("mac_addr", "zz:16:3e:00:00:01", "Invalid MAC address.", True),
    (
        "net_cidr",
        "10.0.0.0",
        "'10.0.0.0' isn't a recognized IP subnet cidr, '10.0.0.0/32' is recommended",
        True,
    ),
    ("net_cidr", "10.0.0.0/33", "Invalid net cidr invalid IPNetwork 10.0.0.0/33", True),
    (
        "net_cidr",
        "10.0.0.0/255.255.255.0",
        "'10.0.0.0/255.255.255.0' isn't a recognized IP subnet cidr, '10.0.0.0/24' is recommended",
        True,
    ),
    ("ip_or_cidr", "10.0.0.300", "'10.0.0.300' is not a valid IP address", True),
    (
        "ip_or_cidr",
        "010.0.0.1",
        "'010.0.0.1' is not an accurate IP address, '10.0.0.1' is recommended",
        True,
    ),
    ("ip_or_cidr", "10.0.0.0/40", "'10.0.0.0/40' is not a valid IP subnet", True),
    ("timezone", "Mars/Olympus_Mons", "Invalid timezone: 'Mars/Olympus_Mons'", True),
    ("json_string", "{nope", "Value must be valid JSON: Expecting property name", False),
    ("test_constr", "soon", "test_constr needs a number of seconds", True),
]


@pytest.mark.parametrize(
    ("name", "value", "reason", "exact"),
    FAILS,
    ids=[f"{name}-{value!r}"[:50] for name, value, _, _ in FAILS],
)
def test_invalid_values_fail_with_heat_wording(
    name: str, value: Any, reason: str, exact: bool
) -> None:
    outcome = REGISTRY.check(name, value)
    assert outcome.status is CheckStatus.FAILED
    prefix = f"Error validating value '{value}'"
    if exact:
        assert outcome.message == (f"{prefix}: {reason}" if reason else prefix)
    else:
        assert outcome.message.startswith(prefix)
        assert reason in outcome.message


@pytest.mark.parametrize("name", ["ip_addr", "dns_name", "cron_expression"])
def test_non_string_values_fail_cleanly(name: str) -> None:
    assert REGISTRY.check(name, ["a", "b"]).status is CheckStatus.FAILED


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("dns_name", "Top-Secret..x"),
        ("net_cidr", "10.99.99.99"),
        ("ip_or_cidr", "010.99.99.99"),
        ("expiration", "2001-02-03T04:05:06Z"),
        ("cron_expression", "99 99 99 99 99"),
        ("timezone", "Secret/Zone"),
        ("rel_dns_name", "secret-host."),
    ],
    ids=lambda item: str(item),
)
def test_hidden_values_are_masked_in_plugin_messages(name: str, value: str) -> None:
    outcome = REGISTRY.check(name, value, hidden=True)
    assert outcome.status is CheckStatus.FAILED
    assert MASK in outcome.message
    for fragment in (value, value.strip("."), "99.99", "Secret", "2001"):
        assert fragment not in outcome.message


@pytest.mark.parametrize("name", ["nova.flavor", "glance.image", "neutron.network", "nova.keypair"])
def test_cloud_constraints_are_not_checked(name: str) -> None:
    assert name in CLOUD_CONSTRAINTS
    outcome = REGISTRY.check(name, "anything")
    assert outcome.status is CheckStatus.NOT_CHECKED
    assert outcome.message == f"it asks the cloud's {name.split('.')[0]} service"


def test_unknown_constraints_are_not_checked_and_say_heat_needs_a_plugin() -> None:
    outcome = REGISTRY.check("acme.widget", "x")
    assert outcome.status is CheckStatus.NOT_CHECKED
    assert "stoker does not know this constraint" in outcome.message


def test_registry_is_explicit_and_refuses_duplicates() -> None:
    registry = CustomConstraintRegistry(
        {"even": lambda value, shown: None if value % 2 == 0 else "odd"}
    )
    assert "even" in registry and "ip_addr" not in registry
    assert registry.check("even", 4).status is CheckStatus.PASSED
    assert registry.check("even", 3).message == "Error validating value '3': odd"
    with pytest.raises(ValueError, match="already registered"):
        registry.register("even", lambda value, shown: None)
    # Each call builds a fresh registry: no shared mutable state between callers.
    assert default_constraints() is not default_constraints()
    assert "even" not in default_constraints()


def test_a_check_can_decline_to_decide() -> None:
    def needs_network(value: Any, shown: Any) -> str | None:
        raise NotCheckable("needs DNS resolution")

    registry = CustomConstraintRegistry({"resolvable": needs_network})
    outcome = registry.check("resolvable", "example.com")
    assert (outcome.status, outcome.message) == (CheckStatus.NOT_CHECKED, "needs DNS resolution")


def test_every_cloud_free_constraint_is_registered() -> None:
    assert REGISTRY.names == {
        "cron_expression",
        "dns_domain",
        "dns_name",
        "expiration",
        "rel_dns_name",
        "ip_addr",
        "iso_8601",
        "mac_addr",
        "net_cidr",
        "ip_or_cidr",
        "timezone",
        "json_string",
        "test_constr",
    }
