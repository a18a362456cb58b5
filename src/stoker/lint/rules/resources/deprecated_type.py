"""W3010: a resource type Heat has deprecated, hidden or stopped supporting."""

from __future__ import annotations

from collections.abc import Iterable

from stoker.diagnostics import Diagnostic, Severity
from stoker.lint.codes import DEPRECATED_TYPE
from stoker.lint.context import TemplateContext
from stoker.lint.rule import Source, SourceKind, TemplateRule
from stoker.resources import SupportLevel, SupportStatus

_MEANING = {
    SupportLevel.DEPRECATED: "deprecated",
    SupportLevel.HIDDEN: "hidden (retired: Heat no longer lists it)",
    SupportLevel.UNSUPPORTED: "unsupported (Heat no longer tests it)",
}


def describe_status(status: SupportStatus) -> str | None:
    """``deprecated since 7.0.0``, or None for a supported thing."""
    meaning = _MEANING.get(status.status)
    if meaning is None:
        return None
    return f"{meaning} since Heat {status.version}" if status.version else meaning


class DeprecatedType(TemplateRule):
    id = DEPRECATED_TYPE
    severity = Severity.WARNING
    summary = "A resource type Heat has deprecated, retired or stopped supporting"
    explanation = (
        "The catalog records each type's support status. DEPRECATED types still work but "
        "will go; HIDDEN ones are retired (Heat's API no longer lists them and new clouds "
        "may not have them); UNSUPPORTED ones are no longer tested. Move to the type that "
        "replaced it (see `stoker resource-type show TYPE`)."
    )
    source = Source(SourceKind.HEAT, "support_status of each resource plugin (catalog)")

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        template = ctx.parsed
        for name, resolved in ctx.resource_types.items():
            if resolved.schema is None:
                continue
            status = describe_status(resolved.schema.support_status)
            if status is None:
                continue
            resource = template.resources[name]
            via = f" (resolved {resolved.via})" if resolved.via else ""
            yield self.finding(
                f'resource "{name}": type {resolved.final}{via} is {status}',
                None,
                (*resource.path, template.names.type),
            )
