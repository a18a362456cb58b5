"""Parsing the ``parameters`` section (HOT) or ``Parameters`` section (CFN) into `Parameter` values.

Heat stops at the first problem; this reports every one, each pointing at the key or value
at fault, with Heat's message text (heat-semantics §3). Declarations whose type is missing
or unknown cannot be used and are left out of the result; everything else is kept, minus
any constraint whose definition is malformed.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import replace
from typing import Any, NamedTuple

from stoker import codes
from stoker.diagnostics import Diagnostic, Path, Severity, Span
from stoker.parameters.coercion import ParameterValueError, coerce
from stoker.parameters.constraints import (
    DefinitionError,
    check_constraints,
    make_allowed_values,
    make_bounds,
    make_custom,
    make_modulus,
    make_pattern,
    unreadable_allowed_value,
    valid_for,
)
from stoker.parameters.model import Constraint, ConstraintDefinition, ConstraintKind, Parameter
from stoker.parameters.types import ParameterType, type_from_name
from stoker.template.nodes import key_span, plain, span_of, value_span
from stoker.template.versions import Format, TemplateVersion

MODULO_FROM = "2017-02-24"
TAGS_FROM = "2018-03-02"

# fmt: off
HOT_KEYS = ("type", "description", "default", "schema", "constraints", "hidden", "label",
            "immutable")
CFN_KEYS = ("Type", "Default", "NoEcho", "AllowedValues", "AllowedPattern", "MaxLength",
            "MinLength", "MaxValue", "MinValue", "Description", "ConstraintDescription", "Label")
# fmt: on
_CONSTRAINT_KEYS = ("description", *(kind.value for kind in ConstraintKind))


def parse_parameters(
    section: Any, version: TemplateVersion, path: Path = ("parameters",)
) -> tuple[dict[str, Parameter], list[Diagnostic]]:
    """Every usable parameter declared in ``section``, and every problem found in it."""
    parser = _Parser(version)
    if section is None:
        return {}, []
    if not isinstance(section, Mapping):
        parser.error(
            f"The {path[-1] if path else 'parameters'} section must be a mapping of parameter "
            "names to their definitions",
            path,
            span_of(section),
        )
        return {}, parser.diagnostics
    parameters: dict[str, Parameter] = {}
    for name, definition in section.items():
        parameter = parser.parameter(section, name, definition, (*path, str(name)))
        if parameter is not None:
            parameters[parameter.name] = parameter
    return parameters, parser.diagnostics


class _Parser:
    """Collects diagnostics while reading one section; one method per level of nesting."""

    def __init__(self, version: TemplateVersion) -> None:
        self.version = version
        self.cfn = version.format is Format.CFN
        self.diagnostics: list[Diagnostic] = []

    def error(
        self,
        message: str,
        path: Path,
        span: Span | None,
        severity: Severity = Severity.ERROR,
    ) -> None:
        self.diagnostics.append(Diagnostic(codes.PARAMETER_SCHEMA, message, path, span, severity))

    # ----------------------------------------------------------------- one parameter

    def parameter(
        self, section: Mapping[Any, Any], key: Any, definition: Any, path: Path
    ) -> Parameter | None:
        name = str(key)
        name_span = key_span(section, key) or value_span(section, key)
        if not isinstance(definition, Mapping):
            self.error(
                f"Invalid parameter ({name}), expected a mapping",
                path,
                value_span(section, key) or name_span,
            )
            return None
        self.check_keys(definition, name, path)
        parameter_type = self.parameter_type(definition, name, path, name_span)
        tags = self.tags(definition, name, path)
        if self.cfn:
            hidden = self.no_echo(definition, path)
            constraints = self.cfn_constraints(definition, parameter_type, name, path)
        else:
            hidden = self.truthy(definition, "hidden", path)
            constraints = self.hot_constraints(definition, parameter_type, name, path)
        if parameter_type is None:
            return None
        keys = _KEYS[self.version.format]
        default = plain(definition.get(keys.default))
        parameter = Parameter(
            name=name,
            type=parameter_type,
            default=default,
            has_default=default is not None,
            hidden=hidden,
            label=plain(definition.get(keys.label)),
            description=plain(definition.get(keys.description)),
            immutable=False if self.cfn else self.truthy(definition, "immutable", path),
            tags=tags,
            constraints=tuple(constraints),
            span=name_span,
            path=path,
            format=self.version.format,
            default_span=value_span(definition, keys.default),
        )
        if not parameter.has_default:
            self.unusable_allowed_values(parameter)
        return self.check_default(parameter)

    def unusable_allowed_values(self, parameter: Parameter) -> None:
        """An allowed value that does not read as the parameter's type, with no default:
        Heat's validate accepts it and its create refuses every value (a default would
        have been refused at validate, by ``check_default``)."""
        for constraint in parameter.constraints:
            if constraint.kind is not ConstraintKind.ALLOWED_VALUES:
                continue
            assert isinstance(constraint.definition, tuple)
            found = unreadable_allowed_value(constraint.definition, parameter.type)
            if found is not None:
                index, item = found
                self.error(
                    f'Value "{item}" is invalid for data type "{parameter.type_name}". '
                    "(Heat's validate accepts the template; its create refuses every value)",
                    (*constraint.path, index),
                    constraint.span,
                    Severity.WARNING,
                )

    def check_keys(self, definition: Mapping[Any, Any], name: str, path: Path) -> None:
        allowed = CFN_KEYS if self.cfn else self.hot_keys
        for key in definition:
            if key in allowed:
                continue
            message = f"Invalid key '{key}' for parameter ({name})"
            if key == "tags" and not self.cfn:
                message += f"; tags need heat_template_version {TAGS_FROM} or later"
            else:
                near = [k for k in allowed if isinstance(key, str) and k.lower() == key.lower()]
                if near:
                    message += f"; did you mean '{near[0]}'?"
            self.error(message, (*path, str(key)), key_span(definition, key))

    @property
    def hot_keys(self) -> tuple[str, ...]:
        return HOT_KEYS + (("tags",) if self.version.value >= TAGS_FROM else ())

    def parameter_type(
        self, definition: Mapping[Any, Any], name: str, path: Path, name_span: Span | None
    ) -> ParameterType | None:
        key = "Type" if self.cfn else "type"
        if key not in definition:
            self.error(f"Missing parameter type for parameter: {name}", path, name_span)
            return None
        written = plain(definition[key])
        parameter_type = type_from_name(written, self.version.format)
        if parameter_type is None:
            choices = ", ".join(kind.name_in(self.version.format) for kind in ParameterType)
            self.error(
                f"Invalid type ({written}); use one of {choices}",
                (*path, key),
                value_span(definition, key),
            )
        return parameter_type

    def tags(self, definition: Mapping[Any, Any], name: str, path: Path) -> tuple[Any, ...] | None:
        if self.cfn or "tags" not in self.hot_keys or "tags" not in definition:
            return None
        tags = plain(definition["tags"])
        if tags is None:
            return None
        if not isinstance(tags, list):
            self.error(
                f"Tags property should be a list for parameter: {name}",
                (*path, "tags"),
                value_span(definition, "tags"),
            )
            return None
        return tuple(tags)

    def truthy(self, definition: Mapping[Any, Any], key: str, path: Path) -> bool:
        """HOT ``hidden``/``immutable``: Heat takes any truthy value, even the string "false"."""
        raw = plain(definition.get(key, False))
        if not isinstance(raw, bool) and raw is not None:
            meaning = "true" if raw else "false"
            self.error(
                f"{key} is {raw!r}, which Heat treats as {meaning}; write true or false",
                (*path, key),
                value_span(definition, key),
                Severity.WARNING,
            )
        return bool(raw)

    def no_echo(self, definition: Mapping[Any, Any], path: Path) -> bool:
        """CFN ``NoEcho`` hides the parameter only when ``str(value).lower() == 'true'``."""
        raw = plain(definition.get("NoEcho", "false"))
        hidden = str(raw).lower() == "true"
        if str(raw).lower() not in ("true", "false"):
            self.error(
                f"NoEcho is {raw!r}, which Heat treats as false (only true hides a parameter)",
                (*path, "NoEcho"),
                value_span(definition, "NoEcho"),
                Severity.WARNING,
            )
        return hidden

    # ----------------------------------------------------------------- constraints

    def hot_constraints(
        self,
        definition: Mapping[Any, Any],
        parameter_type: ParameterType | None,
        name: str,
        path: Path,
    ) -> list[Constraint]:
        entries = definition.get("constraints")
        if entries is None:
            return []
        if not isinstance(entries, list):
            self.error(
                f"Invalid parameter constraints for parameter {name}, expected a list",
                (*path, "constraints"),
                value_span(definition, "constraints"),
            )
            return []
        constraints: list[Constraint] = []
        for index, entry in enumerate(entries):
            constraint = self.hot_constraint(
                entries, index, entry, parameter_type, name, (*path, "constraints", index)
            )
            if constraint is not None:
                constraints.append(constraint)
        return constraints

    def hot_constraint(
        self,
        entries: list[Any],
        index: int,
        entry: Any,
        parameter_type: ParameterType | None,
        name: str,
        path: Path,
    ) -> Constraint | None:
        if not isinstance(entry, Mapping):
            self.error(
                "Invalid parameter constraints, expected a mapping",
                path,
                value_span(entries, index),
            )
            return None
        self.unknown_keys(entry, _CONSTRAINT_KEYS, "parameter constraints", path)
        modulo_ok = self.version.value >= MODULO_FROM
        kinds = [
            kind
            for kind in ConstraintKind
            if kind.value in entry and (modulo_ok or kind is not ConstraintKind.MODULO)
        ]
        if not kinds:
            message = "No constraint expressed"
            if ConstraintKind.MODULO.value in entry:
                message += (
                    f"; the modulo constraint needs heat_template_version {MODULO_FROM} or later"
                )
            self.error(message, path, value_span(entries, index))
            return None
        kind = kinds[0]
        ignored = [k.value for k in ConstraintKind if k.value in entry and k is not kind]
        if ignored:
            self.error(
                f"Heat uses only the first constraint kind of an entry ({kind.value}) and ignores "
                f"{', '.join(ignored)}; give each constraint its own list item",
                path,
                value_span(entries, index),
                Severity.WARNING,
            )
        kind_path = (*path, kind.value)
        raw = entry[kind.value]
        try:
            built = self.hot_definition(kind, raw, kind_path, entry)
        except DefinitionError as error:
            where = value_span(raw, error.key) if error.key is not None else None
            self.error(
                str(error),
                kind_path if error.key is None else (*kind_path, error.key),
                where or value_span(entry, kind.value),
            )
            return None
        if built is None:
            return None
        description = plain(entry.get("description"))
        return self.typed(
            Constraint(
                kind,
                built,
                None if description is None else str(description),
                key_span(entry, kind.value),
                kind_path,
            ),
            parameter_type,
            name,
        )

    def unknown_keys(
        self, mapping: Mapping[Any, Any], known: Collection[str], what: str, path: Path
    ) -> None:
        for key in mapping:
            if key not in known:
                self.error(
                    f"Invalid key '{key}' for {what}", (*path, str(key)), key_span(mapping, key)
                )

    def hot_definition(
        self, kind: ConstraintKind, raw: Any, path: Path, entry: Mapping[Any, Any]
    ) -> ConstraintDefinition | None:
        if kind in (ConstraintKind.RANGE, ConstraintKind.LENGTH, ConstraintKind.MODULO):
            keys = ("step", "offset") if kind is ConstraintKind.MODULO else ("min", "max")
            if not isinstance(raw, Mapping):
                self.error(
                    f"Invalid {kind.value} constraint, expected a mapping",
                    path,
                    value_span(entry, kind.value),
                )
                return None
            self.unknown_keys(raw, keys, f"{kind.value} constraint", path)
            if kind is ConstraintKind.MODULO:
                return make_modulus(raw.get("step"), raw.get("offset"))
            return make_bounds(kind, raw.get("min"), raw.get("max"))
        return _common_definition(kind, raw)

    def cfn_constraints(
        self,
        definition: Mapping[Any, Any],
        parameter_type: ParameterType | None,
        name: str,
        path: Path,
    ) -> list[Constraint]:
        """CFN's flat keys, in Heat's order; ``ConstraintDescription`` describes them all."""
        description = plain(definition.get("ConstraintDescription"))
        description = None if description is None else str(description)
        constraints: list[Constraint] = []
        groups: list[tuple[ConstraintKind, tuple[str, ...]]] = [
            (ConstraintKind.RANGE, ("MinValue", "MaxValue")),
            (ConstraintKind.LENGTH, ("MinLength", "MaxLength")),
            (ConstraintKind.ALLOWED_VALUES, ("AllowedValues",)),
            (ConstraintKind.ALLOWED_PATTERN, ("AllowedPattern",)),
        ]
        for kind, keys in groups:
            present = [key for key in keys if key in definition]
            if not present:
                continue
            try:
                if len(keys) == 2:
                    built: ConstraintDefinition = make_bounds(
                        kind, definition.get(keys[0]), definition.get(keys[1])
                    )
                else:
                    built = _common_definition(kind, definition[keys[0]])
            except DefinitionError as error:
                at = present[0]
                if error.key in ("min", "max"):
                    at = keys[0] if error.key == "min" else keys[1]
                self.error(str(error), (*path, at), value_span(definition, at))
                continue
            constraint = Constraint(
                kind, built, description, key_span(definition, present[0]), (*path, present[0])
            )
            typed = self.typed(constraint, parameter_type, name)
            if typed is not None:
                constraints.append(typed)
        return constraints

    def typed(
        self, constraint: Constraint, parameter_type: ParameterType | None, name: str
    ) -> Constraint | None:
        """The constraint if it applies to the parameter's type (unknown types: no verdict)."""
        if parameter_type is None or valid_for(constraint.kind, parameter_type):
            return constraint
        type_name = parameter_type.name_in(self.version.format)
        self.error(
            f"Parameter '{name}' is invalid: {constraint.kind.class_name} constraint invalid "
            f"for {type_name}",
            constraint.path,
            constraint.span,
        )
        return None

    # ----------------------------------------------------------------- default

    def check_default(self, parameter: Parameter) -> Parameter:
        """Heat checks a template default against every non-custom constraint.

        The type alone is mostly not checked: Heat's validate converts a default only when
        a constraint needs it (a range, say), so a number default ``abc`` without
        constraints is refused by create, as a value (see values), not by validate. A list
        default is the exception: validate splits it, so one that is not a string fails.
        """
        if not parameter.has_default:
            return parameter
        reasons: list[str] = []
        try:
            value = coerce(parameter, parameter.default)
        except ParameterValueError as error:
            default_key = _KEYS[self.version.format].default
            if parameter.type is ParameterType.COMMA_DELIMITED_LIST:
                reason = str(error).replace("Value must", "Default must", 1)
                self.error(
                    f"Parameter '{parameter.name}' is invalid: {reason}",
                    (*parameter.path, default_key),
                    parameter.default_span or parameter.span,
                )
                return replace(parameter, default_error=reason)
            if not any(
                c.kind is not ConstraintKind.CUSTOM_CONSTRAINT for c in parameter.constraints
            ):
                return parameter
            reasons.append(str(error))
        else:
            violations, _ = check_constraints(parameter, value, custom=False)
            reasons.extend(violation.message for violation in violations)
        if not reasons:
            return parameter
        default_key = _KEYS[self.version.format].default
        for reason in reasons:
            self.error(
                f"Parameter '{parameter.name}' is invalid: Invalid default "
                f"{parameter.shown(parameter.default)} ({reason})",
                (*parameter.path, default_key),
                parameter.default_span or parameter.span,
            )
        return replace(parameter, default_error=reasons[0])


def _common_definition(kind: ConstraintKind, raw: Any) -> ConstraintDefinition:
    """An allowed values, allowed pattern or custom constraint definition (alike in HOT
    and CFN)."""
    if kind is ConstraintKind.ALLOWED_VALUES:
        return make_allowed_values(raw)
    if kind is ConstraintKind.ALLOWED_PATTERN:
        return make_pattern(raw)
    return make_custom(raw)


class _Keys(NamedTuple):
    """The spelling of the plain (non-constraint) declaration keys in one format (a named
    tuple: cheaper to create at import than a frozen dataclass)."""

    default: str
    label: str
    description: str


_KEYS = {
    Format.HOT: _Keys("default", "label", "description"),
    Format.CFN: _Keys("Default", "Label", "Description"),
}
