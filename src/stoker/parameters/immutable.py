"""The update-time check of ``immutable: true`` parameters (heat-semantics §3).

Heat compares the stack's current *parsed* value with the *raw* value the update supplies, so
a number 5 against "5", or a list against "a,b", counts as a change (a PATCH that keeps a
number given as text is refused too); stoker keeps that behaviour so an update it accepts is
one Heat accepts (tests/fidelity/updates/cases/parameters.yaml, immutable_*).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stoker import codes
from stoker.diagnostics import Diagnostic
from stoker.parameters.model import Parameter
from stoker.template.nodes import plain, value_span


def check_immutable(
    old_values: Mapping[str, Any],
    new_parameters: Mapping[str, Parameter],
    new_raw_values: Mapping[Any, Any],
    new_values: Mapping[str, Any],
) -> list[Diagnostic]:
    """One error naming every immutable parameter the update would change, or nothing.

    As Heat's ``immutable_params_modified``: only parameters both templates declare count
    (``old_values``, the stack's current values, holds the old template's), and whether one
    is immutable is the *new* template's word. The new value is the one the request gives
    (``new_raw_values``, the environment's ``parameters``, raw) or else the one the new
    definition resolves (``new_values``: a ``parameter_defaults`` entry or the new default),
    so omitting a value given at create, clearing it, or changing the default is a change
    (a null value counts as not given).
    """
    changed: list[Parameter] = []
    for name, parameter in new_parameters.items():
        if not parameter.immutable or name not in old_values:
            continue
        given = new_raw_values.get(name)
        new = plain(given) if given is not None else new_values.get(name)
        if new != old_values[name]:
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
