"""ONAP requirements on environment files and on pairing them with modules."""

from __future__ import annotations

from collections.abc import Iterable

from stoker.diagnostics import Diagnostic
from stoker.lint.context import (
    EnvironmentContext,
    FileContext,
    FileKind,
    PackageContext,
    TemplateContext,
)
from stoker.lint.onap.base import FromRequirement
from stoker.lint.onap.modules import ModuleRole, Pairing, kind_by_name
from stoker.lint.onap.requirements import requirement
from stoker.lint.onap.written import section
from stoker.lint.rule import EnvironmentRule, FileRule, PackageRule, TemplateRule
from stoker.template.nodes import key_span, value_span

#: the sections the seed lets an environment file have: parameters (R-03324, R-68198),
#: parameter_defaults (R-59930), encrypted_parameters (R-46096; Heat spells it
#: encrypted_param_names), event_sinks (R-24893), parameter_merge_strategies (R-42685);
#: resource_registry is R-67231's own finding
ENVIRONMENT_SECTIONS = (
    "parameters",
    "parameter_defaults",
    "encrypted_parameters",
    "encrypted_param_names",
    "event_sinks",
    "parameter_merge_strategies",
    "resource_registry",
)


class ModuleHasEnvironment(FromRequirement, PackageRule):
    requirement = requirement("R-86285")
    summary = (
        "Each module has an environment file of the same base name, and each such file a module"
    )
    checks = (
        "each base, incremental and volume module (not nested files) has, in the same "
        "directory of the package, an environment file with the same name before the "
        "suffix (base.yaml and base.env); and, as ONAP's validation reads the pairing both "
        "ways, each environment file pairs with such a module (an environment named after "
        "no module, or after a nested file, is reported at its start). Pairing is by file "
        "name, as ONAP's: a file that cannot be parsed still pairs (its syntax error is "
        "R-92635's), and one elsewhere in the package pairs when it is the only one of "
        "that name."
    )

    def check(self, ctx: PackageContext) -> Iterable[Diagnostic]:
        layout = ctx.layout
        environments = [*ctx.environments, *_unreadable(ctx, "environment")]
        modules = [
            *(t for t in ctx.templates if layout.role(t) is not ModuleRole.NESTED),
            *_unreadable(ctx, "template"),  # no one can tell it is nested: a module
        ]
        pairing = Pairing(environments)
        paired: set[str] = set()
        for module in modules:
            source = module.source
            found = pairing.of(source)
            paired.update(environment.name for environment in found)
            if not found:
                what = (
                    f"{layout.role(module).value} module"
                    if isinstance(module, TemplateContext)
                    else "template"
                )
                yield self.finding(
                    f"this {what} has no environment file ({source.stem}.env beside it)",
                    module.start,
                )
        for environment in environments:
            if environment.name not in paired:
                yield self.finding(
                    "this environment file pairs with no module of the package (a base, "
                    f"incremental or volume module named {environment.source.stem}.yaml "
                    "beside it)",
                    environment.start,
                )


def _unreadable(ctx: PackageContext, kind: str) -> list[FileContext]:
    """The package's files that did not load, named as a template or an environment."""
    return [unit for unit in ctx.unreadable if kind_by_name(unit.source.relpath) == kind]


class EnvironmentParameters(FromRequirement, FileRule):
    requirement = requirement("R-03324")
    summary = "Environment files are a mapping of environment sections, parameters among them"
    checks = (
        "each environment file (every .env file of the package) is a mapping of sections "
        "that has a parameters key (it may enumerate nothing, R-68198) and no section "
        "other than those the requirements list (parameters, parameter_defaults, "
        "encrypted_parameters, event_sinks, parameter_merge_strategies; resource_registry "
        "is R-67231's). An empty file, or one whose parameters section is not a mapping, "
        "has no parameters section; nor has one that cannot be parsed (reported at the "
        "parse error, which is R-92635's too)."
    )

    def check(self, ctx: FileContext) -> Iterable[Diagnostic]:
        if ctx.kind is FileKind.UNREADABLE:
            yield from _unparsed_environment(self, ctx)
            return
        if not isinstance(ctx, EnvironmentContext):
            return
        data = ctx.data
        if not isinstance(data, dict):
            yield self.finding(
                "the environment file is not a mapping of sections, so it has no "
                "parameters section",
                ctx.start,
            )
            return
        if "parameters" not in data:
            yield self.finding(
                "the environment file has no parameters section", ctx.start, ("parameters",)
            )
        elif data["parameters"] is not None and not isinstance(data["parameters"], dict):
            yield self.finding(
                "the parameters section is not a mapping of parameter names to values",
                value_span(data, "parameters"),
                ("parameters",),
            )
        for key in data:
            if key not in ENVIRONMENT_SECTIONS:
                yield self.finding(
                    f'"{key}" is not a section an environment file may have (parameters, '
                    "parameter_defaults, encrypted_parameters, event_sinks, "
                    "parameter_merge_strategies)",
                    key_span(data, key),
                    (str(key),),
                )


def _unparsed_environment(rule: EnvironmentParameters, ctx: FileContext) -> Iterable[Diagnostic]:
    """An environment file (by name) that did not load: it has no parameters section the
    requirement could find, and the reason is where the loader stopped."""
    if kind_by_name(ctx.source.relpath) != FileKind.ENVIRONMENT:
        return
    problem = ctx.core[0] if ctx.core else None
    why = f" ({problem.message})" if problem is not None else ""
    span = problem.span if problem is not None and problem.span is not None else ctx.start
    yield rule.finding(
        f"the environment file cannot be parsed{why}, so it has no parameters section", span
    )


class DefaultInEnvironment(FromRequirement, TemplateRule):
    requirement = requirement("R-26124")
    summary = "A parameter with a default is enumerated in the module's environment file"
    checks = (
        "each parameter of a base, incremental or volume module that declares a default "
        "(which R-90526 forbids in itself) is a key of the parameters or "
        "parameter_defaults section of the module's environment file. ONAP marks it "
        "validation_mode none, but the package answers it. Nested files are exempt: "
        "their values come from the template that uses them."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        if ctx.role is ModuleRole.NESTED:
            return
        parameters = section(ctx.data, "parameters")
        if not parameters:
            return
        environments = ctx.package.layout.environments_of(ctx)
        enumerated: set[str] = set()
        for environment in environments:
            for key in ("parameters", "parameter_defaults"):
                enumerated.update(str(name) for name in section(environment.data, key))
        where = environments[0].source.relpath if environments else f"{ctx.source.stem}.env"
        for name, definition in parameters.items():
            defaulted = isinstance(definition, dict) and "default" in definition
            if defaulted and str(name) not in enumerated:
                yield self.finding(
                    f'parameter "{name}" has a default but {where} does not enumerate it',
                    key_span(parameters, name),
                    ("parameters", str(name)),
                )


class NoResourceRegistry(FromRequirement, EnvironmentRule):
    requirement = requirement("R-67231")
    summary = "Environment files have no resource_registry section"
    checks = "no environment file has a resource_registry key; ONAP does not support it."

    def check(self, ctx: EnvironmentContext) -> Iterable[Diagnostic]:
        data = ctx.data
        if isinstance(data, dict) and "resource_registry" in data:
            yield self.finding(
                "the environment file has a resource_registry section, which ONAP does not support",
                key_span(data, "resource_registry"),
                ("resource_registry",),
            )
