"""W1090: a function later HOT versions removed.

HOT 2013-05-23 accepts the CFN functions (Ref, Fn::Join, ...) and versions before
2015-10-15 accept Fn::Select; later versions removed them, so a template that uses them
cannot move to a newer version without rewriting those calls.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from stoker.diagnostics import Diagnostic, Severity
from stoker.functions.tables import table_for
from stoker.lint.codes import DEPRECATED_FUNCTION
from stoker.lint.context import TemplateContext
from stoker.lint.rule import Source, SourceKind, TemplateRule
from stoker.template.versions import HOT_VERSIONS, LATEST_HOT, Format

#: what to write instead, in HOT
REPLACEMENTS = {
    "Ref": "get_resource (for a resource) or get_param (for a parameter)",
    "Fn::Join": "list_join",
    "Fn::Split": "str_split",
    "Fn::Replace": "str_replace",
    "Fn::Select": "get_param/get_attr with a path, or yaql",
    "Fn::ResourceFacade": "resource_facade",
    "Fn::Base64": "the plain string (Heat never encoded it)",
    "Fn::GetAZs": "a parameter listing the availability zones",
    "Fn::MemberListToMap": "a json parameter",
}


@cache
def removed_in(name: str) -> str | None:
    """The first HOT version that removed ``name``, if any did."""
    for version in HOT_VERSIONS:
        if name in table_for(version).removed:
            return version.value
    return None


class DeprecatedFunction(TemplateRule):
    id = DEPRECATED_FUNCTION
    severity = Severity.WARNING
    summary = "A function that later HOT versions removed"
    explanation = (
        "The function is available in this template's version but removed from later "
        "ones (HOT 2014-10-16 removed Ref, Fn::Join, Fn::Split, Fn::Replace, Fn::Base64, "
        "Fn::GetAZs, Fn::MemberListToMap and Fn::ResourceFacade; 2015-10-15 removed "
        "Fn::Select). Replace it with its HOT equivalent so the template can move to a "
        "current version."
    )
    source = Source(SourceKind.HEAT, "heat/engine/hot/template.py (functions of each version)")

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        template = ctx.parsed
        if template.version.format is not Format.HOT:
            return
        latest = table_for(LATEST_HOT).removed
        for call in template.calls:
            if call.name in latest and call.name in template.table.functions:
                instead = REPLACEMENTS.get(call.name, "its HOT equivalent")
                yield self.finding_at(
                    f'"{call.name}" is deprecated: heat_template_version '
                    f"{removed_in(call.name)} and later removed it; use {instead}",
                    call,
                )
