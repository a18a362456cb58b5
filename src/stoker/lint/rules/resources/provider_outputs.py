"""E3020: get_attr of an output the provider template lacks."""

from __future__ import annotations

from collections.abc import Iterable

from stoker.diagnostics import Diagnostic, Severity
from stoker.lint.attributes import check_provider_outputs
from stoker.lint.codes import PROVIDER_OUTPUT
from stoker.lint.context import TemplateContext
from stoker.lint.rule import Source, SourceKind, TemplateRule


class ProviderOutput(TemplateRule):
    id = PROVIDER_OUTPUT
    severity = Severity.ERROR
    summary = "get_attr of an output the provider template does not have"
    explanation = (
        "A resource whose type is a provider template (type: server.yaml, or a type the "
        "environment's resource_registry maps to a template) has the template's outputs as "
        "its attributes (plus show and resource.<name>). The provider template is loaded "
        "with the same loader and its outputs compared with every get_attr of the facade; "
        "Heat rejects a missing one: 'The Referenced Attribute (<resource> <name>) is "
        "incorrect.' Add the output to the provider template or read one it has."
    )
    source = Source(SourceKind.HEAT, "heat/engine/resources/template_resource.py (attributes)")

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        return check_provider_outputs(ctx)
