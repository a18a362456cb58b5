"""Choosing, reading and checking each parameter's value, and showing it as Heat does.

Precedence is Heat's: a supplied value (the environment's ``parameters``) beats
``parameter_defaults``, which beats the template default (heat-semantics §3). Every problem is
reported at once, each pointing at the parameter's declaration and, when the value came from
an environment file, saying where.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from enum import Enum
from typing import Any

from stoker import codes
from stoker.diagnostics import Diagnostic, Severity
from stoker.parameters.coercion import ParameterValueError, coerce
from stoker.parameters.constraints import check_constraints
from stoker.parameters.custom import CustomConstraintRegistry
from stoker.parameters.model import MASK, ConstraintKind, Parameter
from stoker.parameters.types import ParameterType
from stoker.template.nodes import key_span, plain, value_span


class Source(Enum):
    """Where a parameter's value came from."""

    SUPPLIED = "parameters"
    DEFAULTS = "parameter_defaults"
    TEMPLATE = "template default"


def resolve_values(
    parameters: Mapping[str, Parameter],
    supplied: Mapping[Any, Any] | None,
    defaults: Mapping[Any, Any] | None,
    *,
    registry: CustomConstraintRegistry,
    check_unknown: bool = True,
    declared: Collection[str] = (),
    for_create: bool = False,
    deferred: list[Diagnostic] | None = None,
    own: list[Diagnostic] | None = None,
) -> tuple[dict[str, Any], list[Diagnostic]]:
    """The typed value of every parameter that has a valid one, and every problem found.

    ``supplied`` are explicit values (environment ``parameters``), ``defaults`` the
    environment's ``parameter_defaults``; either may be a position-keeping mapping from an
    environment file. A supplied name the template does not declare is an error (unless
    ``check_unknown`` is false); names in ``defaults`` may belong to other templates and are
    ignored. ``declared`` lists names whose declarations were rejected while parsing, so
    values for them are not reported as unknown as well. ``for_create`` applies what Heat
    checks only at create: a custom constraint no plugin provides fails every value.
    Parameters whose value is missing or invalid are left out of the result.

    Heat's validate checks a parameter's declaration (its template default against the
    non-custom constraints included, see schema) but not its value: a value's type and
    constraints are checked when a stack is created. When ``deferred`` is given, those
    value problems go there instead of into the returned list, so that validate can show
    them without refusing what Heat accepts. ``own`` (with ``deferred``) also receives
    those a nested stack's facade cannot check before its child is created: a value of
    the wrong type (a JSON string that does not parse) or a bad template default. A
    constraint broken by a supplied value the facade refuses as a property error first.
    """
    supplied = supplied or {}
    defaults = defaults or {}
    diagnostics: list[Diagnostic] = []
    if check_unknown:
        known = set(parameters) | set(declared)
        for name in supplied:
            if str(name) not in known:
                diagnostics.append(
                    Diagnostic(
                        codes.PARAMETER_UNKNOWN,
                        f"The Parameter ({name}) was not defined in template.",
                        ("parameters", str(name)),
                        key_span(supplied, name) or value_span(supplied, name),
                    )
                )
    values: dict[str, Any] = {}
    for name, parameter in parameters.items():
        value, found = _resolve_one(parameter, supplied, defaults, registry, for_create)
        if deferred is not None and (value is _INVALID or value is _MISTYPED):
            deferred.extend(found)
            if own is not None and (
                value is _MISTYPED or _choose(parameter, supplied, defaults)[0] is Source.TEMPLATE
            ):
                own.extend(found)
        else:
            diagnostics.extend(found)
        if not any(d.is_error for d in found) and value not in _NO_VALUE:
            values[name] = value
    return values, diagnostics


_MISSING = object()
_INVALID = object()  # a value was found but a constraint refuses it
_MISTYPED = object()  # a value was found but it does not have the parameter's type
_NO_VALUE = (_MISSING, _INVALID, _MISTYPED)


