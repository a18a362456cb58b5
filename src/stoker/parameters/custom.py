"""Custom constraints (``custom_constraint: <name>``): an explicit registry of offline checks.

Heat resolves the name to a plugin; most plugins ask a cloud service whether something
exists (``nova.flavor``, ``glance.image``), which stoker cannot know offline. Those, and names
stoker does not know at all, come out as "not checked" so callers can say so honestly rather
than pretend the value passed. The cloud-free ones Heat ships are implemented for real.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from enum import StrEnum
from typing import Any, NamedTuple

from stoker.limits import json_value
from stoker.parameters import cron, datetimes, network
from stoker.parameters.checks import CustomCheck, NotCheckable, Shown
from stoker.parameters.model import MASK

# fmt: off
CLOUD_CONSTRAINTS: frozenset[str] = frozenset({
    "barbican.container", "barbican.secret", "blazar.reservation", "cinder.backup",
    "cinder.qos_specs", "cinder.snapshot", "cinder.volume", "cinder.vtype", "designate.domain",
    "designate.zone", "glance.image", "heat.resource_type", "keystone.domain", "keystone.group",
    "keystone.project", "keystone.region", "keystone.role", "keystone.service", "keystone.user",
    "magnum.baymodel", "magnum.cluster_template", "manila.share_network", "manila.share_snapshot",
    "manila.share_type", "mistral.workflow", "monasca.notification", "neutron.address_scope",
    "neutron.flow_classifier", "neutron.lb.provider", "neutron.lbaas.listener",
    "neutron.lbaas.loadbalancer", "neutron.lbaas.pool", "neutron.lbaas.provider",
    "neutron.network", "neutron.port", "neutron.port_pair", "neutron.port_pair_group",
    "neutron.qos_policy", "neutron.router", "neutron.security_group", "neutron.segment",
    "neutron.subnet", "neutron.subnetpool", "neutron.taas.tap_flow", "neutron.taas.tap_service",
    "nova.flavor", "nova.host", "nova.keypair", "nova.network", "nova.server", "octavia.flavor",
    "octavia.flavorprofile", "octavia.l7policy", "octavia.listener", "octavia.loadbalancer",
    "octavia.pool", "sahara.cluster", "sahara.cluster_template", "sahara.data_source",
    "sahara.image", "sahara.job_binary", "sahara.job_type", "sahara.plugin", "senlin.cluster",
    "senlin.policy", "senlin.policy_type", "senlin.profile", "senlin.profile_type", "trove.flavor",
    "zun.container",
})
# fmt: on
"""Heat's custom constraints that look things up in a cloud service (its ``heat.constraints``)."""


