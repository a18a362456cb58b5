"""Parameter constraints: building them from their definitions and checking values against them.

Building applies Heat's rules for a well-formed definition (heat-semantics §3) and raises
`DefinitionError` with Heat's wording; checking returns every violation, each message being
the constraint's own ``description`` when it has one, Heat's default text otherwise.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from stoker.errors import DefinitionError as DefinitionError
from stoker.parameters.coercion import ParameterValueError, to_bool, to_number
from stoker.parameters.custom import CheckStatus, CustomConstraintRegistry
from stoker.parameters.model import MASK, Bounds, Constraint, ConstraintKind, Modulus, Parameter
from stoker.parameters.types import ParameterType
from stoker.patterns import LazyPattern
from stoker.template.nodes import plain

_ANY_SCALAR_OR_LIST = frozenset(
    {
        ParameterType.STRING,
        ParameterType.NUMBER,
        ParameterType.BOOLEAN,
        ParameterType.COMMA_DELIMITED_LIST,
    }
)
VALID_TYPES: dict[ConstraintKind, frozenset[ParameterType]] = {
    ConstraintKind.MODULO: frozenset({ParameterType.NUMBER}),
    ConstraintKind.RANGE: frozenset({ParameterType.NUMBER}),
    ConstraintKind.LENGTH: frozenset(
        {ParameterType.STRING, ParameterType.COMMA_DELIMITED_LIST, ParameterType.JSON}
    ),
    ConstraintKind.ALLOWED_VALUES: _ANY_SCALAR_OR_LIST,
    ConstraintKind.ALLOWED_PATTERN: frozenset({ParameterType.STRING}),
    ConstraintKind.CUSTOM_CONSTRAINT: _ANY_SCALAR_OR_LIST,
}
"""Which parameter types each kind applies to; others are "<Class> constraint invalid for <t>"."""

_CUSTOM_NAME = LazyPattern(r"^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$")


def valid_for(kind: ConstraintKind, parameter_type: ParameterType) -> bool:
    return parameter_type in VALID_TYPES[kind]


# --------------------------------------------------------------------------- building


def _number(value: Any, what: str) -> int | float | None:
    """Heat's ``get_num``: strings are read as numbers; anything else must already be one."""
    value = plain(value)
    if value is None:
        return None
    try:
        return to_number(value)
    except ParameterValueError:
        raise DefinitionError(f"{what} must be numeric") from None


def make_bounds(kind: ConstraintKind, low: Any, high: Any) -> Bounds:
    """A range or length definition: at least one end; length ends must be integers."""
    if kind is ConstraintKind.LENGTH and low is None and high is None:
        raise DefinitionError(
            "A length constraint must have a min value and/or a max value specified."
        )
    bounds = Bounds(_bound(low, "min"), _bound(high, "max"))
    if bounds.min is None and bounds.max is None:
        raise DefinitionError(
            "A range constraint must have a min value and/or a max value specified."
        )
    if kind is ConstraintKind.LENGTH:
        for key, end in (("min", bounds.min), ("max", bounds.max)):
            if end is not None and not isinstance(end, int):
                raise DefinitionError("min/max length must be integral", key)
    return bounds


def _bound(value: Any, key: str) -> int | float | None:
    try:
        return _number(value, "min/max")
    except DefinitionError as error:
        raise DefinitionError(str(error), key) from None


def make_modulus(step: Any, offset: Any) -> Modulus:
    """A modulo definition: integer step and offset, ``step != 0``, ``|offset| < |step|``."""
    step, offset = plain(step), plain(offset)
    if step is None or offset is None:
        raise DefinitionError(
            "A modulo constraint must have a step value and an offset value specified."
        )
    numbers: list[int] = []
    for key, raw in (("step", step), ("offset", offset)):
        try:
            number = _number(raw, "step/offset")
        except DefinitionError:
            raise DefinitionError("step/offset must be numeric", key) from None
        assert number is not None
        if not (isinstance(number, int) or number.is_integer()):
            raise DefinitionError("step/offset must be integer", key)
        numbers.append(int(number))
    whole_step, whole_offset = numbers
    if whole_step == 0:
        raise DefinitionError("step cannot be 0.", "step")
    if abs(whole_offset) >= abs(whole_step):
        raise DefinitionError("offset must be smaller (by absolute value) than step.", "offset")
    if whole_step * whole_offset < 0:
        raise DefinitionError("step and offset must be both positive or both negative.", "offset")
    return Modulus(whole_step, whole_offset)


def make_allowed_values(raw: Any) -> tuple[Any, ...]:
    """The allowed values. Their types are not checked here: Heat checks them against the
    parameter's type only when it checks a value (a template default at validate, a given
    value at create), so a number parameter allowing ``ab`` passes validate without a
    default (measured on 24.1.2; see ``unreadable_allowed_value``)."""
    raw = plain(raw)
    if not isinstance(raw, list):
        raise DefinitionError("AllowedValues must be a list")
    return tuple(raw)


def unreadable_allowed_value(
    allowed: tuple[Any, ...], parameter_type: ParameterType
) -> tuple[int, Any] | None:
    """The first allowed value (index, value) that does not read as a number or boolean
    parameter's type: every value checked against the list then fails."""
    if parameter_type not in (ParameterType.NUMBER, ParameterType.BOOLEAN):
        return None
    for index, item in enumerate(allowed):
        if not _reads_as(item, parameter_type):
            return index, item
    return None