def _resolve_one(
    parameter: Parameter,
    supplied: Mapping[Any, Any],
    defaults: Mapping[Any, Any],
    registry: CustomConstraintRegistry,
    for_create: bool = False,
) -> tuple[Any, list[Diagnostic]]:
    name = parameter.name
    source, raw = _choose(parameter, supplied, defaults)
    notes = _notes(parameter, source, supplied, defaults)

    def problem(
        message: str, code: str = codes.PARAMETER_VALUE, severity: Severity = Severity.ERROR
    ) -> Diagnostic:
        return Diagnostic(code, message, parameter.path, parameter.span, severity, notes)

    if source is None:
        return _MISSING, [problem(f"The Parameter ({name}) was not provided.")]
    if source is Source.TEMPLATE and parameter.default_error is not None:
        return _MISSING, []  # already reported when the declaration was parsed
    try:
        value = coerce(parameter, raw)
    except ParameterValueError as error:
        return _MISTYPED, [problem(f"Parameter '{name}' is invalid: {error}")]
    violations, unchecked = check_constraints(parameter, value, registry)
    found: list[Diagnostic] = []
    for violation in violations:
        reason = violation.message
        if source is Source.DEFAULTS and (
            violation.constraint.kind is not ConstraintKind.CUSTOM_CONSTRAINT
        ):
            # Heat installs parameter_defaults as the template default, so it words
            # their constraint failures the same way.
            reason = f"Invalid default {parameter.shown(plain(raw))} ({reason})"
        found.append(problem(f"Parameter '{name}' is invalid: {reason}"))
    for skipped in unchecked:
        constraint_name = str(skipped.constraint.definition)
        if for_create and not registry.provides(constraint_name):
            shown = parameter.shown(plain(value))
            found.append(
                problem(
                    f"Parameter '{name}' is invalid: \"{shown}\" does not validate "
                    f"{constraint_name} (constraint not found)"
                )
            )
            continue
        found.append(
            problem(
                f"Parameter '{name}': custom constraint {skipped.constraint.definition} was not "
                f"checked offline ({skipped.reason})",
                codes.CONSTRAINT_NOT_CHECKED,
                Severity.INFO,
            )
        )
    if any(d.is_error for d in found):
        return _INVALID, found
    return value, found


def _choose(
    parameter: Parameter, supplied: Mapping[Any, Any], defaults: Mapping[Any, Any]
) -> tuple[Source | None, Any]:
    name = parameter.name
    if supplied.get(name) is not None:  # Heat treats an explicit null as "not supplied"
        return Source.SUPPLIED, supplied[name]
    if defaults.get(name) is not None:
        # a null parameter_default is no default: the template's stands (measured on
        # 24.1.2, tests/fidelity env_matrix/values.null_default)
        return Source.DEFAULTS, defaults[name]
    if parameter.has_default:
        return Source.TEMPLATE, parameter.default
    return None, None


def _notes(
    parameter: Parameter,
    source: Source | None,
    supplied: Mapping[Any, Any],
    defaults: Mapping[Any, Any],
) -> tuple[str, ...]:
    name = parameter.name
    if source is Source.SUPPLIED:
        span = value_span(supplied, name)
        return (f"value from {span}",) if span else ()
    if source is Source.DEFAULTS:
        span = value_span(defaults, name)
        return (f"value from {span} (parameter_defaults)",) if span else ()
    if source is Source.TEMPLATE and parameter.default_span:
        return (f"value is the template default at {parameter.default_span}",)
    if source is None and name in defaults:
        span = value_span(defaults, name)
        where = f" at {span}" if span else ""
        return (f"parameter_defaults sets it to null{where}, which gives it no value",)
    return ()


def display_value(parameter: Parameter, value: Any) -> str:
    """How Heat's stack show renders a parameter's value: always a string, secrets masked."""
    if parameter.hidden:
        return MASK
    if parameter.type is ParameterType.COMMA_DELIMITED_LIST and isinstance(value, list):
        return ",".join(str(item) for item in value)
    if parameter.type is ParameterType.JSON:
        return json.dumps(value)
    return str(value)
