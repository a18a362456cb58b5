"""Parameter declarations, values and groups, as validation checks them."""

from __future__ import annotations

from stoker.diagnostics import Severity
from stoker.lint.rule import Source, SourceKind
from stoker.lint.rules.core.base import CodeRule, PropertyCodeRule

_PARAMETERS = Source(SourceKind.HOT_SPEC, "doc/source/template_guide/hot_spec.rst (parameters)")


class ParameterSchema(CodeRule):
    id = "E1020"
    summary = "A parameter declaration is invalid"
    explanation = (
        "Every parameter has a type (string, number, json, comma_delimited_list, boolean in "
        "HOT), only the attributes its version allows, and well-formed constraints whose "
        "kind fits the type; its default must satisfy them. Some findings are warnings: "
        "values Heat reads differently from how they look (hidden: 'no' is true) and "
        "constraint entries whose extra kinds Heat ignores."
    )
    source = _PARAMETERS


class ParameterValue(CodeRule):
    id = "E1021"
    summary = "A parameter value is invalid"
    explanation = (
        "A value given by an environment (parameters or parameter_defaults) or a default "
        "does not have the parameter's type or breaks a constraint. Heat's validate accepts "
        "it (it checks only the declaration, a default against non-custom constraints "
        "included), so template validate shows it as a warning; Heat refuses to create the "
        "stack: 'Parameter '<name>' is invalid'. Values of hidden parameters are never "
        "shown."
    )
    source = _PARAMETERS


class ParameterGroups(CodeRule):
    id = "E1022"
    summary = "parameter_groups is malformed"
    explanation = (
        "parameter_groups is a list of mappings, each with a parameters list naming declared "
        "parameters, each parameter in at most one group."
    )
    source = Source(
        SourceKind.HOT_SPEC, "doc/source/template_guide/hot_spec.rst (parameter_groups)"
    )


class ParameterUnknown(CodeRule):
    id = "E1023"
    summary = "An environment gives a value for a parameter the template lacks"
    explanation = (
        "The paired environment's parameters section names a parameter the template does "
        "not declare. Heat rejects the request: 'The Parameter (<name>) was not defined in "
        "template.' Use parameter_defaults for values meant for nested templates."
    )
    source = Source(SourceKind.HEAT, "heat/engine/parameters.py (Parameters.validate)")


class ConstraintNotChecked(PropertyCodeRule):
    id = "I1024"
    severity = Severity.INFO
    summary = "A custom constraint that needs a cloud was not checked"
    explanation = (
        "Custom constraints such as nova.flavor or glance.image ask the cloud whether a "
        "value exists; the linter works offline, so a literal value (of a parameter, or of "
        "a resource property checked against the catalog) under such a constraint is "
        "reported as not checked rather than as valid."
    )
    source = Source(SourceKind.HEAT, "heat/engine/constraint/ (custom constraints)")
