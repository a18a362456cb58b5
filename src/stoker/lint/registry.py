"""The rule registry, and the one place every rule is listed.

Nothing registers itself: `RULES` names each class, `default_registry` instantiates them,
and the registry refuses a second rule with an id already taken (a silent replacement
would hide a rule).
"""

from __future__ import annotations

from stoker.errors import DuplicateRuleError as DuplicateRuleError
from stoker.lint.onap.rules import ONAP_RULES
from stoker.lint.rule import Rule
from stoker.lint.rules import internal
from stoker.lint.rules.conditions import never_exists
from stoker.lint.rules.core import (
    capabilities,
    environment,
    functions,
    graph,
    loading,
    parameters,
    properties,
    structure,
)
from stoker.lint.rules.outputs import hidden_parameter
from stoker.lint.rules.parameters import parameter_description, unused_parameter
from stoker.lint.rules.resources import (
    deprecated_property,
    deprecated_type,
    implied_depends_on,
    provider_outputs,
    unknown_type,
)
from stoker.lint.rules.template import deprecated_function, deprecated_version

RULES: tuple[type[Rule], ...] = (
    # the linter's own machinery (every profile)
    internal.InternalError,
    internal.PackageUnreadable,
    # default profile: what validation reports (stoker.codes)
    loading.YamlSyntax,
    loading.Encoding,
    loading.TooLarge,
    loading.DuplicateKey,
    loading.TooDeep,
    loading.NotAMapping,
    loading.LimitReached,
    structure.TemplateVersion,
    structure.UnknownSection,
    structure.SectionShape,
    capabilities.CapabilitiesNonPortable,
    capabilities.CapabilityValue,
    structure.ResourceDefinition,
    structure.OutputDefinition,
    structure.ResourceName,
    parameters.ParameterSchema,
    parameters.ParameterValue,
    parameters.ParameterGroups,
    parameters.ParameterUnknown,
    parameters.ConstraintNotChecked,
    functions.FunctionArguments,
    functions.UnknownResource,
    functions.UnknownParameter,
    functions.FunctionRemoved,
    functions.FunctionContext,
    functions.FileMissing,
    functions.FunctionNotInVersion,
    functions.UnknownAttribute,
    functions.FunctionFailed,
    functions.UnknownFunction,
    graph.ConditionInvalid,
    graph.DependencyCycle,
    graph.DependsOnUnknown,
    environment.EnvironmentInvalid,
    environment.EnvironmentNonPortable,
    capabilities.ProviderChoice,
    environment.FileOutsideTree,
    environment.FileNotFetched,
    properties.PropertyValue,
    properties.PropertyUnknown,
    # default profile: the linter's own checks
    deprecated_function.DeprecatedFunction,
    deprecated_version.DeprecatedVersion,
    unused_parameter.UnusedParameter,
    parameter_description.ParameterDescription,
    unknown_type.UnknownType,
    implied_depends_on.ImpliedDependsOn,
    deprecated_type.DeprecatedType,
    deprecated_property.DeprecatedProperty,
    provider_outputs.ProviderOutput,
    hidden_parameter.HiddenParameterOutput,
    never_exists.NeverExists,
    # onap profile: ONAP's requirements a static check can decide, by requirement id
    *ONAP_RULES,
)


class RuleRegistry:
    """Rules by id, in registration order."""

    def __init__(self) -> None:
        self._rules: dict[str, Rule] = {}

    def register(self, rule_class: type[Rule]) -> None:
        rule_id = getattr(rule_class, "id", None)
        if not isinstance(rule_id, str) or not rule_id:
            raise DuplicateRuleError(f"{rule_class.__name__} declares no id")
        if rule_id in self._rules:
            existing = type(self._rules[rule_id]).__name__
            raise DuplicateRuleError(f"rule id {rule_id} is taken (by {existing})")
        self._rules[rule_id] = rule_class()

    def rules(self) -> list[Rule]:
        return list(self._rules.values())

    def get(self, rule_id: str) -> Rule | None:
        return self._rules.get(rule_id)

    def __contains__(self, rule_id: object) -> bool:
        return rule_id in self._rules

    def __len__(self) -> int:
        return len(self._rules)


def default_registry() -> RuleRegistry:
    """A registry holding every rule of `RULES`."""
    registry = RuleRegistry()
    for rule_class in RULES:
        registry.register(rule_class)
    return registry
