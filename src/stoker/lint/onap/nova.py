"""ONAP's naming conventions for OS::Nova::Server, beyond the seed's section 5.2.2.

A server is named by its resource id ``{vm-type}_server_{index}``; the parameters of its
image, flavor and name properties carry the same ``{vm-type}``; its availability_zone
parameter is ``availability_zone_{index}``; ONAP supplies the name and zone values (not the
environment file), the environment file supplies image and flavor. The rules read the
template as written (the same parsed nodes), so they apply to a file Heat rejects too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any, ClassVar, NamedTuple

from stoker.diagnostics import Diagnostic, Path, Span
from stoker.lint.context import TemplateContext
from stoker.lint.memo import memoized
from stoker.lint.onap.base import DeclaredType, FromRequirement, ParameterReaders
from stoker.lint.onap.enumerated import EnumerationRule
from stoker.lint.onap.modules import ModuleRole
from stoker.lint.onap.ports import PORT_ID
from stoker.lint.onap.requirements import requirement
from stoker.lint.onap.written import declared, parameter_read, property_at, resources_of, section
from stoker.lint.rule import TemplateRule
from stoker.patterns import LazyPattern
from stoker.template.nodes import key_span, value_span

SERVER = "OS::Nova::Server"
SERVER_ID = LazyPattern(r"^(?P<vm>.+)_server_(?P<index>\d+)$")
IMAGE = LazyPattern(r"^(?P<vm>.+)_image_name$")
FLAVOR = LazyPattern(r"^(?P<vm>.+)_flavor_name$")
NAME = LazyPattern(r"^(?P<vm>.+)_name_(?P<index>\d+)$")
NAMES = LazyPattern(r"^(?P<vm>.+)_names$")
ZONE = LazyPattern(r"^availability_zone_(?P<index>\d+)$")
#: the properties whose parameters state a vm-type, with the conventions of their names
VM_TYPE_PROPERTIES = (("image", (IMAGE,)), ("flavor", (FLAVOR,)), ("name", (NAME, NAMES)))


class Server(NamedTuple):
    name: str
    definition: dict[Any, Any]
    properties: dict[Any, Any]
    path: Path
    span: Span | None


@memoized
def servers(ctx: TemplateContext) -> list[Server]:
    """Each template's servers, found once for the thirty rules that read them."""
    found = []
    for name, definition, span in resources_of(ctx, SERVER):
        properties = section(definition, "properties")
        found.append(Server(name, definition, properties, ("resources", name), span))
    return found


def typed_servers(ctx: TemplateContext) -> Iterator[tuple[str, str, Server]]:
    """(vm-type, index, server) for each server whose resource id follows R-29751."""
    for server in servers(ctx):
        match = SERVER_ID.match(server.name)
        if match is not None:
            yield match["vm"], match["index"], server


def reading(ctx: TemplateContext, prop: str) -> Iterator[tuple[Server, str]]:
    """Each server whose ``prop`` is a get_param, with the parameter it reads."""
    for server in servers(ctx):
        parameter = parameter_read(server.properties.get(prop))
        if parameter is not None:
            yield server, parameter


def parameter_vm_types(server: Server) -> Iterator[tuple[str, str, str]]:
    """(property, parameter, the vm-type its name states) for each image, flavor and name
    parameter the server reads whose name follows its convention."""
    for prop, patterns in VM_TYPE_PROPERTIES:
        parameter = parameter_read(server.properties.get(prop))
        if parameter is None:
            continue
        for pattern in patterns:
            match = pattern.match(parameter)
            if match is not None:
                yield prop, parameter, match["vm"]
                break


class NovaRule(FromRequirement, TemplateRule):
    """A rule on the servers of a template, declared by its requirement."""


# ---------------------------------------------------------------- resource id, vm-type


