"""E3001: a resource type that resolves to nothing Heat has."""

from __future__ import annotations

from collections.abc import Iterable

from stoker.diagnostics import Diagnostic, Severity
from stoker.lint.catalog import lint_catalog
from stoker.lint.codes import UNKNOWN_TYPE
from stoker.lint.context import TemplateContext
from stoker.lint.rule import Source, SourceKind, TemplateRule
from stoker.nearest import did_you_mean
from stoker.template.nodes import locate


def _type_names() -> list[str]:
    """The types a misspelt one may mean: Heat's (not hidden, i.e. not removed), the stock
    environment's template types and aliases."""
    catalog = lint_catalog()
    shown = [name for name, entry in catalog.types.items() if not entry.support_status.hidden]
    aliases = [name for name in catalog.aliases if not name.endswith("*")]
    return [*shown, *catalog.stock, *aliases]


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
        template = ctx.parsed
        for name, resolved in ctx.resource_types.items():
            resource = template.resources[name]
            type_path = (*resource.path, template.names.type)
            span = locate(ctx.data, type_path) or resource.span
            provider = resolved.provider
            if provider is not None:
                if provider.template is None and not provider.remote:
                    yield self.finding(
                        f"The provider template {provider.reference} of resource {name} "
                        f"cannot be used: {provider.problem}",
                        span,
                        type_path,
                    )
            elif not resolved.known:
                via = f" (resolved {resolved.via})" if resolved.via else ""
                yield self.finding(
                    f"The Resource Type ({resolved.final}) could not be found{via}: it is not "
                    "a Heat resource type, and no environment maps it to one"
                    + did_you_mean(resolved.final, _type_names()),
                    span,
                    type_path,
                )
