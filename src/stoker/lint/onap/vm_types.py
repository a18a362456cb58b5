"""ONAP's rules on the {vm-type} itself (beyond the seed).

A vm-type is what a server's resource id names (``{vm-type}_server_{index}``); in
parameter names it is what the image, flavor and name conventions put before their
suffix. Servers of one vm-type are one class of VM: the same image and flavor, the same
number of network attachments. A vm-type is written the same way (letter case) wherever
it appears, holds only letters, digits and underscores without ``int`` as a word, and is
not part of a network role.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from stoker.diagnostics import Diagnostic, Path, Span
from stoker.lint.context import TemplateContext
from stoker.lint.onap.base import FromRequirement, OneSpelling
from stoker.lint.onap.nova import parameter_vm_types, servers, typed_servers
from stoker.lint.onap.requirements import requirement
from stoker.lint.onap.resource_ids import network_roles
from stoker.lint.onap.written import INT_WORD, NAME_CHARACTERS, parameter_read, property_at
from stoker.lint.rule import TemplateRule
from stoker.template.nodes import value_span


def _parameter_vm_types(ctx: TemplateContext) -> Iterator[tuple[str, str, Span | None, Path]]:
    """(vm-type, parameter, where, path) for each image, flavor or name parameter a server
    reads whose name follows its convention."""
    for server in servers(ctx):
        for prop, parameter, vm_type in parameter_vm_types(server):
            yield vm_type, parameter, *property_at(server, prop)


class VmTypeClass(FromRequirement, TemplateRule):
    requirement = requirement("R-01455")
    summary = "Servers of one vm-type share image, flavor and number of network attachments"
    checks = (
        "the OS::Nova::Servers of one vm-type (by their resource ids) in a template read the "
        "same image and flavor (same parameter, or same value written in) and take the same "
        "number of networks. Their volume attachments and address configuration are not "
        "compared."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        first: dict[str, Any] = {}
        for vm_type, _, server in typed_servers(ctx):
            model = first.setdefault(vm_type, server)
            if model is server:
                continue
            for prop in ("image", "flavor", "networks"):
                mine, theirs = _shape(server, prop), _shape(model, prop)
                if mine != theirs:
                    yield self.finding(
                        f'server "{server.name}" differs from "{model.name}" in {prop} '
                        f"({mine} against {theirs}); servers of one vm-type are one class "
                        "of VM",
                        value_span(server.properties, prop) or server.span,
                        (*server.path, "properties", prop),
                    )


def _shape(server: Any, prop: str) -> str:
    value = server.properties.get(prop)
    if prop == "networks":
        return f"{len(value) if isinstance(value, list) else 0} network(s)"
    parameter = parameter_read(value)
    return f"parameter {parameter}" if parameter is not None else repr(value)


class VmTypeCharacters(FromRequirement, TemplateRule):
    requirement = requirement("R-98407")
    summary = "A vm-type holds only letters, digits and underscores, and no int_ / _int"
    checks = (
        "each vm-type a server's resource id names holds only letters, digits and "
        "underscores, and not int as a word of it (int_, _int, _int_)."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for vm_type, _, server in typed_servers(ctx):
            if not NAME_CHARACTERS.match(vm_type) or INT_WORD.search(vm_type):
                yield self.finding_at(
                    f'server "{server.name}": its vm-type "{vm_type}" may hold only letters, '
                    "digits and underscores, and not int_ or _int",
                    server,
                )


class VmTypeNotInNetworkRole(FromRequirement, TemplateRule):
    requirement = requirement("R-48067")
    summary = "A vm-type is not a substring of a network role"
    checks = (
        "no vm-type a server's resource id names is part of a network role the package "
        "names (ports, interfaces, internal networks, network parameters)."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        roles = network_roles(ctx.package)
        for vm_type, _, server in typed_servers(ctx):
            inside = sorted(role for role in roles if vm_type in role)
            if inside:
                yield self.finding_at(
                    f'server "{server.name}": its vm-type "{vm_type}" is part of the network '
                    f"role{'s' if len(inside) > 1 else ''} {', '.join(inside)}",
                    server,
                )


class _SameCase(OneSpelling):
    noun = "vm-type"


class VmTypeCaseInParameters(_SameCase):
    requirement = requirement("R-32394")
    summary = "A vm-type has one letter case across parameter names"
    checks = (
        "the vm-type in the image, flavor and name parameters servers read is written in "
        "the same letter case across the package."
    )

    def spellings(self, template: TemplateContext) -> Iterator[tuple[str, str, Span | None, Path]]:
        for vm_type, parameter, span, path in _parameter_vm_types(template):
            yield vm_type, f'parameter "{parameter}"', span, path


class VmTypeCaseInResourceIds(_SameCase):
    requirement = requirement("R-46839")
    summary = "A vm-type has one letter case across resource ids"
    checks = "the vm-type in servers' resource ids is written in the same letter case."

    def spellings(self, template: TemplateContext) -> Iterator[tuple[str, str, Span | None, Path]]:
        for vm_type, _, server in typed_servers(template):
            yield vm_type, f'server "{server.name}"', server.span, server.path


class VmTypeCaseMatches(FromRequirement, TemplateRule):
    requirement = requirement("R-36687")
    summary = "A vm-type's case in parameter names matches its case in resource ids"
    checks = (
        "where a server's image, flavor or name parameter names its vm-type in other "
        "letters' case than the server's resource id, a warning."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for vm_type, _, server in typed_servers(ctx):
            for prop, parameter, named in parameter_vm_types(server):
                if named != vm_type and named.lower() == vm_type.lower():
                    yield self.finding(
                        f'server "{server.name}" reads {prop} from "{parameter}", whose '
                        f'vm-type "{named}" differs in case from "{vm_type}"',
                        *property_at(server, prop),
                    )


VM_TYPE_RULES: list[type] = [
    VmTypeClass,
    VmTypeCharacters,
    VmTypeNotInNetworkRole,
    VmTypeCaseInParameters,
    VmTypeCaseInResourceIds,
    VmTypeCaseMatches,
]
