"""W8003: a resource or output whose condition is false whatever the parameters."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from stoker.definition import CFN_PSEUDO, HOT_PSEUDO, ConditionEvaluator, StaticContext
from stoker.diagnostics import Diagnostic, Path, Severity
from stoker.errors import FunctionError
from stoker.functions.base import Unresolved
from stoker.lint.codes import NEVER_EXISTS
from stoker.lint.context import TemplateContext
from stoker.lint.rule import Source, SourceKind, TemplateRule
from stoker.template.nodes import locate


class NeverExists(TemplateRule):
    id = NEVER_EXISTS
    severity = Severity.WARNING
    summary = "A resource or output whose condition is always false"
    explanation = (
        "The condition is false without any parameter value (false, not: true, equals of "
        "two different literals, a named condition that is), so the resource or output "
        "can never exist; it is dead code, and Heat does not even validate it. A "
        "condition that depends on a parameter is never reported, whatever its default."
    )
    source = Source(SourceKind.HOT_SPEC, "doc/source/template_guide/hot_spec.rst (conditions)")

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        template = ctx.parsed
        if not template.version.has_conditions:
            return
        evaluator = ConditionEvaluator(template.conditions, template.names.conditions)
        context = StaticContext(
            parameters={},
            declared_parameters=frozenset(template.parameters) | {*HOT_PSEUDO, *CFN_PSEUDO},
            resources=frozenset(),
            conditions=evaluator,
            mappings=template.mappings,
        )
        key = template.names.condition
        for kind, definitions in (("resource", template.resources), ("output", template.outputs)):
            for name, definition in definitions.items():
                if definition.condition is None:
                    continue
                if _value(evaluator, definition.condition, context) is False:
                    path: Path = (*definition.path, key)
                    yield self.finding(
                        f'{kind} "{name}" can never exist: its condition is false whatever '
                        "the parameter values",
                        locate(ctx.data, path),
                        path,
                    )


def _value(evaluator: ConditionEvaluator, condition: Any, context: StaticContext) -> bool | None:
    try:
        return evaluator.evaluate(condition, context)
    except (Unresolved, FunctionError):
        return None