class CheckStatus(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    NOT_CHECKED = "not_checked"


class CustomOutcome(NamedTuple):
    """The verdict on one value: ``message`` is the failure text, or why it was not checked."""

    status: CheckStatus
    message: str = ""


class CustomConstraintRegistry:
    """Named offline checks. Build one with `default_constraints` and pass it explicitly."""

    def __init__(
        self,
        checks: Mapping[str, CustomCheck] | None = None,
        *,
        cloud: Iterable[str] = (),
    ) -> None:
        self._checks: dict[str, CustomCheck] = {}
        self._cloud = frozenset(cloud)
        for name, check in (checks or {}).items():
            self.register(name, check)

    def register(self, name: str, check: CustomCheck) -> None:
        """Add a check; a name can be registered once (replacing one silently hides bugs)."""
        if name in self._checks:
            raise ValueError(f"custom constraint {name!r} is already registered")
        self._checks[name] = check

    def __contains__(self, name: object) -> bool:
        """Whether ``name`` can be checked offline."""
        return name in self._checks

    def provides(self, name: str) -> bool:
        """Is there a constraint of this name at all (checked offline or by a cloud)?

        Heat fails every value of a constraint no plugin provides, but only when it checks
        values for a create; its validate accepts the template.
        """
        return name in self._checks or name in self._cloud

    @property
    def names(self) -> frozenset[str]:
        return frozenset(self._checks)

    def check(self, name: str, value: Any, *, hidden: bool = False) -> CustomOutcome:
        """Check ``value`` against the constraint called ``name``.

        Failures read like Heat's ("Error validating value '<v>': <reason>"), with the value
        masked when ``hidden``.
        """

        def shown(item: object) -> str:
            return MASK if hidden else str(item)

        check = self._checks.get(name)
        if check is None:
            return CustomOutcome(CheckStatus.NOT_CHECKED, self._why_unknown(name))
        try:
            reason = check(value, shown)
        except NotCheckable as error:
            return CustomOutcome(CheckStatus.NOT_CHECKED, error.reason)
        if reason is None:
            return CustomOutcome(CheckStatus.PASSED)
        message = f"Error validating value '{shown(value)}'"
        return CustomOutcome(CheckStatus.FAILED, f"{message}: {reason}" if reason else message)

    def _why_unknown(self, name: str) -> str:
        if name in self._cloud:
            service = name.split(".", 1)[0]
            return f"it asks the cloud's {service} service"
        return (
            "stoker does not know this constraint; Heat rejects every value for it unless a "
            "plugin of that name is installed"
        )


def json_string(value: Any, shown: Shown) -> str | None:
    """``json_string``: a string holding a JSON document."""
    if not isinstance(value, str):
        return "Value must be a string holding JSON"
    try:
        json_value(value)
    except ValueError as error:
        return f"Value must be valid JSON: {error}"
    return None


def delay_seconds(value: Any, shown: Shown) -> str | None:
    """``test_constr``: Heat's test plugin sleeps ``value`` seconds then passes; no sleep here."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        return "test_constr needs a number of seconds"
    return None


#: the cloud constraints a chosen cloud can answer (see `cloud_checks`)
_CLOUD_CHECKS: ContextVar[Mapping[str, CustomCheck] | None] = ContextVar(
    "stoker_cloud_checks", default=None
)


#: the reasons the cloud's checks gave for the values they refused, in this block
_CLOUD_FINDINGS: ContextVar[set[str] | None] = ContextVar("stoker_cloud_findings", default=None)


@contextmanager
def cloud_checks(checks: Mapping[str, CustomCheck]) -> Iterator[None]:
    """Within this block, `default_constraints` checks the cloud constraints ``checks``
    names (``nova.flavor``...) instead of reporting them unchecked: a stack command with
    a cloud chosen sets it once, and every validation under it, however deep, asks the
    cloud."""
    findings: set[str] = set()

    def noting(check: CustomCheck) -> CustomCheck:
        def noted(value: Any, shown: Shown) -> str | None:
            reason = check(value, shown)
            if reason:
                findings.add(reason)
            return reason

        return noted

    token = _CLOUD_CHECKS.set({name: noting(check) for name, check in checks.items()})
    noted_token = _CLOUD_FINDINGS.set(findings)
    try:
        yield
    finally:
        _CLOUD_FINDINGS.reset(noted_token)
        _CLOUD_CHECKS.reset(token)


def cloud_refused(message: str) -> bool:
    """Whether ``message`` reports a value the cloud's checks refused (within
    `cloud_checks`): such a finding stops a stack command before anything is made, even
    where Heat would check the value later (a group member's, at its nested create)."""
    return any(reason in message for reason in _CLOUD_FINDINGS.get() or ())


def default_constraints(now: datetimes.Clock | None = None) -> CustomConstraintRegistry:
    """A registry with every cloud-free constraint Heat ships, knowing the cloud ones by name.

    ``now`` is the clock ``expiration`` compares with (an aware datetime; UTC now by default).
    """
    checks: dict[str, CustomCheck] = {
        "cron_expression": cron.cron_expression,
        "dns_domain": network.dns_domain,
        "dns_name": network.dns_name,
        "expiration": datetimes.expiration_check(now or datetimes.utc_now),
        "ip_addr": network.ip_addr,
        "ip_or_cidr": network.ip_or_cidr,
        "iso_8601": datetimes.iso_8601,
        "json_string": json_string,
        "mac_addr": network.mac_addr,
        "net_cidr": network.net_cidr,
        "rel_dns_name": network.rel_dns_name,
        "test_constr": delay_seconds,
        "timezone": datetimes.timezone_name,
    }
    checks.update(_CLOUD_CHECKS.get() or {})
    return CustomConstraintRegistry(checks, cloud=CLOUD_CONSTRAINTS)
