"""W1091: a template version Heat has superseded.

Heat never formally retired a version; these two are the ones whose features later
versions took away or never had, so new templates should not use them.
"""

from __future__ import annotations

from collections.abc import Iterable

from stoker.diagnostics import Diagnostic, Severity
from stoker.lint.codes import DEPRECATED_VERSION
from stoker.lint.context import TemplateContext
from stoker.lint.rule import Source, SourceKind, TemplateRule
from stoker.template.nodes import value_span

#: (version key, canonical value) -> why it is deprecated
DEPRECATED_VERSIONS = {
    ("HeatTemplateFormatVersion", "2012-12-12"): (
        "Heat's own variant of the CFN format, superseded by HOT; it has no conditions and "
        "no CloudFormation tool reads it"
    ),
    ("heat_template_version", "2013-05-23"): (
        "the first HOT version (Icehouse), whose CFN functions and local get_attr paths "
        "2014-10-16 removed"
    ),
}


class DeprecatedVersion(TemplateRule):
    id = DEPRECATED_VERSION
    severity = Severity.WARNING
    summary = "A template version that Heat has superseded"
    explanation = (
        "HeatTemplateFormatVersion: 2012-12-12 (Heat's variant of the CFN format, replaced "
        "by HOT) and heat_template_version: 2013-05-23 (whose CFN functions and get_attr "
        "semantics the next version removed) still load, but every later feature is "
        "missing and moving up means rewriting. Use heat_template_version: 2021-04-16 "
        "(wallaby) or at least a version your clouds support. Heat does not formally "
        "deprecate versions; this list is stoker's judgement."
    )
    source = Source(SourceKind.STOKER, "template versions superseded by later HOT versions")

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        version = ctx.parsed.version
        reason = DEPRECATED_VERSIONS.get((version.key, version.value))
        # Only a version the document states: one that is not a mapping states none.
        if reason is None or not isinstance(ctx.data, dict) or version.key not in ctx.data:
            return
        yield self.finding(
            f"{version.key}: {version.value} is deprecated: {reason}; use "
            "heat_template_version: 2021-04-16",
            value_span(ctx.data, version.key),
            (version.key,),
        )
