"""W3011: a property Heat has deprecated or retired."""

from __future__ import annotations

from collections.abc import Iterable

from stoker.diagnostics import Diagnostic, Severity
from stoker.lint.codes import DEPRECATED_PROPERTY
from stoker.lint.context import TemplateContext
from stoker.lint.rule import Source, SourceKind, TemplateRule
from stoker.lint.rules.resources.deprecated_type import describe_status
from stoker.template.nodes import key_span


class DeprecatedProperty(TemplateRule):
    id = DEPRECATED_PROPERTY
    severity = Severity.WARNING
    summary = "A property Heat has deprecated or retired"
    explanation = (
        "The catalog records each property's support status. A deprecated or hidden "
        "property still works (Heat usually translates it to its successor, e.g. a port's "
        "network_id to network) but will go; use the property that replaced it."
    )
    source = Source(SourceKind.HEAT, "support_status of each property schema (catalog)")

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        template = ctx.parsed
        for name, resolved in ctx.resource_types.items():
            resource = template.resources[name]
            properties = resource.properties
            if resolved.schema is None or not isinstance(properties, dict):
                continue
            for key in properties:
                schema = resolved.schema.properties.get(str(key))
                status = describe_status(schema.support_status) if schema else None
                if status is not None:
                    yield self.finding(
                        f'property "{key}" of {resolved.final} is {status}',
                        key_span(properties, key),
                        (*resource.path, template.names.properties, str(key)),
                    )
