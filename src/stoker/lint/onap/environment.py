"""ONAP requirements on environment files and on pairing them with modules."""

from __future__ import annotations

from collections.abc import Iterable

from stoker.diagnostics import Diagnostic
from stoker.lint.context import EnvironmentContext, TemplateContext
from stoker.lint.onap.base import ONAP, explain, onap_source
from stoker.lint.onap.modules import ModuleRole
from stoker.lint.onap.requirements import requirement
from stoker.lint.rule import EnvironmentRule, TemplateRule
from stoker.template.nodes import key_span

_R86285 = requirement("R-86285")
_R03324 = requirement("R-03324")
_R67231 = requirement("R-67231")


class ModuleHasEnvironment(TemplateRule):
    id = _R86285.id
    severity = _R86285.severity
    summary = "Each module has an environment file of the same base name"
    explanation = explain(
        _R86285,
        "each base, incremental and volume module (not nested files) has, in the same "
        "directory of the package, an environment file with the same name before the "
        "suffix (base.yaml and base.env).",
    )
    source = onap_source(_R86285)
    profiles = ONAP

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        if ctx.role is ModuleRole.NESTED:
            return
        if not ctx.package.layout.environments_of(ctx):
            yield self.finding(
                f"this {ctx.role.value} module has no environment file "
                f"({ctx.source.stem}.env beside it)",
                ctx.start,
            )


class EnvironmentParameters(EnvironmentRule):
    id = _R03324.id
    severity = _R03324.severity
    summary = "Environment files have a parameters section"
    explanation = explain(
        _R03324, "each environment file has a parameters key (it may be empty, R-68198)."
    )
    source = onap_source(_R03324)
    profiles = ONAP

    def check(self, ctx: EnvironmentContext) -> Iterable[Diagnostic]:
        data = ctx.data
        if not isinstance(data, dict) or "parameters" not in data:
            yield self.finding(
                "the environment file has no parameters section", ctx.start, ("parameters",)
            )


class NoResourceRegistry(EnvironmentRule):
    id = _R67231.id
    severity = _R67231.severity
    summary = "Environment files have no resource_registry section"
    explanation = explain(
        _R67231, "no environment file has a resource_registry key; ONAP does not support it."
    )
    source = onap_source(_R67231)
    profiles = ONAP

    def check(self, ctx: EnvironmentContext) -> Iterable[Diagnostic]:
        data = ctx.data
        if isinstance(data, dict) and "resource_registry" in data:
            yield self.finding(
                "the environment file has a resource_registry section, which ONAP does not support",
                key_span(data, "resource_registry"),
                ("resource_registry",),
            )
