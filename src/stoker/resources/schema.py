"""Declared property and attribute schemas, and validating property values against them.

A schema is a value: plugins declare theirs, the catalog loads Heat's from data, and the
same declaration drives validation, ``stoker resource-type show`` and the linter. Property
coercion is Heat's (heat-semantics §6.2), stricter than parameter coercion in places
(booleans take only ``true``/``false``) and looser in others (integers pass through ``int()``).
"""

from __future__ import annotations

import json
import numbers
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple

from stoker import codes
from stoker.diagnostics import Diagnostic, Path, Severity, Span
from stoker.parameters import (
    Constraint,
    CustomConstraintRegistry,
    ParameterType,
    default_constraints,
)
from stoker.resources.constraints import (
    VALID_TYPES,
    SchemaError,
    check_constraint,
    constraint_from_dict,
    constraint_to_dict,
)
from stoker.template.nodes import key_span, plain, span_of, value_span

__all__ = [
    "LIST_ITEMS",
    "PARAMETER_PROPERTY_TYPES",
    "SHOW",
    "SUPPORTED",
    "AttributeSchema",
    "AttributeType",
    "PropertySchema",
    "PropertyType",
    "SchemaError",
    "SupportLevel",
    "SupportStatus",
    "validate_properties",
]


class PropertyType(StrEnum):
    """Property types, spelled as Heat's API emits them (templates write ``String`` ...)."""

    STRING = "string"
    INTEGER = "integer"
    NUMBER = "number"
    BOOLEAN = "boolean"
    MAP = "map"
    LIST = "list"
    ANY = "any"

    @property
    def heat_name(self) -> str:
        """Heat's own spelling (``Integer``), which its messages print."""
        return self.value.capitalize()


#: the property type a parameter type is read as (a provider template's properties, an
#: ``OS::Heat::Value``'s ``value`` of a given ``type``)
PARAMETER_PROPERTY_TYPES: dict[ParameterType, PropertyType] = {
    ParameterType.STRING: PropertyType.STRING,
    ParameterType.NUMBER: PropertyType.NUMBER,
    ParameterType.COMMA_DELIMITED_LIST: PropertyType.LIST,
    ParameterType.JSON: PropertyType.MAP,
    ParameterType.BOOLEAN: PropertyType.BOOLEAN,
}


class AttributeType(StrEnum):
    STRING = "string"
    MAP = "map"
    LIST = "list"
    INTEGER = "integer"
    BOOLEAN = "boolean"


class SupportLevel(StrEnum):
    SUPPORTED = "SUPPORTED"
    DEPRECATED = "DEPRECATED"
    UNSUPPORTED = "UNSUPPORTED"
    HIDDEN = "HIDDEN"


class SupportStatus(NamedTuple):
    """Where a type or property stands, the release it dates from, and its history."""

    status: SupportLevel = SupportLevel.SUPPORTED
    version: str | None = None
    previous: SupportStatus | None = None

    @property
    def hidden(self) -> bool:
        """HIDDEN things still work in templates, but Heat's API does not show them."""
        return self.status is SupportLevel.HIDDEN

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status.value,
            "version": self.version,
            "previous_status": self.previous.to_dict() if self.previous else None,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> SupportStatus:
        if not data:
            return SUPPORTED
        previous = data.get("previous_status")
        return cls(
            SupportLevel(data.get("status", "SUPPORTED")),
            data.get("version"),
            cls.from_dict(previous) if previous else None,
        )


SUPPORTED = SupportStatus()

LIST_ITEMS = "*"
"""The key of a list property's item schema (Heat's ``AnyIndexDict``)."""


