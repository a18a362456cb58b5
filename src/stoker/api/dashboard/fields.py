"""The launch form's fields, generated from a template's parameters: each parameter's
type as the input's kind, its constraints as the browser's input rules (length, range,
step, pattern, a choice of the allowed values) with the constraint's description as the
message shown at the field, ``hidden`` as a password field (its default never written
into the page), ``parameter_groups`` as the form's sections, defaults filled in.

The browser's rules are a convenience: the engine checks every value again when the form
is sent (`stoker.api.inputs`), and its findings are shown at the same fields.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from stoker.definition import Template
from stoker.parameters import Bounds, ConstraintKind, Modulus, Parameter, ParameterType


@dataclass(slots=True)
class Field:
    """One parameter's input."""

    name: str
    label: str
    description: str
    kind: str  # text, number, password, select, checkbox, textarea
    value: str = ""
    required: bool = False
    choices: list[str] = field(default_factory=list)
    rules: dict[str, str] = field(default_factory=dict)  # HTML attributes
    message: str = ""  # the constraints' descriptions: what the field says when refused
    error: str = ""  # the engine's finding about the value sent
    hidden: bool = False


@dataclass(slots=True)
class Section:
    label: str
    description: str
    fields: list[Field]


def _rules(parameter: Parameter) -> tuple[dict[str, str], list[str], str]:
    """The input's attributes, its allowed values, and the message of its constraints."""
    rules: dict[str, str] = {}
    choices: list[str] = []
    messages: list[str] = []
    for constraint in parameter.constraints:
        definition = constraint.definition
        if constraint.description:
            messages.append(constraint.description)
        if constraint.kind is ConstraintKind.LENGTH and isinstance(definition, Bounds):
            if definition.min is not None:
                rules["minlength"] = str(int(definition.min))
            if definition.max is not None:
                rules["maxlength"] = str(int(definition.max))
        elif constraint.kind is ConstraintKind.RANGE and isinstance(definition, Bounds):
            if definition.min is not None:
                rules["min"] = str(definition.min)
            if definition.max is not None:
                rules["max"] = str(definition.max)
        elif constraint.kind is ConstraintKind.MODULO and isinstance(definition, Modulus):
            rules["step"] = str(definition.step)
            rules["min"] = rules.get("min", str(definition.offset))
        elif constraint.kind is ConstraintKind.ALLOWED_PATTERN and isinstance(definition, str):
            # Python's syntax; a pattern the browser cannot read is ignored by it (the
            # engine still checks it)
            rules["pattern"] = definition
        elif constraint.kind is ConstraintKind.ALLOWED_VALUES and isinstance(definition, tuple):
            choices = [_text(item) for item in definition]
    if parameter.type is ParameterType.NUMBER and "step" not in rules:
        rules["step"] = "any"
    return rules, choices, " ".join(messages)


def _text(value: Any) -> str:
    """A value as the form writes it (lists comma-joined, JSON as JSON)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ",".join(_text(item) for item in value)
    if isinstance(value, dict):
        return json.dumps(value)
    return str(value)


def make_field(parameter: Parameter, sent: dict[str, str], errors: dict[str, str]) -> Field:
    """The input of ``parameter``: the value sent (if any), else its default; a hidden
    one's value is never written back into the page."""
    rules, choices, message = _rules(parameter)
    default = _text(parameter.default) if parameter.has_default else ""
    value = "" if parameter.hidden else sent.get(parameter.name, default)
    if parameter.hidden:
        kind = "password"
    elif choices:
        kind = "select"
    elif parameter.type is ParameterType.NUMBER:
        kind = "number"
    elif parameter.type is ParameterType.BOOLEAN:
        kind = "select"
        choices = ["true", "false"]
    elif parameter.type is ParameterType.JSON:
        kind = "textarea"
    else:
        kind = "text"
    return Field(
        name=parameter.name,
        label=parameter.label or parameter.name,
        description=parameter.description or "",
        kind=kind,
        value=value,
        required=not parameter.has_default,
        choices=choices,
        rules=rules,
        message=message,
        error=errors.get(parameter.name, ""),
        hidden=parameter.hidden,
    )


def sections(template: Template, sent: dict[str, str], errors: dict[str, str]) -> list[Section]:
    """The form's sections: one per parameter group, in the template's order, then the
    parameters no group names."""
    parameters = template.parameters
    shown: set[str] = set()
    found: list[Section] = []
    for group in template.parameter_groups:
        names = [n for n in group.parameters if n in parameters and n not in shown]
        shown.update(names)
        fields = [make_field(parameters[n], sent, errors) for n in names]
        if fields:
            found.append(Section(group.label or "Parameters", group.description or "", fields))
    rest = [make_field(p, sent, errors) for n, p in parameters.items() if n not in shown]
    if rest:
        label = "Other parameters" if found else "Parameters"
        found.append(Section(label, "", rest))
    return found


def values_sent(template: Template, form: Any) -> dict[str, str]:
    """The parameter values a form sent (``param.NAME``); a hidden parameter left empty
    is not sent, so its default (or, for an update, its current value) holds."""
    values: dict[str, str] = {}
    for name, parameter in template.parameters.items():
        value = form.get(f"param.{name}")
        if isinstance(value, str) and not (parameter.hidden and value == ""):
            values[name] = value
    return values
