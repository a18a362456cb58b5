"""ONAP requirements across the templates of a package."""

from __future__ import annotations

from collections.abc import Iterable

from stoker.diagnostics import Diagnostic, Span
from stoker.lint.context import PackageContext
from stoker.lint.onap.base import ONAP, explain, onap_source
from stoker.lint.onap.requirements import requirement
from stoker.lint.rule import PackageRule

_R16447 = requirement("R-16447")


class UniqueResourceIds(PackageRule):
    id = _R16447.id
    severity = _R16447.severity
    summary = "Resource names are unique across all templates of the package"
    explanation = explain(
        _R16447,
        "a resource name used in one template (module or nested file) of the package is "
        "used in no other; each repeat after the first (in path order) is reported, naming "
        "where the first is.",
    )
    source = onap_source(_R16447)
    profiles = ONAP

    def check(self, ctx: PackageContext) -> Iterable[Diagnostic]:
        first: dict[str, tuple[str, Span | None]] = {}
        for template in ctx.templates:
            if template.template is None:
                continue
            for name, resource in template.template.resources.items():
                if name not in first:
                    first[name] = (template.name, resource.span)
                    continue
                other, span = first[name]
                if other == template.name:
                    continue
                where = f"{other}:{span.line}:{span.column}" if span else other
                yield self.finding(
                    f'resource "{name}" is also defined in {where}; resource ids must be '
                    "unique across the package",
                    resource.span,
                    resource.path,
                )
