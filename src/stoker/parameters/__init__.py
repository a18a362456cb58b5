"""Template parameters: declarations, types and coercion, constraints, values and groups.

The public API of the package; other packages import from here only.

    parameters, problems = parse_parameters(template["parameters"], version)
    values, more = resolve_values(parameters, env_parameters, env_parameter_defaults,
                                  registry=default_constraints())
"""

from stoker.parameters.checks import CustomCheck, NotCheckable, Shown
from stoker.parameters.coercion import ParameterValueError, coerce, coerce_to
from stoker.parameters.constraints import Unchecked, Violation, check_constraints, value_problem
from stoker.parameters.custom import (
    CLOUD_CONSTRAINTS,
    CheckStatus,
    CustomConstraintRegistry,
    CustomOutcome,
    cloud_checks,
    default_constraints,
)
from stoker.parameters.groups import ParameterGroup, parse_parameter_groups
from stoker.parameters.immutable import check_immutable
from stoker.parameters.model import (
    MASK,
    Bounds,
    Constraint,
    ConstraintKind,
    Modulus,
    Parameter,
)
from stoker.parameters.schema import parse_parameters
from stoker.parameters.types import ParameterType
from stoker.parameters.values import display_value, resolve_values

__all__ = [
    "CLOUD_CONSTRAINTS",
    "MASK",
    "Bounds",
    "CheckStatus",
    "Constraint",
    "ConstraintKind",
    "CustomCheck",
    "CustomConstraintRegistry",
    "CustomOutcome",
    "Modulus",
    "NotCheckable",
    "Parameter",
    "ParameterGroup",
    "ParameterType",
    "ParameterValueError",
    "Shown",
    "Unchecked",
    "Violation",
    "check_constraints",
    "check_immutable",
    "coerce",
    "coerce_to",
    "cloud_checks",
    "default_constraints",
    "display_value",
    "parse_parameter_groups",
    "parse_parameters",
    "resolve_values",
    "value_problem",
]
