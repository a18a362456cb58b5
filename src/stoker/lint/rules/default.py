"""Every rule of the default profile, in the order ``--list-rules`` shows them.

Listed here rather than in `stoker.lint.registry` so that a run of the onap profile alone
does not import them (`stoker.lint.registry.rule_classes`).
"""

from __future__ import annotations

from stoker.lint.rule import Rule
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

DEFAULT_RULES: tuple[type[Rule], ...] = (
    # what validation reports (stoker.codes)
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
    # the linter's own checks
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
)
