"""The parsed form of a parameter declaration and of its constraints.

These are values: parsing builds them once from the template (with spans for reporting),
and every later stage (coercion, constraint checks, stack show, the validate API) reads
them without going back to the raw mapping.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from stoker.diagnostics import Path, Span
from stoker.parameters.types import ParameterType
from stoker.template.versions import Format, cfn_spelling

MASK: Final = "******"
"""What Heat shows instead of a hidden parameter's value, everywhere."""


class ConstraintKind(StrEnum):
    """Constraint kinds in the order Heat looks for them in one HOT constraint entry."""

    MODULO = "modulo"
    RANGE = "range"
    LENGTH = "length"
    ALLOWED_VALUES = "allowed_values"
    ALLOWED_PATTERN = "allowed_pattern"
    CUSTOM_CONSTRAINT = "custom_constraint"

    @property
    def class_name(self) -> str:
        """Heat's class name for the kind, as its messages print it ("Range constraint ...")."""
        return _CLASS_NAMES[self]


_CLASS_NAMES = {kind: cfn_spelling(kind.value) for kind in ConstraintKind}


@dataclass(slots=True, frozen=True)
class Bounds:
    """The definition of a range or length constraint; either end may be open (None)."""

    min: int | float | None
    max: int | float | None


@dataclass(slots=True, frozen=True)
class Modulus:
    """The definition of a modulo constraint: ``value % step == offset``."""

    step: int
    offset: int


ConstraintDefinition = Bounds | Modulus | tuple[Any, ...] | str
"""Bounds (range, length), Modulus (modulo), the allowed values, a pattern or a plugin name."""


@dataclass(slots=True, frozen=True)
class Constraint:
    """One well-formed constraint. ``description``, when set, replaces the failure message."""

    kind: ConstraintKind
    definition: ConstraintDefinition
    description: str | None = None
    span: Span | None = None
    path: Path = ()


class _NotGiven:
    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN: Final = _NotGiven()
"""Marks "no value" where None is itself a possible value."""


@dataclass(slots=True, frozen=True)
class Parameter:
    """One declared parameter.

    ``span`` is where its name is written (diagnostics about its value point there);
    ``default_error`` holds why the template default was rejected, so that resolving
    values does not report the same problem a second time (not compared).
    """

    name: str
    type: ParameterType
    default: Any = None
    has_default: bool = False
    hidden: bool = False
    label: str | None = None
    description: str | None = None
    immutable: bool = False
    tags: tuple[Any, ...] | None = None
    constraints: tuple[Constraint, ...] = ()
    span: Span | None = None
    path: Path = ()
    format: Format = Format.HOT
    default_span: Span | None = None
    default_error: str | None = field(default=None, compare=False)

    @property
    def type_name(self) -> str:
        """The type as the template spelled it (``string`` in HOT, ``String`` in CFN)."""
        return self.type.name_in(self.format)

    def shown(self, value: object) -> str:
        """``str(value)`` for messages, or the mask when the parameter is hidden."""
        return MASK if self.hidden else str(value)

    def summary(self, value: Any = NOT_GIVEN) -> dict[str, Any]:
        """The entry Heat's validate API (``POST /validate``) shows for this parameter.

        ``value`` is the resolved value when the request supplied one (Heat's ``Value``).
        Hidden defaults and values are masked: the API must never echo a secret.
        """
        result: dict[str, Any] = {
            "Type": self.type.cfn_name,
            "Description": self.description or "",
        }
        if self.has_default:
            result["Default"] = MASK if self.hidden else self.default
        result["NoEcho"] = "true" if self.hidden else "false"
        result["Label"] = self.label
        if value is not NOT_GIVEN:
            result["Value"] = MASK if self.hidden else value
        descriptions: list[str] = []
        for constraint in self.constraints:
            result.update(_summary_keys(constraint))
            if constraint.description:
                descriptions.append(constraint.description)
        if descriptions:
            result["ConstraintDescription"] = " ".join(descriptions)
        if self.tags:
            result["Tags"] = list(self.tags)
        return result


def _summary_keys(constraint: Constraint) -> dict[str, Any]:
    definition = constraint.definition
    kind = constraint.kind
    keys: dict[str, Any] = {}
    if isinstance(definition, Bounds):
        low, high = (
            ("MinLength", "MaxLength")
            if kind is ConstraintKind.LENGTH
            else ("MinValue", "MaxValue")
        )
        if definition.min is not None:
            keys[low] = definition.min
        if definition.max is not None:
            keys[high] = definition.max
    elif isinstance(definition, Modulus):
        keys["Step"] = definition.step
        keys["Offset"] = definition.offset
    elif kind is ConstraintKind.ALLOWED_VALUES:
        keys["AllowedValues"] = list(definition)
    elif kind is ConstraintKind.ALLOWED_PATTERN:
        keys["AllowedPattern"] = definition
    elif kind is ConstraintKind.CUSTOM_CONSTRAINT:
        keys["CustomConstraint"] = definition
    return keys
