"""Property constraints: declaring them, their API form, and checking a value against one.

Heat uses one constraint model for parameters and properties, so the vocabulary is the
parameters' `Constraint`; the rules differ slightly (property types, allowed values
compared in the property's type) and follow Heat's property semantics (heat-semantics §6.2).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from stoker.errors import SchemaError as SchemaError
from stoker.parameters import (
    Bounds,
    CheckStatus,
    Constraint,
    ConstraintKind,
    CustomConstraintRegistry,
    Modulus,
    ParameterType,
    ParameterValueError,
    coerce_to,
    value_problem,
)
from stoker.parameters.constraints import not_allowed

# Which property types (by name) each kind applies to: Heat's ``valid_types``.
_NUMERIC = frozenset({"integer", "number"})
_SCALAR_OR_LIST = frozenset({"string", "integer", "number", "boolean", "list"})
VALID_TYPES: dict[ConstraintKind, frozenset[str]] = {
    ConstraintKind.RANGE: _NUMERIC,
    ConstraintKind.MODULO: _NUMERIC,
    ConstraintKind.LENGTH: frozenset({"string", "list", "map"}),
    ConstraintKind.ALLOWED_VALUES: _SCALAR_OR_LIST,
    ConstraintKind.ALLOWED_PATTERN: frozenset({"string"}),
    ConstraintKind.CUSTOM_CONSTRAINT: _SCALAR_OR_LIST,
}

# --------------------------------------------------------------------------- declaring


def value_range(
    min: float | None = None,  # noqa: A002 - Heat's own keyword names
    max: float | None = None,  # noqa: A002
    description: str | None = None,
) -> Constraint:
    """``range: {min, max}``, both ends inclusive and optional."""
    if min is None and max is None:
        raise SchemaError("A range constraint must have a min value and/or a max value specified.")
    return Constraint(ConstraintKind.RANGE, Bounds(min, max), description)


def length(
    min: int | None = None,  # noqa: A002
    max: int | None = None,  # noqa: A002
    description: str | None = None,
) -> Constraint:
    """``length: {min, max}`` on ``len()`` of a string, list or map."""
    if min is None and max is None:
        raise SchemaError("A length constraint must have a min value and/or a max value specified.")
    return Constraint(ConstraintKind.LENGTH, Bounds(min, max), description)


def modulo(step: int, offset: int, description: str | None = None) -> Constraint:
    """``modulo: {step, offset}``: ``value % step == offset``."""
    if step == 0:
        raise SchemaError("step cannot be 0.")
    if abs(offset) >= abs(step):
        raise SchemaError("offset must be smaller (by absolute value) than step.")
    if step * offset < 0:
        raise SchemaError("step and offset must be both positive or both negative.")
    return Constraint(ConstraintKind.MODULO, Modulus(step, offset), description)


def allowed_values(*values: Any, description: str | None = None) -> Constraint:
    return Constraint(ConstraintKind.ALLOWED_VALUES, tuple(values), description)


def allowed_pattern(pattern: str, description: str | None = None) -> Constraint:
    """A regular expression the whole value must match."""
    re.compile(pattern)
    return Constraint(ConstraintKind.ALLOWED_PATTERN, pattern, description)


def custom_constraint(name: str, description: str | None = None) -> Constraint:
    """A named check (``ip_addr``, ``nova.flavor``); cloud ones cannot be checked offline."""
    return Constraint(ConstraintKind.CUSTOM_CONSTRAINT, name, description)


def constraint_to_dict(constraint: Constraint) -> dict[str, Any]:
    """The API form: one key naming the kind, plus ``description`` when there is one."""
    definition = constraint.definition
    body: Any
    if isinstance(definition, Bounds):
        body = {
            key: end
            for key, end in (("min", definition.min), ("max", definition.max))
            if end is not None
        }
    elif isinstance(definition, Modulus):
        body = {"step": definition.step, "offset": definition.offset}
    elif isinstance(definition, tuple):
        body = list(definition)
    else:
        body = definition
    result: dict[str, Any] = {constraint.kind.value: body}
    if constraint.description:
        result["description"] = constraint.description
    return result


def constraint_from_dict(data: Mapping[str, Any]) -> Constraint:
    """The inverse of `constraint_to_dict` (the catalog stores constraints this way)."""
    description = data.get("description")
    kinds = [key for key in data if key != "description"]
    if len(kinds) != 1:
        raise SchemaError(f"a constraint has exactly one kind, got {sorted(kinds)}")
    kind = ConstraintKind(kinds[0])
    body = data[kinds[0]]
    if kind is ConstraintKind.RANGE:
        return value_range(body.get("min"), body.get("max"), description)
    if kind is ConstraintKind.LENGTH:
        return length(body.get("min"), body.get("max"), description)
    if kind is ConstraintKind.MODULO:
        return modulo(body["step"], body["offset"], description)
    if kind is ConstraintKind.ALLOWED_VALUES:
        return allowed_values(*body, description=description)
    if kind is ConstraintKind.ALLOWED_PATTERN:
        return allowed_pattern(body, description)
    return custom_constraint(body, description)


# --------------------------------------------------------------------------- checking


class Outcome(NamedTuple):
    """The verdict of one constraint on one value: ``problem`` is Heat's message (or the
    constraint's description); ``unchecked`` says why a custom one could not be checked."""

    problem: str | None = None
    unchecked: str | None = None


