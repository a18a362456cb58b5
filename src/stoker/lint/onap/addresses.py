"""ONAP's names for the parameters of a port's fixed_ips ip_address (beyond the seed).

Eight conventions: ONAP external or internal network, IPv4 or IPv6 (the parameter's name
says which: ``_v6_``), a string (one address, indexed from 0) or a comma_delimited_list.
ONAP supplies the external addresses (never in the environment file); the VNF's internal
addresses are its own (always there). Reserve ports are left out (see `ports`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import cache
from typing import Any, ClassVar

from stoker.diagnostics import Diagnostic, Span
from stoker.lint.context import TemplateContext
from stoker.lint.onap.base import DeclaredType
from stoker.lint.onap.nova import gaps
from stoker.lint.onap.ports import (
    PORT,
    RESERVE_PORT,
    Address,
    Enumeration,
    PortRule,
    ports,
    who,
)
from stoker.lint.onap.requirement import ADDRESS_FORMS, PORT_ADDRESS_IDS
from stoker.lint.onap.requirements import requirement
from stoker.lint.onap.written import declared_type
from stoker.patterns import LazyPattern


class AddressParameterType(PortRule, DeclaredType):
    requirement = requirement("R-34037")
    summary = "A port's fixed_ips ip_address parameter is a string or a comma_delimited_list"
    checks = (
        "the parameter each OS::Neutron::Port's fixed_ips entry reads for ip_address (by "
        "get_param, whole or indexed) is declared as string or comma_delimited_list."
    )
    types, once = ("string", "comma_delimited_list"), False

    def readers(self, ctx: TemplateContext) -> Iterator[tuple[str, Any]]:
        for port in ports(ctx, self.kind):
            for address in port.fixed:
                yield address.parameter, port

    def reader(self, holder: Any) -> str:
        return f'an ip_address of port "{holder.name}"'


# ---------------------------------------------------------------- fixed_ips ip_address


@cache  # eight forms, asked for by every rule on every address
def _address_form(internal: bool, v6: bool, listed: bool) -> LazyPattern:
    role = r"(?P<vm>.+?)_int_(?P<role>.+)" if internal else r"(?!.*_int_)(?P<vm>.+?)_(?P<role>.+)"
    version = "v6_" if v6 else ""
    tail = "ips" if listed else r"ip_(?P<index>\d+)"
    return LazyPattern(f"^{role}_{version}{tail}$")


class _AddressName(PortRule):
    """The fixed_ips ip_address parameters of one network kind, IP version and type."""

    internal: ClassVar[bool]
    v6: ClassVar[bool]
    listed: ClassVar[bool]  # comma_delimited_list (else string)
    form: ClassVar[str]

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        pattern = _address_form(self.internal, self.v6, self.listed)
        kind = "comma_delimited_list" if self.listed else "string"
        indexes: dict[str, list[tuple[int, Span | None]]] = {}
        seen: set[str] = set()
        for port in ports(ctx, self.kind):
            if port.internal is not self.internal or RESERVE_PORT.match(port.name):
                continue
            for address in port.fixed:
                parameter = address.parameter
                if ("_v6_" in parameter) is not self.v6 or declared_type(ctx, parameter) != kind:
                    continue
                match = pattern.match(parameter)
                if match is None:
                    yield self.finding_at(
                        f'{who(port)} reads an ip_address from "{parameter}"; '
                        f"the parameter must be named {self.form}",
                        address,
                    )
                elif not self.listed and parameter not in seen:
                    seen.add(parameter)
                    prefix = parameter[: match.start("index")]
                    indexes.setdefault(prefix, []).append((int(match["index"]), address.span))
        for prefix, found in indexes.items():
            yield from gaps(self, prefix, found)


def address_rule(
    rid: str, internal: bool, v6: bool, listed: bool, form: str, resource: str = PORT
) -> type[_AddressName]:
    """The rule for one form of address parameter names on ``resource`` (a Neutron port,
    or a Contrail instance IP, which follows the same conventions)."""
    network = "internal" if internal else "external"
    version = "IPv6" if v6 else "IPv4"
    kind = "comma_delimited_list" if listed else "string"
    prop = "fixed_ips ip_address" if resource == PORT else "instance_ip_address"
    checks = (
        f"a {kind} parameter that an {resource} on an ONAP {network} network reads "
        f"for a {prop}, {version} by its name ({'with' if v6 else 'without'} "
        f"_v6_), is named {form}"
        + ("" if listed else "; the indexes of one prefix are 0, 1, 2 ... without a gap")
        + "."
    )
    noun = "address" if resource == PORT else "instance IP"
    attributes = {
        "requirement": requirement(rid),
        "summary": f"{network.title()} network, {version} {kind.replace('comma_delimited_', '')} "
        f"{noun} parameter: {form}",
        "checks": checks,
        "kind": resource,
        "internal": internal,
        "v6": v6,
        "listed": listed,
        "form": form,
        "__doc__": f"{rid}: {form}.",
        "__module__": __name__,
    }
    name = f"{network.title()}{'V6' if v6 else 'V4'}{'List' if listed else 'String'}Address"
    return type(("Contrail" if resource != PORT else "") + name, (_AddressName,), attributes)


ADDRESS_NAME_RULES: list[type] = [
    address_rule(rid, *form) for (rid, _), form in zip(PORT_ADDRESS_IDS, ADDRESS_FORMS, strict=True)
]


class _AddressEnumeration(Enumeration):
    """fixed_ips ip_address parameters of one network kind, and optionally one form."""

    internal: ClassVar[bool]
    pattern: ClassVar[LazyPattern | None] = None

    def parameters(self, ctx: TemplateContext) -> Iterator[Address]:
        for port in ports(ctx, self.kind):
            if port.internal is not self.internal or RESERVE_PORT.match(port.name):
                continue
            for address in port.fixed:
                if self.pattern is None or self.pattern.match(address.parameter):
                    yield address


class ExternalAddressesNotInEnvironment(_AddressEnumeration):
    requirement = requirement("R-62590")
    summary = "An external network's fixed_ips address parameters are not in the environment"
    checks = (
        "no fixed_ips ip_address parameter of an OS::Neutron::Port on an ONAP external "
        "network is in the module's environment file."
    )
    internal, wanted = False, False


class InternalAddressesInEnvironment(_AddressEnumeration):
    requirement = requirement("R-93496")
    summary = "An internal network's fixed_ips address parameters are in the environment"
    checks = (
        "every fixed_ips ip_address parameter of an OS::Neutron::Port on an ONAP internal "
        "network is in the module's environment file (modules that have one)."
    )
    internal, wanted = True, True


def enumeration_rule(
    rid: str, internal: bool, v6: bool, listed: bool, form: str, resource: str = PORT
) -> type:
    """The environment-file rule for one form of address parameter names on ``resource``."""
    wanted = internal
    where = "in" if wanted else "not in"
    prop = "fixed_ips ip_address" if resource == PORT else "instance_ip_address"
    attributes = {
        "requirement": requirement(rid),
        "summary": f"A {form} parameter is {where} the environment file"
        + ("" if resource == PORT else " (Contrail)"),
        "checks": (
            f"a {prop} parameter named {form} (of an {resource} on an ONAP "
            f"{'internal' if internal else 'external'} network) is {where} the module's "
            "environment file."
        ),
        "kind": resource,
        "internal": internal,
        "wanted": wanted,
        "pattern": _address_form(internal, v6, listed),
        "__doc__": f"{rid}: {form}, {where} the environment.",
        "__module__": __name__,
    }
    name = f"{'Internal' if internal else 'External'}{'V6' if v6 else 'V4'}"
    name += f"{'List' if listed else 'String'}Enumeration"
    return type(("Contrail" if resource != PORT else "") + name, (_AddressEnumeration,), attributes)


ADDRESS_ENUMERATION_RULES: list[type] = [
    enumeration_rule(rid, *form)
    for (_, rid), form in zip(PORT_ADDRESS_IDS, ADDRESS_FORMS, strict=True)
]

ADDRESS_RULES: list[type] = [
    AddressParameterType,
    *ADDRESS_NAME_RULES,
    ExternalAddressesNotInEnvironment,
    InternalAddressesInEnvironment,
    *ADDRESS_ENUMERATION_RULES,
]
