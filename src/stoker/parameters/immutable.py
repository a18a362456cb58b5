"""The update-time check of ``immutable: true`` parameters (heat-semantics §3).

Heat compares the stack's current *parsed* value with the *raw* value the update supplies, so
a number 5 against "5", or a list against "a,b", counts as a change; stoker keeps that
behaviour so an update it accepts is one Heat accepts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stoker import codes
from stoker.diagnostics import Diagnostic
from stoker.parameters.model import Parameter
from stoker.template.nodes import plain, value_span


def check_immutable(
    old_parameters: Mapping[str, Parameter],
    old_values: Mapping[str, Any],
    new_raw_values: Mapping[Any, Any],
    *,
    new_parameters: Mapping[str, Parameter] | None = None,
) -> list[Diagnostic]:
    """One error naming every immutable parameter the update would change, or nothing.

    Only parameters marked immutable in the current template, with a current value, and
    given a (non-null) new value count; with ``new_parameters``, only those the new template
    still declares.
    """
    changed: list[Parameter] = []
    for name, parameter in old_parameters.items():
        if not parameter.immutable or name not in old_values:
            continue
        if new_parameters is not None and name not in new_parameters:
            continue
        new = new_raw_values.get(name)
        if new is not None and plain(new) != old_values[name]:
            changed.append(parameter)
    if not changed:
        return []
    first = changed[0]
    notes = [f"{p.name} is declared immutable at {p.span}" for p in changed if p.span]
    notes += [
        f"new value for {p.name} at {span}"
        for p in changed
        if (span := value_span(new_raw_values, p.name)) is not None
    ]
    return [
        Diagnostic(
            codes.PARAMETER_VALUE,
            "The following parameters are immutable and may not be updated: "
            + ", ".join(p.name for p in changed),
            first.path,
            first.span,
            notes=tuple(notes),
        )
    ]
