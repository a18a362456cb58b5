"""I2002: a parameter without a description."""

from __future__ import annotations

from collections.abc import Iterable

from stoker.diagnostics import Diagnostic, Severity
from stoker.lint.codes import PARAMETER_DESCRIPTION
from stoker.lint.context import TemplateContext
from stoker.lint.rule import Source, SourceKind, TemplateRule


class ParameterDescription(TemplateRule):
    id = PARAMETER_DESCRIPTION
    severity = Severity.INFO
    summary = "A parameter without a description"
    explanation = (
        "Heat's validate API and dashboards show a parameter's description to whoever "
        "fills in its value; without one they see only the name."
    )
    source = Source(SourceKind.HOT_SPEC, "doc/source/template_guide/hot_spec.rst (parameters)")

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for name, parameter in ctx.parsed.parameters.items():
            description = parameter.description
            # A description that is not a string is the core's error (E1003), not "none".
            if description is None or (isinstance(description, str) and not description.strip()):
                yield self.finding_at(f'parameter "{name}" has no description', parameter)