@dataclass(slots=True, frozen=True)
class PropertySchema:
    """One declared property. ``schema`` describes a map's keys, or a list's items under
    ``"*"``. ``default`` is None when there is none (Heat cannot tell the two apart).
    Immutable, compared and hashed by value."""

    type: PropertyType
    description: str = ""
    required: bool = False
    default: Any = None
    constraints: tuple[Constraint, ...] = ()
    update_allowed: bool = False
    immutable: bool = False
    schema: Mapping[str, PropertySchema] | None = None
    support_status: SupportStatus = SUPPORTED
    #: declared but not implemented: setting it is an error (20 AWS properties)
    implemented: bool = True
    #: a provider template's list or json parameter seen as a property: as in Heat, a
    #: list also takes a comma-delimited string, a map also a string or a list (passed
    #: on for the json parameter to parse)
    allow_conversion: bool = False

    def __post_init__(self) -> None:
        self._check()

    def _check(self) -> None:
        if self.update_allowed and self.immutable:
            raise SchemaError("Options update_allowed and immutable cannot both be True")
        if self.schema is not None:
            if self.type not in (PropertyType.LIST, PropertyType.MAP):
                raise SchemaError(f"Schema valid only for List or Map, not {self.type.heat_name}")
            if self.type is PropertyType.LIST and set(self.schema) != {LIST_ITEMS}:
                raise SchemaError('a list schema has exactly one key, "*" (the item schema)')
        for constraint in self.constraints:
            if self.type.value not in VALID_TYPES[constraint.kind]:
                raise SchemaError(
                    f"{constraint.kind.class_name} constraint invalid for {self.type.heat_name}"
                )

    def to_dict(self, *, descriptions: bool = False) -> dict[str, Any]:
        """The catalog / API form (``GET /resource_types/{type}`` without support status)."""
        result: dict[str, Any] = {"type": self.type.value}
        if descriptions and self.description:
            result["description"] = self.description
        if self.default is not None:
            result["default"] = self.default
        result["required"] = self.required
        result["update_allowed"] = self.update_allowed
        result["immutable"] = self.immutable
        if self.constraints:
            result["constraints"] = [constraint_to_dict(c) for c in self.constraints]
        if self.schema is not None:
            result["schema"] = {
                key: nested.to_dict(descriptions=descriptions)
                for key, nested in self.schema.items()
            }
        return result

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PropertySchema:
        nested = data.get("schema")
        return cls(
            type=PropertyType(data["type"]),
            description=data.get("description", ""),
            required=bool(data.get("required", False)),
            default=data.get("default"),
            constraints=tuple(constraint_from_dict(c) for c in data.get("constraints", ())),
            update_allowed=bool(data.get("update_allowed", False)),
            immutable=bool(data.get("immutable", False)),
            schema=(
                {key: cls.from_dict(item) for key, item in nested.items()}
                if nested is not None
                else None
            ),
            support_status=SupportStatus.from_dict(data.get("support_status")),
            implemented=bool(data.get("implemented", True)),
        )


@dataclass(slots=True, frozen=True)
class AttributeSchema:
    """One declared attribute. Heat only logs a value of the wrong type, so ``type`` is
    documentation; None when the type declares none (TestResource's ``output``)."""

    type: AttributeType | None = None
    description: str = ""
    support_status: SupportStatus = SUPPORTED
    #: Heat re-reads the value on every use instead of caching it
    cache_none: bool = False

    def to_dict(self, *, descriptions: bool = False) -> dict[str, Any]:
        result: dict[str, Any] = {}
        if descriptions and self.description:
            result["description"] = self.description
        if self.type is not None:
            result["type"] = self.type.value
        return result

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AttributeSchema:
        kind = data.get("type")
        return cls(
            type=AttributeType(kind) if kind is not None else None,
            description=data.get("description", ""),
            support_status=SupportStatus.from_dict(data.get("support_status")),
            cache_none=data.get("cache_mode") == "cache_none",
        )


SHOW = AttributeSchema(
    AttributeType.MAP,
    "Detailed information about the resource.",
    cache_none=True,
)
"""The ``show`` attribute Heat gives every type (the engine answers it itself)."""


# --------------------------------------------------------------------------- validation


class _Invalid(ValueError):
    """A value that cannot be read as its property's type; the message is Heat's."""


