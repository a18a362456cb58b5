"""ONAP's predefined output parameters and get_file targets (beyond the seed).

ONAP inventories a VNF's OAM management address from an output named
``oam_management_v4_address`` (``..._v6_address``), declared by one template of the
package: either a get_param echoing the parameter of a port's fixed_ips ip_address
(assigned by ONAP) or a get_attr of a port's assigned ip_address (assigned by the cloud).
get_file targets travel in the package, so they are named by file name, never fetched
from a URL.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, ClassVar

from stoker.diagnostics import Diagnostic, Span
from stoker.lint.context import PackageContext, TemplateContext
from stoker.lint.onap.base import FromRequirement
from stoker.lint.onap.ports import ports
from stoker.lint.onap.requirements import requirement
from stoker.lint.onap.written import section
from stoker.lint.rule import PackageRule, TemplateRule
from stoker.template.nodes import key_span, locate, value_span

OAM_OUTPUTS = ("oam_management_v4_address", "oam_management_v6_address")
URL_SCHEMES = ("http://", "https://", "ftp://", "ftps://", "file://")


class _OnePerPackage(FromRequirement, PackageRule):
    output: ClassVar[str]

    def check(self, ctx: PackageContext) -> Iterable[Diagnostic]:
        first: tuple[str, Span | None] | None = None
        for template in ctx.templates:
            outputs = section(template.data, "outputs")
            if self.output not in outputs:
                continue
            span = key_span(outputs, self.output)
            if first is None:
                first = (template.name, span)
                continue
            other, where = first
            at = f"{other}:{where.line}:{where.column}" if where else other
            yield self.finding(
                f'output "{self.output}" is also declared in {at}; only one template of '
                "the VNF may declare it",
                span,
                ("outputs", self.output),
            )


class OamV4AddressOnce(_OnePerPackage):
    requirement = requirement("R-18683")
    summary = "Only one template declares the output oam_management_v4_address"
    checks = "at most one template of the package has an output oam_management_v4_address."
    output = "oam_management_v4_address"


class OamV6AddressOnce(_OnePerPackage):
    requirement = requirement("R-94669")
    summary = "Only one template declares the output oam_management_v6_address"
    checks = "at most one template of the package has an output oam_management_v6_address."
    output = "oam_management_v6_address"


def _oam_values(ctx: TemplateContext) -> Iterator[tuple[str, Any, Span | None]]:
    outputs = section(ctx.data, "outputs")
    for name in OAM_OUTPUTS:
        output = outputs.get(name)
        if isinstance(output, dict) and "value" in output:
            yield name, output["value"], value_span(output, "value")


class OamAddressEchoed(FromRequirement, TemplateRule):
    requirement = requirement("R-56287")
    summary = "An OAM address output by get_param echoes a port's fixed_ips ip_address"
    checks = (
        "an oam_management_v4_address or _v6_address output whose value is a get_param "
        "reads a parameter some OS::Neutron::Port of the template reads for a fixed_ips "
        "ip_address."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for name, value, span in _oam_values(ctx):
            if not (isinstance(value, dict) and set(value) == {"get_param"}):
                continue
            argument = value["get_param"]
            parameter = argument[0] if isinstance(argument, list) and argument else argument
            read = {address.parameter for port in ports(ctx) for address in port.fixed}
            if parameter not in read:
                yield self.finding(
                    f'output "{name}" echoes {parameter!r}, which no port of the template '
                    "reads for a fixed_ips ip_address",
                    span,
                    ("outputs", name, "value"),
                )


class OamAddressFromPort(FromRequirement, TemplateRule):
    requirement = requirement("R-48987")
    summary = "An OAM address output otherwise is a get_attr of a port's ip_address"
    checks = (
        "an oam_management_v4_address or _v6_address output whose value is not a get_param "
        "is a get_attr [<OS::Neutron::Port of the template>, fixed_ips, <index>, ip_address]."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        names = {port.name for port in ports(ctx)}
        for name, value, span in _oam_values(ctx):
            if isinstance(value, dict) and set(value) == {"get_param"}:
                continue
            args = value.get("get_attr") if isinstance(value, dict) and len(value) == 1 else None
            if (
                isinstance(args, list)
                and len(args) == 4
                and args[0] in names
                and args[1] == "fixed_ips"
                and args[3] == "ip_address"
            ):
                continue
            yield self.finding(
                f'output "{name}" must be a get_param of a port\'s fixed_ips ip_address '
                "parameter, or get_attr: [<port>, fixed_ips, <index>, ip_address]",
                span,
                ("outputs", name, "value"),
            )


class _GetFile(FromRequirement, TemplateRule):
    """A rule on the target each get_file names (where it is written as a string)."""

    problem: ClassVar[str]  # the finding, after 'get_file "<target>": '

    def wrong(self, target: str) -> bool:
        raise NotImplementedError

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for call in ctx.calls("get_file"):
            if isinstance(call.args, str) and self.wrong(call.args):
                yield self.finding(
                    f'get_file "{call.args}": {self.problem}',
                    locate(ctx.data, call.path) or call.span,
                    call.path,
                )


class GetFileByName(_GetFile):
    requirement = requirement("R-76718")
    summary = "A get_file target is named by its file name"
    checks = (
        "each get_file names its target by a file name: no URL, no directory part (the "
        "targets travel beside the templates in the package)."
    )
    problem = "name the file by its name alone"

    def wrong(self, target: str) -> bool:
        return "://" not in target and "/" in target


class GetFileNoUrl(_GetFile):
    requirement = requirement("R-41888")
    summary = "No get_file of a URL"
    checks = "no get_file anywhere in the template names a URL (http, https, ftp, ftps, file)."
    problem = "ONAP does not fetch files from URLs"

    def wrong(self, target: str) -> bool:
        return target.lower().startswith(URL_SCHEMES)


OUTPUT_RULES: list[type] = [
    OamV4AddressOnce,
    OamV6AddressOnce,
    OamAddressEchoed,
    OamAddressFromPort,
    GetFileByName,
    GetFileNoUrl,
]
