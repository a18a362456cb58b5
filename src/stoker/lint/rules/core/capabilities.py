"""The capabilities annotation and choosing a provider template by it (stoker's reading of
Heat's unmerged "resource capabilities" spec; see `stoker.environment.capabilities`)."""

from __future__ import annotations

from collections.abc import Iterable

from stoker.diagnostics import Diagnostic, Severity
from stoker.lint.context import TemplateContext
from stoker.lint.rule import Source, SourceKind
from stoker.lint.rules.core.base import CodeRule, LintedCodeRule

_SPEC = Source(SourceKind.STOKER, "heat-specs resource-capabilities (never merged into Heat)")


class CapabilitiesNonPortable(CodeRule):
    id = "W1004"
    severity = Severity.WARNING
    summary = "A capabilities section, which Heat itself rejects"
    explanation = (
        "stoker reads a template's capabilities section (from HOT 2015-10-15) to choose "
        "among the provider templates a resource_registry list offers; Heat has no such "
        "section and rejects the template ('The template section is invalid: "
        "capabilities'). Leave it out of templates that must also run on Heat."
    )
    source = _SPEC


class CapabilityValue(CodeRule):
    id = "E1005"
    summary = "A capabilities (or requires) value that is not a string or list of strings"
    explanation = (
        "Each capability, and each entry of an environment's requires, maps a name to a "
        "string or a list of strings; anything else cannot be compared and is left out."
    )
    source = _SPEC


class ProviderChoice(LintedCodeRule):
    id = "E1062"
    summary = "No template, or several, of a registry list meet the environment's requires"
    explanation = (
        "A resource_registry entry that lists several provider templates is resolved by "
        "the environment's requires and each template's capabilities: exactly one must "
        "qualify. The finding names the type, the requirement and each candidate with its "
        "capabilities. Heat has no such lists; stoker makes the choice when it creates "
        "the stack, and the linter makes it (with the paired environment) for each "
        "resource of such a type."
    )
    source = _SPEC

    def linted(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        return [p for resolved in ctx.resource_types.values() for p in resolved.problems]