def validate_properties(
    schema: Mapping[str, PropertySchema],
    values: Mapping[str, Any] | None,
    *,
    path: Path,
    type_name: str,
    dynamic: bool = False,
    pending: Collection[str] = (),
    is_unknown: Callable[[Any], bool] | None = None,
) -> tuple[dict[str, Any], list[Diagnostic]]:
    """Validate a resource's resolved property ``values`` against its ``schema``.

    Returns the values as handlers see them (every declared property present, defaults
    applied, values coerced, nested maps and lists likewise) and every finding, each at
    its own path below ``path`` (``("resources", "web", "properties")``). ``dynamic``
    accepts any property unchecked (OS::Heat::None). Custom constraints are checked with
    the cloud-free ones (`default_constraints`); those needing a cloud are reported
    as not checked (INFO). Values not known yet (they read a resource that does not exist
    yet) are not checked, as in Heat: name such top-level properties in ``pending`` (leave
    them out of ``values``; they come back as None) or recognise such values anywhere with
    ``is_unknown`` (they come back as they are).
    """
    if dynamic:
        return dict(plain(values or {})), []
    checker = _Checker(type_name, is_unknown)
    result = checker.properties(schema, values or {}, path, span_of(values), pending)
    return result, checker.found


class _Checker:
    def __init__(self, type_name: str, is_unknown: Callable[[Any], bool] | None) -> None:
        self.type_name = type_name
        self._registry: CustomConstraintRegistry | None = None
        self.is_unknown = is_unknown
        self.found: list[Diagnostic] = []

    def _get_registry(self) -> CustomConstraintRegistry:
        """The default registry, made when a constraint is first checked: most resources'
        properties have no constraint, and each resource's validation (twice per create)
        would otherwise build a registry of ~13 checks."""
        if self._registry is None:
            self._registry = default_constraints()
        return self._registry

    def report(
        self,
        message: str,
        path: Path,
        span: Span | None,
        code: str = codes.PROPERTY_VALUE,
        severity: Severity = Severity.ERROR,
        notes: tuple[str, ...] = (),
    ) -> None:
        self.found.append(Diagnostic(code, message, path, span, severity, notes))

    def properties(
        self,
        schema: Mapping[str, PropertySchema],
        values: Mapping[Any, Any],
        path: Path,
        span: Span | None,
        pending: Collection[str] = (),
    ) -> dict[str, Any]:
        """A map of properties: unknown ones first (as Heat reports them), then each
        declared one in declaration order."""
        if not isinstance(values, Mapping):
            self.report(f'"{plain(values)}" is not a map', path, span)
            return {}
        for key in [*values, *sorted(name for name in pending if name not in values)]:
            if key not in schema:
                self.report(
                    f"Unknown Property {key}",
                    (*path, key),
                    key_span(values, key) or span,
                    codes.PROPERTY_UNKNOWN,
                    notes=(_known(self.type_name, schema),),
                )
        result: dict[str, Any] = {}
        for name, prop in schema.items():
            where = (*path, name)
            if name in pending and name not in values:
                result[name] = None
            elif name in values:
                if not prop.implemented:
                    self.report(f"Property {name} not implemented yet", where, span)
                result[name] = self.value(prop, values[name], where, value_span(values, name))
            elif prop.default is not None:
                result[name] = self.value(prop, None, where, span)
            elif prop.required:
                self.report(f"Property {name} not assigned", path, span)
                result[name] = None
            else:
                result[name] = None
        return result

    def value(self, prop: PropertySchema, raw: Any, path: Path, span: Span | None) -> Any:
        """One value: an explicit null means the default, else the type's empty value."""
        if raw is not None and self.is_unknown is not None and self.is_unknown(raw):
            return raw
        if raw is None:
            raw = prop.default if prop.default is not None else _EMPTY[prop.type]
        try:
            value = self.coerce(prop, raw, path, span)
        except _Invalid as error:
            self.report(str(error), path, span)
            return None
        for constraint in prop.constraints:
            outcome = check_constraint(constraint, prop.type.value, value, self._get_registry)
            if outcome.problem is not None:
                self.report(outcome.problem, path, span)
            elif outcome.unchecked is not None:
                self.report(
                    f"Property {path[-1]}: custom constraint {constraint.definition} was not "
                    f"checked offline ({outcome.unchecked})",
                    path,
                    span,
                    codes.CONSTRAINT_NOT_CHECKED,
                    Severity.INFO,
                )
        return value

    def coerce(self, prop: PropertySchema, raw: Any, path: Path, span: Span | None) -> Any:
        kind = prop.type
        if kind is PropertyType.MAP:
            if prop.allow_conversion and not isinstance(raw, Mapping):
                if isinstance(raw, str):
                    return raw
                if isinstance(raw, Sequence):
                    return json.dumps(plain(raw))
            if not isinstance(raw, Mapping):
                raise _Invalid(f'"{plain(raw)}" is not a map')
            if prop.schema is None:
                return dict(plain(raw))
            return self.properties(prop.schema, raw, path, span_of(raw) or span)
        if kind is PropertyType.LIST:
            if prop.allow_conversion and isinstance(raw, str):
                raw = raw.split(",") if raw else []
            if isinstance(raw, str | bytes) or not isinstance(raw, Sequence):
                raise _Invalid(f'"{plain(raw)!r}" is not a list')
            item = prop.schema[LIST_ITEMS] if prop.schema is not None else None
            if item is None:
                return list(plain(raw))
            return [
                self.value(item, entry, (*path, index), value_span(raw, index) or span)
                for index, entry in enumerate(raw)
            ]
        return _SCALARS[kind](plain(raw))


