"""ONAP's rules on nested templates and resource groups (beyond the seed).

A module (base, incremental or volume) *invokes* a nested file of the package by naming it
as a resource's type, or as the member type of an OS::Heat::ResourceGroup or
AutoScalingGroup; the invocation's properties are the nested file's parameter values. The
file a module invokes is the first level of nesting, a file that one invokes the second:
ONAP allows no third, one server at the first level, none at the second. Every parameter
of a nested file is passed in, and the parameters of the properties ONAP reads to
inventory a VNF (a server's image, flavor, name and metadata; a port's network and
addresses) keep their names on the way in.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from stoker.diagnostics import Diagnostic, Path, Span
from stoker.environment.registry_section import is_template_name
from stoker.lint.context import PackageContext, TemplateContext
from stoker.lint.memo import memoized
from stoker.lint.onap.base import FromRequirement
from stoker.lint.onap.enumerated import enumerated, environment_parameters
from stoker.lint.onap.modules import ModuleRole
from stoker.lint.onap.nova import servers
from stoker.lint.onap.ports import INSTANCE_IP, INTERFACE, interfaces
from stoker.lint.onap.requirements import requirement
from stoker.lint.onap.written import parameter_read, resources_of, section
from stoker.lint.rule import TemplateRule
from stoker.template.nodes import value_span

#: group type -> the property holding its member's definition (type and properties)
GROUPS = {"OS::Heat::ResourceGroup": "resource_def", "OS::Heat::AutoScalingGroup": "resource"}
SERVER_METADATA = (
    "vnf_id",
    "vf_module_id",
    "vnf_name",
    "vf_module_name",
    "vm_role",
    "vf_module_index",
    "workload_context",
    "environment_context",
)


class Invocation(NamedTuple):
    """One use of a nested file of the package by a template."""

    resource: str
    properties: dict[Any, Any]  # the values passed in, as written
    target: TemplateContext
    path: Path  # of the type naming the nested file
    span: Span | None
    properties_path: Path


@memoized
def _templates(package: PackageContext) -> dict[str, TemplateContext]:
    """The package's templates by name, indexed once for every template's invocations."""
    return {template.name: template for template in package.templates}


@memoized
def invocations(ctx: TemplateContext) -> list[Invocation]:
    """The nested files of the package ``ctx`` invokes, found once per template."""
    return list(_find_invocations(ctx))


def _find_invocations(ctx: TemplateContext) -> Iterator[Invocation]:
    by_name = _templates(ctx.package)
    for name, definition in section(ctx.data, "resources").items():
        if not isinstance(definition, dict):
            continue
        base: Path = ("resources", str(name))
        holder: Any = definition
        member = GROUPS.get(str(definition.get("type")))
        if member is not None:
            properties = definition.get("properties")
            holder = properties.get(member) if isinstance(properties, dict) else None
            base = (*base, "properties", member)
        kind = holder.get("type") if isinstance(holder, dict) else None
        if not isinstance(kind, str) or not is_template_name(kind):
            continue
        source = ctx.package.package.resolve(ctx.source, kind)
        target = by_name.get(source.name) if source is not None else None
        if target is None or target.template is None or target is ctx:
            continue
        assert isinstance(holder, dict)
        passed = holder.get("properties")
        yield Invocation(
            str(name),
            passed if isinstance(passed, dict) else {},
            target,
            (*base, "type"),
            value_span(holder, "type"),
            (*base, "properties"),
        )


@memoized
def levels(package: PackageContext) -> dict[str, set[int]]:
    """Each nested file's levels of nesting below the package's modules (1: a module
    invokes it); a file reached along several paths has several."""
    found: dict[str, set[int]] = {}
    for template in package.templates:
        if template.template is not None and template.role is not ModuleRole.NESTED:
            _walk(template, 1, found, (template.name,))
    return found


def _walk(
    ctx: TemplateContext, level: int, found: dict[str, set[int]], seen: tuple[str, ...]
) -> None:
    for invocation in invocations(ctx):
        name = invocation.target.name
        if name in seen:
            continue  # a cycle: Heat reports it (R-92635)
        found.setdefault(name, set()).add(level)
        if level <= 3:
            _walk(invocation.target, level + 1, found, (*seen, name))


class NestedRule(FromRequirement, TemplateRule):
    """A rule on nested files and their invocations, declared by its requirement."""


class NestingDepth(NestedRule):
    requirement = requirement("R-60011")
    summary = "No more than two levels of nested templates"
    checks = (
        "no nested file a module invokes (level 1) invokes one (level 2) that invokes a "
        "third; reported in the module, at the invocation the too-deep chain starts from."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        if ctx.role is ModuleRole.NESTED:
            return
        for invocation in invocations(ctx):
            chain = _too_deep(invocation.target, (ctx.name, invocation.target.name))
            if chain is not None:
                yield self.finding_at(
                    f'resource "{invocation.resource}" starts a chain of nested templates '
                    f"three levels deep ({' -> '.join(chain)}); ONAP allows two",
                    invocation,
                )


def _too_deep(ctx: TemplateContext, chain: tuple[str, ...]) -> tuple[str, ...] | None:
    """The first chain from ``ctx`` (at level ``len(chain) - 1``) reaching level 3."""
    for invocation in invocations(ctx):
        name = invocation.target.name
        if name in chain:
            continue
        longer = (*chain, name)
        if len(longer) > 3:
            return longer
        deeper = _too_deep(invocation.target, longer)
        if deeper is not None:
            return deeper
    return None


class NestedServers(NestedRule):
    requirement = requirement("R-17528")
    summary = "A first-level nested file has at most one server, a second-level one none"
    checks = (
        "a nested file invoked by a module directly holds at most one OS::Nova::Server; "
        "one invoked from a nested file (second level) holds none. A file used at both "
        "levels is held to the second."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        if ctx.role is not ModuleRole.NESTED:
            return
        found = levels(ctx.package).get(ctx.name)
        if not found:
            return
        allowed = 0 if max(found) >= 2 else 1
        servers = list(resources_of(ctx, "OS::Nova::Server"))
        for name, _, span in servers[allowed:]:
            level = "second" if allowed == 0 else "first"
            yield self.finding(
                f'server "{name}": a {level}-level nested file may hold '
                f"{'no' if allowed == 0 else 'one'} OS::Nova::Server"
                + ("" if allowed == 0 else f" (it holds {len(servers)})"),
                span,
                ("resources", name),
            )


def inventoried_parameters(ctx: TemplateContext) -> set[str]:
    """The parameters a template reads for the properties ONAP inventories (R-708564)."""
    values: list[Any] = []
    for server in servers(ctx):
        values += [server.properties.get(key) for key in ("flavor", "image", "name")]
        metadata = server.properties.get("metadata")
        if isinstance(metadata, dict):
            values += [metadata.get(key) for key in SERVER_METADATA]
    found: set[str] = set()
    for port in interfaces(ctx):
        if port.kind == INSTANCE_IP:
            continue  # read below, under the type's other spelling
        if port.kind == INTERFACE:
            refs = port.properties.get("virtual_network_refs")
            values += refs if isinstance(refs, list) else [refs]
        found.update(address.parameter for address in (*port.fixed, *port.subnets, *port.vips))
        found.update([port.network] if port.network is not None else [])
    # the rule has always matched instance IPs as InstanceIP, not Contrail's InstanceIp
    for _, definition, _ in resources_of(ctx, "OS::ContrailV2::InstanceIP"):
        properties = definition.get("properties")
        if isinstance(properties, dict):
            values += [properties.get("instance_ip_address"), properties.get("subnet_uuid")]
    found.update(p for p in map(parameter_read, values) if p is not None)
    return found


class NestedNamesKept(NestedRule):
    requirement = requirement("R-708564")
    summary = "Parameters of inventoried properties keep their names into nested files"
    checks = (
        "where a template passes a get_param of parameter Q into a nested file as property "
        "P, and the nested file reads P for a server's flavor, image, name or metadata "
        "(vnf_id, vf_module_id, vnf_name, vf_module_name, vm_role, vf_module_index, "
        "workload_context, environment_context), a port's network, fixed_ips ip_address or "
        "subnet, or allowed_address_pairs ip_address, or the Contrail equivalents, P is Q."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for invocation in invocations(ctx):
            kept = inventoried_parameters(invocation.target)
            for name, value in invocation.properties.items():
                passed = parameter_read(value)
                if passed is None or passed == name or name not in kept:
                    continue
                yield self.finding(
                    f'resource "{invocation.resource}" passes parameter "{passed}" into '
                    f'{invocation.target.name} as "{name}"; ONAP reads it there for a '
                    "property it inventories, so its name must not change",
                    value_span(invocation.properties, name),
                    (*invocation.properties_path, name),
                )


class NestedParametersPassed(NestedRule):
    requirement = requirement("R-11041")
    summary = "Every parameter of a nested file is passed in by the resource invoking it"
    checks = (
        "each resource (or group member definition) invoking a nested file of the package "
        "sets a property for every parameter that file declares."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for invocation in invocations(ctx):
            declared = invocation.target.data.get("parameters")
            if not isinstance(declared, dict):
                continue
            missing = [str(name) for name in declared if name not in invocation.properties]
            if missing:
                yield self.finding_at(
                    f'resource "{invocation.resource}" invokes {invocation.target.name} '
                    f"without passing {', '.join(missing)}; every parameter of a nested file "
                    "must be passed in",
                    invocation,
                )


class GroupCountInEnvironment(NestedRule):
    requirement = requirement("R-50011")
    summary = "A ResourceGroup's count is a parameter with a value in the environment file"
    checks = (
        "in modules with an environment file, each OS::Heat::ResourceGroup's count is a "
        "get_param of a parameter the environment file gives a value (not null)."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        if enumerated(ctx) is None:
            return
        given = environment_parameters(ctx.package.layout.environments_of(ctx))
        for name, definition, span in resources_of(ctx, "OS::Heat::ResourceGroup"):
            properties = definition.get("properties")
            if not isinstance(properties, dict):
                continue
            parameter = parameter_read(properties.get("count"))
            if parameter in given:
                holder, key = given[parameter]
                if holder[key] is not None:
                    continue
            problem = (
                "is not a get_param"
                if parameter is None
                else f'reads "{parameter}", which the environment file gives no value'
            )
            yield self.finding(
                f'resource group "{name}": its count {problem}; ONAP needs the count '
                "enumerated in the environment file",
                value_span(properties, "count") or span,
                ("resources", name, "properties", "count"),
            )


NESTED_RULES: list[type] = [
    NestingDepth,
    NestedServers,
    NestedNamesKept,
    NestedParametersPassed,
    GroupCountInEnvironment,
]