class ServerResourceId(NovaRule):
    requirement = requirement("R-29751")
    summary = "An OS::Nova::Server's resource id is {vm-type}_server_{index}"
    checks = (
        "each OS::Nova::Server's resource id matches <vm-type>_server_<digits>, and within "
        "a template the indexes of one vm-type are 0, 1, 2 ... without a gap."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        indexes: dict[str, list[tuple[int, Server]]] = {}
        for server in servers(ctx):
            match = SERVER_ID.match(server.name)
            if match is None:
                yield self.finding_at(
                    f'server "{server.name}": its resource id must read '
                    "{vm-type}_server_{index}",
                    server,
                )
            else:
                indexes.setdefault(match["vm"], []).append((int(match["index"]), server))
        for vm_type, found in indexes.items():
            yield from gaps(self, f"{vm_type}_server_", found)


def gaps(rule: TemplateRule, prefix: str, found: list[tuple[int, Any]]) -> Iterator[Diagnostic]:
    """A finding at each index that leaves 0, 1, 2 ... (first seen wins)."""
    have = sorted({index for index, _ in found})
    expected = list(range(len(have)))
    if have == expected:
        return
    missing = sorted(set(range(max(have) + 1)) - set(have))
    reported: set[int] = set()
    for index, where in sorted(found, key=lambda item: item[0]):
        if index >= len(have) and index not in reported:
            reported.add(index)
            span = where.span if isinstance(where, Server) else where
            path = where.path if isinstance(where, Server) else ()
            yield rule.finding(
                f"{prefix}{index}: indexes start at 0 and go up by one "
                f"({', '.join(f'{prefix}{m}' for m in missing)} missing)",
                span,
                path,
            )


class ServerVmType(NovaRule):
    requirement = requirement("R-304011")
    summary = "A server's resource id and its image, flavor and name parameters share a vm-type"
    checks = (
        "for each OS::Nova::Server whose resource id reads {vm-type}_server_{index}, the "
        "parameters its image, flavor and name read, where they follow their own naming "
        "convention ({vm-type}_image_name, {vm-type}_flavor_name, {vm-type}_name_{index} "
        "or {vm-type}_names), carry that same vm-type; and each port its networks take "
        "(get_resource or get_attr) whose id reads {vm-type}_{vm-type_index}_..._port_"
        "{index} carries the same vm-type and, as its vm-type_index, the server's index."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for vm_type, index, server in typed_servers(ctx):
            for prop, parameter, named in parameter_vm_types(server):
                if named != vm_type:
                    yield self.finding(
                        f'server "{server.name}" (vm-type {vm_type}) reads {prop} from '
                        f'"{parameter}" (vm-type {named})',
                        *property_at(server, prop),
                    )
            yield from self._ports(server, vm_type, index)

    def _ports(self, server: Server, vm_type: str, index: str) -> Iterator[Diagnostic]:
        networks = server.properties.get("networks")
        for position, network in enumerate(networks if isinstance(networks, list) else ()):
            port = network.get("port") if isinstance(network, dict) else None
            target = _resource_named(port)
            named = PORT_ID.match(target) if target is not None else None
            if named is None or (named["vm"], named["vm_index"]) == (vm_type, index):
                continue
            assert isinstance(network, dict)
            yield self.finding(
                f'server "{server.name}" (vm-type {vm_type}, index {index}) takes port '
                f'"{target}" (vm-type {named["vm"]}, index {named["vm_index"]})',
                value_span(network, "port"),
                (*server.path, "properties", "networks", position, "port"),
            )


def _resource_named(value: Any) -> str | None:
    """The resource a ``get_resource`` or ``get_attr`` names."""
    if isinstance(value, dict) and len(value) == 1:
        argument = value.get("get_resource", value.get("get_attr"))
        if isinstance(argument, list) and argument:
            argument = argument[0]
        if isinstance(argument, str):
            return argument
    return None


# ---------------------------------------------------------------- property from get_param


class _FromParameter(NovaRule):
    prop: ClassVar[str]

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for server in servers(ctx):
            if self.prop in server.properties:
                value = server.properties[self.prop]
                if parameter_read(value) is None:
                    yield self.finding(
                        f'server "{server.name}": {self.prop} must be a get_param of a parameter',
                        *property_at(server, self.prop),
                    )


class ImageFromParameter(_FromParameter):
    requirement = requirement("R-901331")
    summary = "An OS::Nova::Server's image comes from a get_param"
    checks = "each OS::Nova::Server that sets image sets it to a get_param."
    prop = "image"


class FlavorFromParameter(_FromParameter):
    requirement = requirement("R-481670")
    summary = "An OS::Nova::Server's flavor comes from a get_param"
    checks = "each OS::Nova::Server that sets flavor sets it to a get_param."
    prop = "flavor"


class NameFromParameter(_FromParameter):
    requirement = requirement("R-663631")
    summary = "An OS::Nova::Server's name comes from a get_param"
    checks = "each OS::Nova::Server that sets name sets it to a get_param."
    prop = "name"


# ---------------------------------------------------------------- parameter types


class _PropertyReaders(NovaRule, ParameterReaders):
    """The parameters the servers' ``prop`` reads."""

    prop: ClassVar[str]

    def readers(self, ctx: TemplateContext) -> Iterator[tuple[str, Any]]:
        for server, parameter in reading(ctx, self.prop):
            yield parameter, server

    def reader(self, holder: Any) -> str:
        return f'the {self.prop} of server "{holder.name}"'


class _ParameterType(_PropertyReaders, DeclaredType):
    modules_only: ClassVar[bool] = False

    def readers(self, ctx: TemplateContext) -> Iterator[tuple[str, Any]]:
        if self.modules_only and ctx.role not in (ModuleRole.BASE, ModuleRole.INCREMENTAL):
            return iter(())
        return ((parameter, server) for parameter, server in super().readers(ctx) if parameter)


class ImageParameterType(_ParameterType):
    requirement = requirement("R-71152")
    summary = "The parameter of a server's image is a string"
    checks = "the parameter a server's image reads is declared with type string."
    prop, types = "image", ("string",)


class FlavorParameterType(_ParameterType):
    requirement = requirement("R-50436")
    summary = "The parameter of a server's flavor is a string"
    checks = "the parameter a server's flavor reads is declared with type string."
    prop, types = "flavor", ("string",)


class NameParameterType(_ParameterType):
    requirement = requirement("R-51430")
    summary = "The parameter of a server's name is a string or a comma_delimited_list"
    checks = "the parameter a server's name reads is a string or a comma_delimited_list."
    prop, types = "name", ("string", "comma_delimited_list")


class ZoneParameterType(_ParameterType):
    requirement = requirement("R-23311")
    summary = "The parameter of a server's availability_zone is a string (modules)"
    checks = (
        "in base and incremental modules, the parameter a server's availability_zone "
        "reads is declared with type string."
    )
    prop, types, modules_only = "availability_zone", ("string",), True


# ---------------------------------------------------------------- parameter names


class _ParameterName(NovaRule):
    prop: ClassVar[str]
    pattern: ClassVar[LazyPattern]
    form: ClassVar[str]

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for server, parameter in reading(ctx, self.prop):
            if not self.pattern.match(parameter):
                yield self.finding(
                    f'server "{server.name}" reads {self.prop} from "{parameter}"; the '
                    f"parameter must be named {self.form}",
                    *property_at(server, self.prop),
                )


class ImageParameterName(_ParameterName):
    requirement = requirement("R-58670")
    summary = "The parameter of a server's image is {vm-type}_image_name"
    checks = "the parameter a server's image reads is named <vm-type>_image_name."
    prop, pattern, form = "image", IMAGE, "{vm-type}_image_name"


class FlavorParameterName(_ParameterName):
    requirement = requirement("R-45188")
    summary = "The parameter of a server's flavor is {vm-type}_flavor_name"
    checks = "the parameter a server's flavor reads is named <vm-type>_flavor_name."
    prop, pattern, form = "flavor", FLAVOR, "{vm-type}_flavor_name"


def _indexed_names(
    ctx: TemplateContext, prop: str, pattern: LazyPattern, kinds: tuple[str, ...]
) -> Iterator[tuple[Server, str, re.Match[str] | None]]:
    """Servers whose ``prop`` reads a declared parameter of one of ``kinds``."""
    for server, parameter in reading(ctx, prop):
        definition = declared(ctx, parameter) if parameter else None
        if definition is not None and definition.get("type") in kinds:
            yield server, parameter, pattern.match(parameter)


class NameStringParameter(NovaRule):
    requirement = requirement("R-54171")
    summary = "A string parameter of a server's name is {vm-type}_name_{index}, from 0 up"
    checks = (
        "a string parameter a server's name reads is named <vm-type>_name_<digits>; within "
        "a template the indexes of one vm-type are 0, 1, 2 ... without a gap."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        indexes: dict[str, list[tuple[int, Span | None]]] = {}
        for server, parameter, match in _indexed_names(ctx, "name", NAME, ("string",)):
            where, path = property_at(server, "name")
            if match is None:
                yield self.finding(
                    f'server "{server.name}" reads name from "{parameter}", a string; the '
                    "parameter must be named {vm-type}_name_{index}",
                    where,
                    path,
                )
            else:
                indexes.setdefault(match["vm"], []).append((int(match["index"]), where))
        for vm_type, found in indexes.items():
            yield from gaps(self, f"{vm_type}_name_", found)


class NameListParameter(NovaRule):
    requirement = requirement("R-87817")
    summary = "A comma_delimited_list parameter of a server's name is {vm-type}_names"
    checks = "a comma_delimited_list parameter a server's name reads is named <vm-type>_names."

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        kinds = ("comma_delimited_list",)
        for server, parameter, match in _indexed_names(ctx, "name", NAMES, kinds):
            if match is None:
                yield self.finding(
                    f'server "{server.name}" reads name from "{parameter}", a '
                    "comma_delimited_list; the parameter must be named {vm-type}_names",
                    *property_at(server, "name"),
                )


class ZoneParameterName(_ParameterName):
    requirement = requirement("R-98450")
    summary = "A server's availability_zone parameter is availability_zone_{index}, from 0 up"
    checks = (
        "in base and incremental modules, the parameter a server's availability_zone reads "
        "is named availability_zone_<digits>, and the availability_zone_<index> parameters "
        "the template declares or reads number 0, 1, 2 ... without a gap. Nested files may "
        "rename it (R-256790)."
    )
    prop, pattern, form = "availability_zone", ZONE, "availability_zone_{index}"

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        if ctx.role not in (ModuleRole.BASE, ModuleRole.INCREMENTAL):
            return
        yield from super().check(ctx)
        found: list[tuple[int, Span | None]] = []
        parameters = section(ctx.data, "parameters")
        for name in parameters:
            match = ZONE.match(str(name))
            if match is not None:
                found.append((int(match["index"]), key_span(parameters, name)))
        yield from gaps(self, "availability_zone_", found)


# ---------------------------------------------------------------- environment file


class ImageInEnvironment(_PropertyReaders, EnumerationRule):
    requirement = requirement("R-91125")
    summary = "The parameter of a server's image has a value in the environment file"
    checks = (
        "the parameter a server's image reads is a key of the parameters section of the "
        "module's environment file (for a nested file, of the module using it, as ONAP's "
        "validation reads it)."
    )
    prop, wanted = "image", True


class FlavorInEnvironment(_PropertyReaders, EnumerationRule):
    requirement = requirement("R-69431")
    summary = "The parameter of a server's flavor has a value in the environment file"
    checks = (
        "the parameter a server's flavor reads is a key of the parameters section of the "
        "module's environment file (for a nested file, of the module using it, as ONAP's "
        "validation reads it)."
    )
    prop, wanted = "flavor", True


class NameNotInEnvironment(_PropertyReaders, EnumerationRule):
    requirement = requirement("R-22838")
    summary = "The parameter of a server's name is not in the environment file"
    checks = "the parameter a server's name reads is not a key of the environment's parameters."
    prop, wanted = "name", False


class ZoneNotInEnvironment(_PropertyReaders, EnumerationRule):
    requirement = requirement("R-59568")
    summary = "The parameter of a server's availability_zone is not in the environment file"
    checks = (
        "the parameter a server's availability_zone reads is not a key of the "
        "environment's parameters."
    )
    prop, wanted = "availability_zone", False


NOVA_RULES: list[type] = [
    ServerResourceId,
    ServerVmType,
    ImageFromParameter,
    ImageParameterType,
    ImageParameterName,
    ImageInEnvironment,
    FlavorFromParameter,
    FlavorParameterType,
    FlavorParameterName,
    FlavorInEnvironment,
    NameFromParameter,
    NameParameterType,
    NameStringParameter,
    NameListParameter,
    NameNotInEnvironment,
    ZoneParameterName,
    ZoneParameterType,
    ZoneNotInEnvironment,
]
