"""ONAP's rules on the {network-role} itself (beyond the seed).

A network role appears in resource ids (ports ``..._{network-role}_port_{index}``,
Contrail interfaces ``..._vmi_{index}``, internal networks ``int_{network-role}_network``)
and in parameter names (``{network-role}_net_id``, ``_net_name``, ``_net_fqdn``,
``_subnet_id``); ``int_`` before it marks an internal network and is not part of it. A
role holds only letters, digits and underscores, is written the same way (letter case)
wherever it appears, and is not part of a vm-type.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import ClassVar, NamedTuple

from stoker.diagnostics import Diagnostic, Path, Span
from stoker.lint.context import TemplateContext
from stoker.lint.memo import memoized
from stoker.lint.onap.base import FromRequirement, OneSpelling
from stoker.lint.onap.ports import (
    NETWORK_ID,
    SUBNET_PARAMETER,
    id_role,
    interfaces,
    network_role,
)
from stoker.lint.onap.requirements import requirement
from stoker.lint.onap.resource_ids import vm_types
from stoker.lint.onap.written import INT_WORD, NAME_CHARACTERS, section
from stoker.lint.rule import TemplateRule
from stoker.patterns import LazyPattern
from stoker.template.nodes import key_span

_NUMBERED = LazyPattern(r"(_\d+_|_\d+$)")


class Mention(NamedTuple):
    role: str  # as written, without the int_ of an internal network
    in_id: bool  # in a resource id (else in a parameter name)
    where: str  # what names it, for messages
    span: Span | None
    path: Path


@memoized
def mentions(ctx: TemplateContext) -> list[Mention]:
    """Every network role the template writes, where it writes it (found once)."""
    return list(_find(ctx))


def _role(written: str) -> str:
    return written.removeprefix("int_")


def _find(ctx: TemplateContext) -> Iterator[Mention]:
    for port in interfaces(ctx):
        role = id_role(port)
        if role is not None:
            yield Mention(_role(role), True, f'resource "{port.name}"', port.span, port.path)
        for address in (*port.subnets,):
            named = SUBNET_PARAMETER.match(address.parameter)
            if named is not None:
                where = f'parameter "{address.parameter}"'
                yield Mention(_role(named["role"]), False, where, address.span, address.path)
        role = network_role(port)
        if role is not None:
            path = (*port.path, "properties")
            where = f'parameter "{port.network}"'
            yield Mention(_role(role), False, where, port.span, path)
    resources = section(ctx.data, "resources")
    for name in resources:
        match = NETWORK_ID.match(str(name))
        if match is not None:
            span = key_span(resources, name)
            yield Mention(match["role"], True, f'resource "{name}"', span, ("resources", str(name)))


class _RoleRule(FromRequirement, TemplateRule):
    """A rule on each network role a template writes (each role once per template)."""

    def problem(self, ctx: TemplateContext, role: str) -> str | None:
        raise NotImplementedError

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        seen: set[str] = set()
        for mention in mentions(ctx):
            if mention.role in seen:
                continue
            seen.add(mention.role)
            problem = self.problem(ctx, mention.role)
            if problem is not None:
                yield self.finding_at(
                    f'{mention.where} names the network role "{mention.role}", which {problem}',
                    mention,
                )


class NetworkRoleCharacters(_RoleRule):
    requirement = requirement("R-26506")
    summary = "A network role holds letters, digits, underscores; no int_, _v6 or _<n> parts"
    checks = (
        "each network role (after an internal network's int_) holds only letters, digits "
        "and underscores; no int as a word of it; does not end in _v6; has no _<number>_ "
        "and does not end in _<number>."
    )

    def problem(self, ctx: TemplateContext, role: str) -> str | None:
        if not NAME_CHARACTERS.match(role):
            return "may hold only letters, digits and underscores"
        if INT_WORD.search(role):
            return "must not contain int_, _int or _int_"
        if role.endswith("_v6"):
            return "must not end in _v6"
        if _NUMBERED.search(role):
            return "must not contain _<number>_ or end in _<number>"
        return None


class NetworkRoleNotInVmType(_RoleRule):
    requirement = requirement("R-00977")
    summary = "A network role is not a substring of a vm-type"
    checks = "no network role is part of a vm-type the package's servers name."

    def problem(self, ctx: TemplateContext, role: str) -> str | None:
        inside = sorted(vm for vm in vm_types(ctx.package) if role in vm)
        return f"is part of the vm-type {', '.join(inside)}" if inside else None


class _SameCase(OneSpelling):
    noun = "network role"
    in_id: ClassVar[bool]

    def spellings(self, template: TemplateContext) -> Iterator[tuple[str, str, Span | None, Path]]:
        for mention in mentions(template):
            if mention.in_id is self.in_id:
                yield mention.role, mention.where, mention.span, mention.path


class NetworkRoleCaseInParameters(_SameCase):
    requirement = requirement("R-58424")
    summary = "A network role has one letter case across parameter names"
    checks = (
        "the network role in network, FQDN and subnet parameter names is written in the "
        "same letter case across the package."
    )
    in_id = False


class NetworkRoleCaseInResourceIds(_SameCase):
    requirement = requirement("R-21511")
    summary = "A network role has one letter case across resource ids"
    checks = (
        "the network role in port, interface and internal network resource ids is written "
        "in the same letter case across the package."
    )
    in_id = True


class NetworkRoleCaseMatches(FromRequirement, TemplateRule):
    requirement = requirement("R-86588")
    summary = "A network role's case in parameter names matches its case in resource ids"
    checks = (
        "where a port's network parameter names its network role in other letters' case "
        "than the port's resource id, a warning."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for port in interfaces(ctx):
            mine, theirs = id_role(port), network_role(port)
            if mine is None or theirs is None:
                continue
            mine, theirs = _role(mine), _role(theirs)
            if mine != theirs and mine.lower() == theirs.lower():
                yield self.finding_at(
                    f'resource "{port.name}" writes the network role "{mine}", its network '
                    f'parameter "{port.network}" writes "{theirs}"',
                    port,
                )


NETWORK_ROLE_RULES: list[type] = [
    NetworkRoleCharacters,
    NetworkRoleNotInVmType,
    NetworkRoleCaseInParameters,
    NetworkRoleCaseInResourceIds,
    NetworkRoleCaseMatches,
]
