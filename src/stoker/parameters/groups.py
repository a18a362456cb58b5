"""The HOT ``parameter_groups`` section: how user interfaces should group and order inputs.

Groups change no behaviour, but Heat rejects a template whose groups are malformed or name a
parameter that is not declared (pseudo parameters included, measured on Heat 24.1.2) or name
one twice. Messages keep Heat's "Parameter Groups error: parameter_groups.<label>: ..." form.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from stoker import codes
from stoker.diagnostics import Diagnostic, Path, Span
from stoker.parameters.model import Parameter
from stoker.template.nodes import plain, span_of, value_span
from stoker.template.versions import Format, TemplateVersion

_PREFIX = "Parameter Groups error"


class ParameterGroup(NamedTuple):
    label: str | None
    description: str | None
    parameters: tuple[str, ...]
    span: Span | None = None
    path: Path = ()


def parse_parameter_groups(
    section: Any,
    parameters: Mapping[str, Parameter],
    version: TemplateVersion,
    path: Path = ("parameter_groups",),
) -> tuple[list[ParameterGroup], list[Diagnostic]]:
    """The groups in ``section`` and every problem with them (CFN has no parameter groups)."""
    diagnostics: list[Diagnostic] = []

    def error(where: str, message: str, at: Path, span: Span | None) -> None:
        diagnostics.append(
            Diagnostic(codes.PARAMETER_GROUPS, f"{_PREFIX}: {where}: {message}", at, span)
        )

    if not section:  # Heat skips an empty or null section
        return [], []
    if version.format is Format.CFN:
        error("ParameterGroups", "CFN templates have no parameter groups", path, span_of(section))
        return [], diagnostics
    if not isinstance(section, list):
        error("parameter_groups", "The parameter_groups should be a list.", path, span_of(section))
        return [], diagnostics

    groups: list[ParameterGroup] = []
    grouped: set[str] = set()
    for index, group in enumerate(section):
        at = (*path, index)
        span = value_span(section, index)
        if not isinstance(group, Mapping):
            error("parameter_groups", "Each parameter group should be a map.", at, span)
            continue
        label = plain(group.get("label"))
        where = f"parameter_groups.{'' if label is None else label}"
        names = group.get("parameters")
        if names is None:
            error(where, "The parameters must be provided for each parameter group.", at, span)
            continue
        if not isinstance(names, list):
            error(
                where,
                "The parameters of parameter group should be a list.",
                (*at, "parameters"),
                value_span(group, "parameters"),
            )
            continue
        for position, raw in enumerate(names):
            name = plain(raw)
            name_at = (*at, "parameters", position)
            name_span = value_span(names, position)
            key = name if isinstance(name, str) else repr(name)
            if key in grouped:
                error(
                    where,
                    f"The {name} parameter must be assigned to one parameter group only.",
                    name_at,
                    name_span,
                )
                continue
            grouped.add(key)
            if not isinstance(name, str) or name not in parameters:
                error(
                    where,
                    f"The grouped parameter {name} does not reference a valid parameter.",
                    name_at,
                    name_span,
                )
        description = plain(group.get("description"))
        groups.append(
            ParameterGroup(
                label=None if label is None else str(label),
                description=None if description is None else str(description),
                parameters=tuple(str(plain(name)) for name in names),
                span=span,
                path=at,
            )
        )
    return groups, diagnostics
