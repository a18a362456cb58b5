"""Everything Heat itself would reject a template for, in one list (ONAP's R-92635).

Validation's errors, and the checks Heat makes only when it creates the stack, which the
linter makes from the catalog: properties, attributes, types, provider outputs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stoker.diagnostics import Diagnostic

if TYPE_CHECKING:
    from stoker.lint.context import TemplateContext


def collect_heat_errors(ctx: TemplateContext) -> list[Diagnostic]:
    checks = [
        *ctx.core,
        *ctx.property_findings,
        *ctx.attribute_findings,
        *ctx.type_findings,
        *ctx.provider_findings,
    ]
    return [finding for finding in checks if finding.is_error]
