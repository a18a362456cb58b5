"""ONAP requirements on parameter declarations.

They read the parameters section as written (the same parsed nodes), not only the
declarations Heat accepted: a parameter without a type is rejected by Heat's parser, and
R-36772 must still say so at its name.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from stoker.diagnostics import Diagnostic, Path
from stoker.lint.context import TemplateContext
from stoker.lint.onap.base import FromRequirement
from stoker.lint.onap.modules import ModuleRole
from stoker.lint.onap.requirements import requirement
from stoker.lint.onap.written import NAME_CHARACTERS, section
from stoker.lint.rule import TemplateRule
from stoker.template.nodes import key_span, value_span

#: any parameter whose name contains it may go unused (R-90279 as ONAP's validation reads it)
AVAILABILITY_ZONE_WORD = "availability_zone"
ONAP_TYPES = ("string", "number", "json", "comma_delimited_list", "boolean")


def declarations(ctx: TemplateContext) -> Iterator[tuple[str, Any, Path]]:
    """Every entry of the parameters section as written: name, definition, path."""
    for name, definition in section(ctx.data, "parameters").items():
        yield str(name), definition, ("parameters", str(name))


def _name_span(ctx: TemplateContext, name: str) -> Any:
    return key_span(ctx.data["parameters"], name)


class ParameterUsed(FromRequirement, TemplateRule):
    requirement = requirement("R-90279")
    summary = "Every parameter is used (availability_zone parameters excepted)"
    checks = (
        "every declared parameter is read by a get_param somewhere (resources, outputs, "
        "conditions), except parameters whose name contains availability_zone "
        "(availability_zone_<index> is R-98450's naming for the OS::Nova::Server "
        "availability_zone property, which R-91273 allows to be unused; ONAP's validation "
        "exempts every name containing it). A get_param whose name is computed disables "
        "the check for the template."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        used = ctx.used_parameters
        if used is None:
            return
        for name, _, path in declarations(ctx):
            if name not in used and AVAILABILITY_ZONE_WORD not in name:
                yield self.finding(
                    f'parameter "{name}" is not used in any resource or output',
                    _name_span(ctx, name),
                    path,
                )


class ParameterName(FromRequirement, TemplateRule):
    requirement = requirement("R-25877")
    summary = "Parameter names contain only letters, digits and underscores"
    checks = "each parameter name matches [A-Za-z0-9_]+."

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for name, _, path in declarations(ctx):
            if not NAME_CHARACTERS.match(name):
                yield self.finding(
                    f'parameter name "{name}" may contain only letters, digits and "_"',
                    _name_span(ctx, name),
                    path,
                )


class ParameterHasType(FromRequirement, TemplateRule):
    requirement = requirement("R-36772")
    summary = "Each parameter declares a type"
    checks = "each parameter definition has a type key."

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for name, definition, path in declarations(ctx):
            if not isinstance(definition, dict) or "type" not in definition:
                yield self.finding(f'parameter "{name}" has no type', _name_span(ctx, name), path)


class ParameterTypeValue(FromRequirement, TemplateRule):
    requirement = requirement("R-11441")
    summary = "Parameter types are string, number, json, comma_delimited_list or boolean"
    checks = "each declared type is one of the five HOT types, spelled as HOT spells them."

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for name, definition, path in declarations(ctx):
            if isinstance(definition, dict) and "type" in definition:
                kind = definition["type"]
                if kind not in ONAP_TYPES:
                    yield self.finding(
                        f'parameter "{name}" has type {kind!r}; use one of {", ".join(ONAP_TYPES)}',
                        value_span(definition, "type"),
                        (*path, "type"),
                    )


class ParameterHasDescription(FromRequirement, TemplateRule):
    requirement = requirement("R-44001")
    summary = "Each parameter has a description"
    checks = "each parameter definition has a description key."

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for name, definition, path in declarations(ctx):
            if not isinstance(definition, dict) or "description" not in definition:
                yield self.finding(
                    f'parameter "{name}" has no description', _name_span(ctx, name), path
                )


class ParameterNoDefault(FromRequirement, TemplateRule):
    requirement = requirement("R-90526")
    summary = "No parameter declares a default"
    checks = (
        "no parameter definition has a default key (values belong in the environment "
        "file). The value is never shown."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for name, definition, path in declarations(ctx):
            if isinstance(definition, dict) and "default" in definition:
                yield self.finding(
                    f'parameter "{name}" declares a default; give its value in the '
                    "environment file instead",
                    key_span(definition, "default"),
                    (*path, "default"),
                )


class NestedParameterConstraints(FromRequirement, TemplateRule):
    requirement = requirement("R-00011")
    summary = "Parameters of nested templates have no constraints"
    checks = (
        "in templates another template of the package uses as a type (nested), no "
        "parameter definition has a constraints key."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        if ctx.role is not ModuleRole.NESTED:
            return
        for name, definition, path in declarations(ctx):
            if isinstance(definition, dict) and "constraints" in definition:
                yield self.finding(
                    f'parameter "{name}" of a nested template has constraints',
                    key_span(definition, "constraints"),
                    (*path, "constraints"),
                )
