"""ONAP's OS::Nova::Server metadata: vnf_id, vf_module_id and vnf_name (beyond the seed).

Each server's metadata carries the three keys, each from a get_param of the parameter of
the same name, declared a string without constraints, and never in the environment file
(ONAP supplies the values at instantiation).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, ClassVar

from stoker.diagnostics import Diagnostic, Path, Span
from stoker.lint.context import TemplateContext
from stoker.lint.onap.enumerated import enumerated, environment_parameters
from stoker.lint.onap.modules import ModuleRole
from stoker.lint.onap.nova import NovaRule, Server, servers
from stoker.lint.onap.requirements import requirement
from stoker.lint.onap.written import declared, parameter_read, section
from stoker.patterns import LazyPattern
from stoker.template.nodes import key_span, locate, value_span


def _metadata(server: Server) -> dict[Any, Any] | None:
    metadata = server.properties.get("metadata")
    return metadata if isinstance(metadata, dict) else None


def _keyed(ctx: TemplateContext, key: str) -> Iterator[tuple[Server, Any, Span | None, Path]]:
    """(server, value, where, path) of each server whose metadata has ``key``."""
    for server in servers(ctx):
        metadata = _metadata(server)
        if metadata is not None and key in metadata:
            path = (*server.path, "properties", "metadata", key)
            yield server, metadata[key], value_span(metadata, key), path


class _MetadataParameter(NovaRule):
    key: ClassVar[str]
    kind: ClassVar[str] = "string"

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for server, value, where, path in _keyed(ctx, self.key):
            parameter = parameter_read(value)
            if parameter is None:
                continue
            definition = declared(ctx, parameter)
            if parameter != self.key:
                yield self.finding(
                    f'server "{server.name}": metadata {self.key} reads "{parameter}"; the '
                    f"parameter must be named {self.key}",
                    where,
                    path,
                )
            elif definition is not None and definition.get("type", "string") != self.kind:
                yield self.finding(
                    f'parameter "{parameter}" has type {definition.get("type")!r}; it must '
                    f"be {self.kind}",
                    value_span(definition, "type"),
                    ("parameters", parameter, "type"),
                )


class _MetadataNoConstraints(NovaRule):
    key: ClassVar[str]

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        definition = declared(ctx, self.key)
        if definition is None or "constraints" not in definition:
            return
        if any(_reads(server, self.key) for server in servers(ctx)):
            yield self.finding(
                f'parameter "{self.key}" (server metadata, supplied by ONAP) must have no '
                "constraints",
                key_span(definition, "constraints"),
                ("parameters", self.key, "constraints"),
            )


class _MetadataNotInEnvironment(NovaRule):
    """ONAP supplies the value at instantiation, so a module's environment file never
    enumerates it, whether or not a server of that module reads it (ONAP's validation
    checks the environment file alone; nested files share their module's)."""

    key: ClassVar[str]

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        if ctx.role is ModuleRole.NESTED:
            return
        values = enumerated(ctx)
        if values is not None and self.key in values:
            yield self.finding(
                f'parameter "{self.key}" is supplied by ONAP; remove it from the environment file',
                values[self.key],
            )


def _reads(server: Server, key: str) -> bool:
    metadata = _metadata(server)
    return metadata is not None and parameter_read(metadata.get(key)) == key


class _MetadataFromParameter(NovaRule):
    """Where the key is present (it may or should be), its value is a get_param."""

    key: ClassVar[str]

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for server, value, span, path in _keyed(ctx, self.key):
            if parameter_read(value) is None:
                yield self.finding(
                    f'server "{server.name}": metadata {self.key} must be a get_param', span, path
                )


class _MetadataPresent(_MetadataFromParameter):
    """A key every server's metadata carries, its value a get_param. A server that
    declares no metadata property at all is not held to it: ONAP's validation checks the
    keys of the metadata a server has, and passes a server without one."""

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for server in servers(ctx):
            metadata = _metadata(server)
            if "metadata" in server.properties and (metadata is None or self.key not in metadata):
                yield self.finding_at(
                    f'server "{server.name}": metadata must have {self.key} '
                    f"({{get_param: {self.key}}})",
                    server,
                )
        yield from super().check(ctx)


class _MetadataRecommended(NovaRule):
    """A key a server's metadata should have (the requirement's keyword: SHOULD)."""

    key: ClassVar[str]

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for server in servers(ctx):
            metadata = _metadata(server)
            if metadata is None or self.key not in metadata:
                yield self.finding_at(
                    f'server "{server.name}": its metadata should have {self.key} '
                    f"({{get_param: {self.key}}})",
                    server,
                )


#: how a key is present -> its rule's class, summary and checks
_PRESENCE: dict[str, tuple[type, str, str]] = {
    "present": (
        _MetadataPresent,
        "A server's metadata has {key}, from a get_param",
        "each OS::Nova::Server that declares metadata has the key {key} in it, its value "
        "a get_param (a server without a metadata property passes, as in ONAP's "
        "validation).",
    ),
    "from_parameter": (
        _MetadataFromParameter,
        "Where a server's metadata has {key}, it is a get_param",
        "where an OS::Nova::Server's metadata has the key {key} (it may or should), its "
        "value is a get_param.",
    ),
    "recommended": (
        _MetadataRecommended,
        "A server's metadata has {key}",
        "each OS::Nova::Server's metadata has the key {key} (a warning: ONAP says SHOULD).",
    ),
}


def _metadata_rules(
    key: str,
    present: str,
    named: str,
    bare: str,
    absent: str,
    presence: str = "present",
    kind: str = "string",
) -> list[type]:
    base, summary, checks = _PRESENCE[presence]
    declared = (
        (base, present, summary.format(key=key), checks.format(key=key)),
        (
            _MetadataParameter,
            named,
            f"The parameter of metadata {key} is {key}, a {kind}",
            f"the get_param of metadata {key} reads the parameter {key}, declared as {kind}.",
        ),
        (
            _MetadataNoConstraints,
            bare,
            f"The parameter {key} has no constraints",
            f"the parameter {key}, read by a server's metadata, declares no constraints.",
        ),
        (
            _MetadataNotInEnvironment,
            absent,
            f"The parameter {key} is not in the environment file",
            f"the parameter {key} (which ONAP supplies, for server metadata) is not a key of a "
            "module's environment parameters, whether or not a server reads it.",
        ),
    )
    attributes = {"key": key, "kind": kind, "__module__": __name__}
    return [
        type(
            f"{base.__name__.strip('_')}_{key}",
            (base,),
            {"requirement": requirement(rid), "summary": summary, "checks": checks, **attributes},
        )
        for base, rid, summary, checks in declared
    ]


METADATA_RULES: list[type] = [
    *_metadata_rules("vnf_id", "R-37437", "R-07507", "R-55218", "R-20856"),
    *_metadata_rules("vf_module_id", "R-71493", "R-82134", "R-98374", "R-72871"),
    *_metadata_rules("vnf_name", "R-72483", "R-62428", "R-44318", "R-36542"),
    *_metadata_rules(
        "vf_module_name", "R-68023", "R-39067", "R-15480", "R-80374", "from_parameter"
    ),
    *_metadata_rules(
        "vf_module_index",
        "R-50816",
        "R-54340",
        "R-09811",
        "R-37039",
        "from_parameter",
        "number",
    ),
    *_metadata_rules("workload_context", "R-47061", "R-74978", "R-34055", "R-02691", "recommended"),
    *_metadata_rules(
        "environment_context", "R-88536", "R-20308", "R-56183", "R-13194", "recommended"
    ),
]


# ---------------------------------------------------------------- vm_role, vf_module_index

_ROLE_VALUE = LazyPattern(r"^[A-Za-z0-9_]+$")


class VmRoleValue(NovaRule):
    requirement = requirement("R-85328")
    summary = "Where a server's metadata has vm_role, it is a get_param or written in"
    checks = (
        "where an OS::Nova::Server's metadata has vm_role, its value is a get_param or a "
        "plain string (no other function)."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for server, value, span, path in _keyed(ctx, "vm_role"):
            if parameter_read(value) is None and not isinstance(value, str | int | float):
                yield self.finding(
                    f'server "{server.name}": metadata vm_role must be a get_param or a '
                    "string written in the template",
                    span,
                    path,
                )


class VmRoleNoConstraints(NovaRule):
    requirement = requirement("R-67597")
    summary = "The parameter of metadata vm_role has no constraints"
    checks = "the parameter a server's metadata vm_role reads declares no constraints."

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        seen: set[str] = set()
        for _, value, _, _ in _keyed(ctx, "vm_role"):
            parameter = parameter_read(value)
            definition = declared(ctx, parameter) if parameter else None
            if parameter is None or definition is None or parameter in seen:
                continue
            seen.add(parameter)
            if "constraints" in definition:
                yield self.finding(
                    f'parameter "{parameter}" (server metadata vm_role) must have no constraints',
                    key_span(definition, "constraints"),
                    ("parameters", parameter, "constraints"),
                )


class VmRoleCharacters(NovaRule):
    requirement = requirement("R-86476")
    summary = "A server's metadata vm_role holds only letters, digits and underscores"
    checks = (
        "a vm_role written in a server's metadata, or the value the module's environment "
        "file gives the parameter it reads, holds only letters, digits and underscores."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        given = environment_parameters(ctx.package.layout.environments_of(ctx))
        for server, value, span, path in _keyed(ctx, "vm_role"):
            parameter = parameter_read(value)
            if parameter is not None:
                if parameter not in given:
                    continue
                holder, key = given[parameter]
                value, span, path = holder[key], value_span(holder, key), ()
            if isinstance(value, str) and not _ROLE_VALUE.match(value):
                yield self.finding(
                    f'server "{server.name}": vm_role {value!r} may hold only letters, digits '
                    "and underscores",
                    span,
                    path,
                )


class ModuleIndexNotForVolumes(NovaRule):
    requirement = requirement("R-55306")
    summary = "vf_module_index is used in no volume module and no OS::Cinder::Volume"
    checks = (
        "no get_param of vf_module_index appears in a volume module, nor in the properties "
        "of an OS::Cinder::Volume of any template."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        volume_module = ctx.role is ModuleRole.VOLUME
        for call in ctx.calls("get_param"):
            args: Any = call.args
            name = args[0] if isinstance(args, list) and args else args
            if name != "vf_module_index":
                continue
            in_volume = (
                len(call.path) > 1
                and call.path[0] == "resources"
                and _type_of(ctx, call.path[1]) == "OS::Cinder::Volume"
            )
            if volume_module or in_volume:
                where = "a volume module" if volume_module else "an OS::Cinder::Volume"
                yield self.finding(
                    f"vf_module_index is used in {where}; ONAP does not support it there",
                    locate(ctx.data, call.path) or call.span,
                    call.path,
                )


def _type_of(ctx: TemplateContext, resource: Any) -> Any:
    definition = section(ctx.data, "resources").get(resource)
    return definition.get("type") if isinstance(definition, dict) else None


METADATA_RULES += [VmRoleValue, VmRoleNoConstraints, VmRoleCharacters, ModuleIndexNotForVolumes]
