"""ONAP requirements across the templates of a package."""

from __future__ import annotations

from collections.abc import Iterable

from stoker.diagnostics import Diagnostic, Span
from stoker.lint.context import PackageContext
from stoker.lint.onap.base import FromRequirement
from stoker.lint.onap.requirements import requirement
from stoker.lint.rule import PackageRule


class UniqueResourceIds(FromRequirement, PackageRule):
    requirement = requirement("R-16447")
    summary = "Resource names are unique across all templates of the package"
    checks = (
        "a resource name used in one template (module or nested file) of the package is "
        "used in no other; each repeat after the first (in path order) is reported, naming "
        "where the first is."
    )

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
                yield self.finding_at(
                    f'resource "{name}" is also defined in {where}; resource ids must be '
                    "unique across the package",
                    resource,
                )