def make_pattern(raw: Any) -> str:
    """An allowed pattern: a string Python's ``re`` compiles (Heat uses ``re`` too)."""
    raw = plain(raw)
    if not isinstance(raw, str):
        raise DefinitionError("AllowedPattern must be a string")
    try:
        re.compile(raw)
    except re.error as error:
        raise DefinitionError(
            f'AllowedPattern "{raw}" is not a valid regular expression: {error}'
        ) from None
    return raw


def make_custom(raw: Any) -> str:
    """A custom constraint name (``nova.flavor``); anything else can never name a plugin."""
    raw = plain(raw)
    if not isinstance(raw, str) or not _CUSTOM_NAME.match(raw):
        raise DefinitionError(
            f"custom_constraint {raw!r} is not a constraint name (such as nova.flavor or ip_addr)"
        )
    return raw


# --------------------------------------------------------------------------- checking


class Violation(NamedTuple):
    constraint: Constraint
    message: str


class Unchecked(NamedTuple):
    """A custom constraint that could not be checked offline, and why."""

    constraint: Constraint
    reason: str


def check_constraints(
    parameter: Parameter,
    value: Any,
    registry: CustomConstraintRegistry | None = None,
    *,
    custom: bool = True,
) -> tuple[list[Violation], list[Unchecked]]:
    """Check a coerced ``value`` against every constraint of ``parameter``.

    Custom constraints are skipped when ``custom`` is false (Heat does not apply them to
    template defaults) and reported as unchecked when there is no ``registry``.
    """
    violations: list[Violation] = []
    unchecked: list[Unchecked] = []
    for constraint in parameter.constraints:
        if constraint.kind is ConstraintKind.CUSTOM_CONSTRAINT:
            if not custom:
                continue
            if registry is None:
                unchecked.append(Unchecked(constraint, "no custom constraint registry was given"))
                continue
            outcome = registry.check(str(constraint.definition), value, hidden=parameter.hidden)
            if outcome.status is CheckStatus.NOT_CHECKED:
                unchecked.append(Unchecked(constraint, outcome.message))
                continue
            problem = outcome.message if outcome.status is CheckStatus.FAILED else None
        else:
            problem = _problem(constraint, parameter, value)
        if problem is not None:
            violations.append(Violation(constraint, constraint.description or problem))
    return violations, unchecked


def _problem(constraint: Constraint, parameter: Parameter, value: Any) -> str | None:
    """Heat's default message when ``value`` breaks ``constraint``, else None."""
    if constraint.kind is ConstraintKind.ALLOWED_VALUES:
        assert isinstance(constraint.definition, tuple)
        return _allowed_values_problem(constraint.definition, parameter, value)
    return value_problem(constraint, value, parameter.shown)


def value_problem(
    constraint: Constraint, value: Any, show: Callable[[Any], str] = str
) -> str | None:
    """Heat's default message when ``value`` breaks a range, length, modulo or pattern
    constraint, else None. Shared by parameters and resource properties; ``show`` renders
    the value in the message (parameters mask hidden ones)."""
    definition = constraint.definition
    kind = constraint.kind
    if isinstance(definition, Bounds):
        if kind is ConstraintKind.LENGTH:
            try:
                measured: int | float = len(value)
            except TypeError as error:
                return str(error)
        else:
            measured = value
        if (definition.min is not None and measured < definition.min) or (
            definition.max is not None and measured > definition.max
        ):
            where = f"(min: {definition.min}, max: {definition.max})"
            if kind is ConstraintKind.LENGTH:
                return f"length ({measured}) is out of range {where}"
            return f"{show(value)} is out of range {where}"
        return None
    if isinstance(definition, Modulus):
        if value % definition.step != definition.offset:
            return (
                f"{show(value)} is not a multiple of {definition.step} "
                f"with an offset of {definition.offset}"
            )
        return None
    if kind is ConstraintKind.ALLOWED_PATTERN:
        assert isinstance(definition, str)
        text = str(value)
        match = re.match(definition, text)
        if match is None or match.end() != len(text):
            return f'"{show(text)}" does not match pattern "{definition}"'
    return None


def _allowed_values_problem(
    allowed: tuple[Any, ...], parameter: Parameter, value: Any
) -> str | None:
    if isinstance(value, list):
        # Heat compares list items raw: a list param's items are strings, so [1, 2] never
        # matches "1,2".
        accepted = all(item in allowed for item in value)
    else:
        try:
            accepted = value in tuple(_as_type(item, parameter.type) for item in allowed)
        except ParameterValueError:
            bad = next(item for item in allowed if not _reads_as(item, parameter.type))
            return f'Value "{bad}" is invalid for data type "{parameter.type_name}".'
    if accepted:
        return None
    return not_allowed(value, allowed, hidden=parameter.hidden)


def not_allowed(value: Any, allowed: Iterable[Any], *, hidden: bool = False) -> str:
    """Heat's message for a ``value`` (masked when ``hidden``) outside ``allowed``."""
    shown = MASK if hidden else _json(value)
    return f"{shown} is not an allowed value [{', '.join(_json(item) for item in allowed)}]"


def _as_type(item: Any, parameter_type: ParameterType) -> Any:
    """Heat's ``to_schema_type`` for the types allowed_values applies to as scalars."""
    if parameter_type is ParameterType.NUMBER:
        return to_number(item)
    if parameter_type is ParameterType.BOOLEAN:
        return to_bool(str(item))
    if parameter_type is ParameterType.STRING:
        return str(item)
    return item


def _reads_as(item: Any, parameter_type: ParameterType) -> bool:
    try:
        _as_type(item, parameter_type)
    except ParameterValueError:
        return False
    return True


def _json(value: Any) -> str:
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return str(value)
