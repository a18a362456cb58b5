"""Conditions and dependencies: condition definitions, cycles, depends_on targets."""

from __future__ import annotations

from stoker.lint.rule import Source, SourceKind
from stoker.lint.rules.core.base import CodeRule


class ConditionInvalid(CodeRule):
    id = "E1040"
    summary = "A condition is undefined, circular or not a boolean"
    explanation = (
        "A condition field names a condition the conditions section does not define, "
        "conditions refer to each other in a loop, or a definition does not evaluate to a "
        "boolean. Heat: 'Invalid condition \"<name>\"'."
    )
    source = Source(SourceKind.HOT_SPEC, "doc/source/template_guide/hot_spec.rst (conditions)")


class DependencyCycle(CodeRule):
    id = "E1050"
    summary = "Resources depend on each other in a circle"
    explanation = (
        "Explicit depends_on and the dependencies get_resource and get_attr create form a "
        "cycle, so no resource of it can be created first. Heat: 'Circular Dependency "
        "Found'. Break the cycle (often a depends_on that is not needed)."
    )
    source = Source(SourceKind.HEAT, "heat/engine/dependencies.py")


class DependsOnUnknown(CodeRule):
    id = "E1051"
    summary = "depends_on names a resource that does not exist"
    explanation = (
        "Every name in depends_on must be a resource of the same template. Heat: 'Resource "
        "<name> depends on <other>, which is not a resource of this template' (InvalidTemplate"
        "Reference)."
    )
    source = Source(SourceKind.HOT_SPEC, "doc/source/template_guide/hot_spec.rst (depends_on)")