def _known(type_name: str, schema: Mapping[str, PropertySchema]) -> str:
    shown = [name for name, prop in schema.items() if not prop.support_status.hidden]
    if not shown:
        return f"{type_name} has no properties"
    return f"{type_name} has properties: {', '.join(shown)}"


def _string(value: Any) -> str:
    """Strings, integers and booleans (as Python prints them); floats are refused."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool | int):
        return str(value)
    raise _Invalid(f"Value must be a string; got {value!r}")


def _integer(value: Any) -> int:
    """Python's ``int()``, as Heat: ``"7"`` and ``7.9`` (truncated) pass, ``"7.5"`` fails."""
    try:
        return int(value)
    except (ValueError, OverflowError):
        raise _Invalid(f"Value '{value}' is not an integer") from None
    except TypeError as error:
        raise _Invalid(str(error)) from None


def _number(value: Any) -> int | float:
    """Heat's ``str_to_num``: numbers pass, anything else tries ``int()`` then ``float()``."""
    if isinstance(value, numbers.Number):
        return value  # type: ignore[return-value]
    try:
        return int(value)
    except ValueError:
        pass
    except TypeError as error:
        raise _Invalid(str(error)) from None
    try:
        return float(value)
    except ValueError as error:
        raise _Invalid(str(error)) from None


def _boolean(value: Any) -> bool:
    """Only a boolean or the words ``true``/``false`` (any case): no 1/0, yes/no."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        word = value.lower()
        if word not in ("true", "false"):
            raise _Invalid(f'"{word}" is not a valid boolean')
        return word == "true"
    raise _Invalid(f'"{value}" is not a valid boolean')


def _any(value: Any) -> Any:
    return value


_SCALARS: dict[PropertyType, Callable[[Any], Any]] = {
    PropertyType.STRING: _string,
    PropertyType.INTEGER: _integer,
    PropertyType.NUMBER: _number,
    PropertyType.BOOLEAN: _boolean,
    PropertyType.ANY: _any,
}

# What an explicit null becomes when there is no default (Heat's ``get_value(None)``).
_EMPTY: dict[PropertyType, Any] = {
    PropertyType.STRING: "",
    PropertyType.INTEGER: 0,
    PropertyType.NUMBER: 0,
    PropertyType.BOOLEAN: False,
    PropertyType.MAP: {},
    PropertyType.LIST: [],
    PropertyType.ANY: None,
}
