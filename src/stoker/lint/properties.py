"""Resource properties checked against the catalog: names, types, required, allowed values.

Heat checks properties only when it creates a resource; the linter checks every resource
that can exist, with the schema of its (resolved) type and the same validation code the
engine runs, after Heat's renaming of deprecated properties (`stoker.lint.translation`).
Values computed by functions are not known before create and are skipped, as Heat skips
them at validation; everything written literally is checked at its exact position.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from stoker.codes import PROPERTY_UNKNOWN
from stoker.definition import Move, relocated
from stoker.diagnostics import Diagnostic
from stoker.functions.base import Function
from stoker.lint.catalog import lint_catalog
from stoker.lint.context import TemplateContext
from stoker.lint.memo import memoized
from stoker.lint.translation import translate
from stoker.nearest import did_you_mean
from stoker.resources import PropertySchema, validate_properties


def _is_function(value: Any) -> bool:
    return isinstance(value, Function)


#: the `Reuse` stage of a resource's properties checked against its type's schema
_CHECKED = "properties checked"


@memoized
def check_resource_properties(ctx: TemplateContext) -> list[Diagnostic]:
    """Property checks against the catalog (E1080, E1081, I1024), once per template for
    the three rules."""
    catalog = lint_catalog()
    template, definition = ctx.parsed, ctx.stack
    found: list[Diagnostic] = []
    disabled = set(definition.disabled)
    reuse = ctx.package.package.reuse.get(ctx.name)
    # a resource's check reads its own text and its resolved type only
    reusing = reuse is not None and reuse.start(_CHECKED, frozenset(disabled), own_text=True)
    for name, resolved in ctx.resource_types.items():
        if name in disabled or resolved.schema is None:
            continue
        if resolved.final in catalog.dynamic_properties:
            continue
        resource = template.resources[name]
        if resource.external_id is not None:
            continue  # an existing resource: Heat does not use its properties
        properties = resource.properties
        if isinstance(properties, Function):
            continue  # the whole map comes from a function (e.g. get_param of a json)
        # a catalog type (providers have no schema): the same type name, the same schema
        kept = reuse.reused(_CHECKED, name, _relocate) if reuse is not None and reusing else None
        if kept is not None and kept[0] == resolved.final:
            found.extend(kept[1])
            continue
        problems = _check_resource(ctx, name, resolved.final, resolved.schema.properties)
        if reuse is not None:
            reuse.keep(_CHECKED, name, (resolved.final, problems))
        found.extend(problems)
    return found


def _relocate(
    kept: tuple[str, list[Diagnostic]], move: Move
) -> tuple[str, list[Diagnostic]] | None:
    found = relocated(kept[1], move)
    return None if found is None else (kept[0], found)


def _check_resource(
    ctx: TemplateContext, name: str, type_name: str, schema: Mapping[str, PropertySchema]
) -> list[Diagnostic]:
    template = ctx.parsed
    resource = template.resources[name]
    _, problems = validate_properties(
        schema,
        translate(resource.properties, type_name),
        path=(*resource.path, template.names.properties),
        type_name=type_name,
        is_unknown=_is_function,
    )
    declared = [key for key, prop in schema.items() if not prop.support_status.hidden]
    found: list[Diagnostic] = []
    for problem in problems:
        # a required property missing from a resource without a properties map: point
        # at the resource's name
        if problem.span is None:
            problem = replace(problem, span=resource.span)
        if problem.code == PROPERTY_UNKNOWN and problem.path:
            hint = did_you_mean(str(problem.path[-1]), declared)
            problem = replace(problem, message=problem.message + hint) if hint else problem
        found.append(problem)
    return found
