"""W2001: a parameter nothing reads."""

from __future__ import annotations

from collections.abc import Iterable

from stoker.diagnostics import Diagnostic, Severity
from stoker.lint.codes import UNUSED_PARAMETER
from stoker.lint.context import TemplateContext
from stoker.lint.rule import Source, SourceKind, TemplateRule


class UnusedParameter(TemplateRule):
    id = UNUSED_PARAMETER
    severity = Severity.WARNING
    summary = "A parameter that no get_param or Ref reads"
    explanation = (
        "The parameter is declared but nothing in resources, outputs or conditions reads "
        "it, so a value given for it has no effect (and users are still asked for one if "
        "it has no default). Remove it, or use it. When a get_param's name is itself "
        "computed, any parameter could be read and none is reported."
    )
    source = Source(SourceKind.STOKER, "parameters exist to be read")

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        used = ctx.used_parameters
        if used is None:
            return
        for name, parameter in ctx.parsed.parameters.items():
            if name not in used:
                yield self.finding(
                    f'parameter "{name}" is declared but never used', parameter.span, parameter.path
                )
