"""W2001: a parameter nothing reads."""

from __future__ import annotations

from collections.abc import Iterable

from stoker.diagnostics import Diagnostic, Severity
from stoker.lint.codes import UNUSED_PARAMETER
from stoker.lint.context import TemplateContext
from stoker.lint.rule import Source, SourceKind, TemplateRule
from stoker.nearest import nearest


class UnusedParameter(TemplateRule):
    id = UNUSED_PARAMETER
    severity = Severity.WARNING
    summary = "A parameter that no get_param or Ref reads"
    explanation = (
        "The parameter is declared but nothing in resources, outputs or conditions reads "
        "it, so a value given for it has no effect (and users are still asked for one if "
        "it has no default). Remove it, or use it. When a get_param's name is itself "
        "computed, any parameter could be read and none is reported. A name that is read "
        "but not declared and is near the parameter's (get_param: imag for image) is named "
        "as the likely misspelling."
    )
    source = Source(SourceKind.STOKER, "parameters exist to be read")

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        used = ctx.used_parameters
        if used is None:
            return
        template = ctx.parsed
        # names read that are neither parameters nor resources (Ref reads both), nor
        # pseudo parameters: the misspellings
        unknown = [
            name
            for name in used
            if name not in template.parameters
            and name not in template.resources
            and "::" not in name
        ]
        for name, parameter in template.parameters.items():
            if name not in used:
                message = f'parameter "{name}" is declared but never used'
                misspelt = nearest(name, unknown)
                if misspelt:
                    message += f' ("{misspelt[0]}" is read but not declared: a misspelling?)'
                yield self.finding_at(message, parameter)