PASSED = Outcome()


def check_constraint(
    constraint: Constraint,
    type_name: str,
    value: Any,
    registry: CustomConstraintRegistry | Callable[[], CustomConstraintRegistry],
) -> Outcome:
    """Check an already coerced ``value`` of a property of type ``type_name``.

    ``registry`` may be a function that makes it: only a custom constraint reads it, and
    most constraints (an ``OS::Heat::Value``'s ``type``: allowed values) are not custom."""
    if constraint.kind is ConstraintKind.CUSTOM_CONSTRAINT:
        if not isinstance(registry, CustomConstraintRegistry):
            registry = registry()
        verdict = registry.check(str(constraint.definition), value)
        if verdict.status is CheckStatus.NOT_CHECKED:
            return Outcome(unchecked=verdict.message)
        if verdict.status is CheckStatus.PASSED:
            return PASSED
        return Outcome(constraint.description or verdict.message)
    problem = _problem(constraint, type_name, value)
    if problem is None:
        return PASSED
    return Outcome(constraint.description or problem)


def _problem(constraint: Constraint, type_name: str, value: Any) -> str | None:
    if constraint.kind is ConstraintKind.ALLOWED_VALUES:
        assert isinstance(constraint.definition, tuple)
        return _allowed_values_problem(constraint.definition, type_name, value)
    return value_problem(constraint, value)


def _allowed_values_problem(allowed: tuple[Any, ...], type_name: str, value: Any) -> str | None:
    if isinstance(value, list):
        # Heat compares list items raw, without converting them to any type.
        accepted = all(item in allowed for item in value)
    else:
        try:
            typed = tuple(_as_type(item, type_name) for item in allowed)
        except ParameterValueError as error:
            return str(error)
        accepted = value in typed
    if accepted:
        return None
    return not_allowed(value, allowed)


def _as_type(item: Any, type_name: str) -> Any:
    """Heat's ``to_schema_type``: an allowed value read as the property's type."""
    try:
        if type_name == "integer":
            number = coerce_to(ParameterType.NUMBER, item)
            if isinstance(number, float):
                raise ParameterValueError(f"{number} is not an integer.")
            return number
        if type_name == "number":
            return coerce_to(ParameterType.NUMBER, item)
        if type_name == "string":
            return str(item)
        if type_name == "boolean":
            return coerce_to(ParameterType.BOOLEAN, str(item))
    except ParameterValueError:
        raise ParameterValueError(
            f'Value "{item}" is invalid for data type "{type_name.capitalize()}".'
        ) from None
    return item
