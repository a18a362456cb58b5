"""E3001: a resource type that resolves to nothing Heat has."""

from __future__ import annotations

from collections.abc import Iterable

from stoker.diagnostics import Diagnostic, Severity
from stoker.lint.attributes import check_types
from stoker.lint.codes import UNKNOWN_TYPE
from stoker.lint.context import TemplateContext
from stoker.lint.rule import Source, SourceKind, TemplateRule


class UnknownType(TemplateRule):
    id = UNKNOWN_TYPE
    severity = Severity.ERROR
    summary = "A resource type Heat does not have, or a provider template that is missing"
    explanation = (
        "The type is resolved as Heat resolves it: the paired environment's "
        "resource_registry, a type named like a template file (relative to the template), "
        "Heat's stock aliases (OS::Ceilometer::Alarm, OS::Quantum*), then Heat's catalog of "
        "types. A type none of them explains fails with 'The Resource Type (<type>) could "
        "not be found.'; a provider template that does not exist or does not load cannot "
        "be used either. Provider templates named by URL are not fetched and not reported."
    )
    source = Source(SourceKind.HEAT, "heat/engine/environment.py (ResourceRegistry.get_class)")

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        return check_types(ctx)
