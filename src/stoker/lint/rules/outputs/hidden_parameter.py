"""W6001: an output that shows a hidden parameter."""

from __future__ import annotations

from collections.abc import Iterable

from stoker.diagnostics import Diagnostic, Severity
from stoker.functions.base import iter_functions
from stoker.lint.codes import HIDDEN_OUTPUT
from stoker.lint.context import TemplateContext
from stoker.lint.rule import Source, SourceKind, TemplateRule
from stoker.lint.usage import READERS, parameter_name


class HiddenParameterOutput(TemplateRule):
    id = HIDDEN_OUTPUT
    severity = Severity.WARNING
    summary = "An output echoes a hidden parameter"
    explanation = (
        "hidden: true (NoEcho in CFN) keeps a parameter's value out of stack show and the "
        "API, but outputs are shown as they are: an output that reads the parameter "
        "(directly or inside str_replace, list_join, ...) publishes the secret to anyone "
        "who can see the stack. Remove it from the output."
    )
    source = Source(SourceKind.HOT_SPEC, "doc/source/template_guide/hot_spec.rst (hidden)")

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        template = ctx.parsed
        hidden = {name for name, p in template.parameters.items() if p.hidden}
        if not hidden:
            return
        for output in template.outputs.values():
            for call in iter_functions(output.value):
                if call.name not in READERS:
                    continue
                name = parameter_name(call)
                if isinstance(name, str) and name in hidden:
                    yield self.finding_at(
                        f'output "{output.name}" shows hidden parameter "{name}"; outputs are '
                        "not masked",
                        call,
                    )
