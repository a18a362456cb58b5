"""get_attr against what a type declares: catalog attributes, or a provider's outputs.

Heat rejects ``get_attr`` of an attribute a type does not declare (``The Referenced
Attribute (server foo) is incorrect.``), except for types that answer any name: groups and
other nested stacks, ``OS::Heat::None``, software deployments. A provider template's
attributes are its outputs.
"""

from __future__ import annotations

from typing import Any

from stoker import codes
from stoker.diagnostics import Diagnostic
from stoker.functions.base import Function
from stoker.lint.catalog import dynamic_attributes
from stoker.lint.codes import PROVIDER_OUTPUT
from stoker.lint.context import TemplateContext
from stoker.template.nodes import value_span

ATTRIBUTE_READERS = ("get_attr", "Fn::GetAtt")


def attribute_reads(ctx: TemplateContext) -> list[tuple[Function, str, str]]:
    """(call, resource, attribute) for every attribute read named literally."""
    found = []
    for call in ctx.calls(*ATTRIBUTE_READERS):
        args: Any = call.args
        if not isinstance(args, list) or len(args) < 2:
            continue
        resource, attribute = args[0], args[1]
        if isinstance(resource, str) and isinstance(attribute, str):
            found.append((call, str(resource), str(attribute)))
    return found


def _attribute_span(call: Function) -> Any:
    return value_span(call.args, 1) or call.span


def check_attributes(ctx: TemplateContext) -> list[Diagnostic]:
    """E1037: attributes a catalog type does not declare."""
    dynamic = dynamic_attributes()
    types = ctx.resource_types
    found: list[Diagnostic] = []
    for call, resource, attribute in attribute_reads(ctx):
        resolved = types.get(resource)
        if resolved is None or resolved.schema is None or resolved.final in dynamic:
            continue
        declared = resolved.schema.attributes
        if attribute in declared:
            continue
        shown = sorted(name for name, a in declared.items() if not a.support_status.hidden)
        found.append(
            Diagnostic(
                codes.UNKNOWN_ATTRIBUTE,
                f"The Referenced Attribute ({resource} {attribute}) is incorrect: "
                f"{resolved.final} has no attribute {attribute!r}",
                call.path,
                _attribute_span(call),
                notes=(f"{resolved.final} has attributes: {', '.join(shown)}",),
            )
        )
    return found


def check_provider_outputs(ctx: TemplateContext) -> list[Diagnostic]:
    """E3020: a provider template lacks the output a facade's get_attr asks for."""
    types = ctx.resource_types
    found: list[Diagnostic] = []
    for call, resource, attribute in attribute_reads(ctx):
        resolved = types.get(resource)
        provider = resolved.provider if resolved is not None else None
        if provider is None or provider.template is None:
            continue
        outputs = provider.template.outputs
        if attribute in outputs or attribute == "show" or attribute.startswith("resource."):
            continue
        where = provider.source.name if provider.source else provider.reference
        listed = ", ".join(sorted(outputs)) or "none"
        found.append(
            Diagnostic(
                PROVIDER_OUTPUT,
                f"{resource} is the provider template {provider.reference}, which has no "
                f"output {attribute!r} (its outputs: {listed})",
                call.path,
                _attribute_span(call),
                notes=(f"add the output to {where}, or read an output it has",),
            )
        )
    return found
