"""Environments: parameter values, the resource registry, hooks, and how files merge.

env, found = load_environment_file("env.yaml")
merged, more = merge_environments([env], explicit_parameters={"key": "v"})
merged.resource_registry.resolve("OS::Nova::Server", "web")
"""

from stoker.environment.capabilities import (
    RESOURCE_TYPE,
    TemplateCapabilities,
    check_capability_values,
    template_capabilities,
)
from stoker.environment.environment import (
    ENCRYPTED_PARAMETERS_ALIAS,
    INHERITED,
    REQUIRES,
    Environment,
    EventSink,
    MergeStrategy,
    Section,
    child_environment,
    environment_below,
)
from stoker.environment.merge import merge_environments, overlay_environment
from stoker.environment.parse import (
    SECTION_NAMES,
    environment_from_data,
    load_environment_file,
    parse_environment,
)
from stoker.environment.registry import RegistryLoopError, ResourceRegistry
from stoker.environment.registry_section import (
    RegistryBlock,
    RegistryEntry,
    RuleSetting,
    read_registry_section,
)
from stoker.environment.resolved import (
    RegistryStep,
    ResolvedType,
    TemplateRef,
    template_location,
)
from stoker.environment.strategies import MergeRejected, merge_parameter

__all__ = [
    "ENCRYPTED_PARAMETERS_ALIAS",
    "INHERITED",
    "REQUIRES",
    "RESOURCE_TYPE",
    "SECTION_NAMES",
    "Environment",
    "EventSink",
    "MergeRejected",
    "MergeStrategy",
    "RegistryBlock",
    "RegistryEntry",
    "RegistryLoopError",
    "RegistryStep",
    "ResolvedType",
    "ResourceRegistry",
    "RuleSetting",
    "Section",
    "TemplateCapabilities",
    "TemplateRef",
    "check_capability_values",
    "child_environment",
    "environment_below",
    "environment_from_data",
    "load_environment_file",
    "merge_environments",
    "merge_parameter",
    "overlay_environment",
    "parse_environment",
    "read_registry_section",
    "template_capabilities",
    "template_location",
]
