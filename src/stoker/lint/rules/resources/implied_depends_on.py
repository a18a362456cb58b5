"""I3005: depends_on that get_resource or get_attr already implies."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from stoker.diagnostics import Diagnostic, Severity
from stoker.functions.base import Function, Scope
from stoker.functions.conditions import If
from stoker.lint.codes import IMPLIED_DEPENDS_ON
from stoker.lint.context import TemplateContext
from stoker.lint.rule import Source, SourceKind, TemplateRule


def unconditional_references(tree: Any, scope: Scope) -> dict[str, str]:
    """Resource -> the function that references it, outside any ``if`` branch.

    A reference inside a branch exists only when that branch is taken, so it implies
    nothing for certain.
    """
    found: dict[str, str] = {}
    stack = [tree]
    while stack:
        item = stack.pop()
        if isinstance(item, If):
            continue
        if isinstance(item, Function):
            for name in item.dependencies(scope):
                found.setdefault(name, item.name)
            stack.extend(item.children(None))
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


class ImpliedDependsOn(TemplateRule):
    id = IMPLIED_DEPENDS_ON
    severity = Severity.INFO
    summary = "depends_on that get_resource or get_attr already implies"
    explanation = (
        "A resource already depends on every resource its properties or metadata reference "
        "with get_resource, get_attr (or Ref, Fn::GetAtt); listing one in depends_on as "
        "well changes nothing and goes stale when the reference is removed. References "
        "inside an if branch are not counted (the branch may not be taken)."
    )
    source = Source(SourceKind.HEAT, "heat/engine/rsrc_defn.py (ResourceDefinition.dependencies)")

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        template, scope = ctx.parsed, ctx.stack.scope
        if scope is None:
            return
        key = template.names.depends_on
        for resource in template.resources.values():
            if not resource.depends_on:
                continue
            implied = unconditional_references(resource.properties, scope)
            for name, via in unconditional_references(resource.metadata, scope).items():
                implied.setdefault(name, via)
            for index, name in enumerate(resource.depends_on):
                if name in implied:
                    spans = resource.depends_on_spans
                    span = spans[index] if index < len(spans) else resource.span
                    yield self.finding(
                        f'{key} "{name}" of resource "{resource.name}" is already implied by '
                        f"its {implied[name]}; remove it",
                        span,
                        (*resource.path, key),
                    )
