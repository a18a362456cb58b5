"""The built-in cloud-free resource types (heat-semantics §6.6).

Nothing registers itself: `register` adds them all to the registry it is given, which is
how `stoker.resources.registry.default_registry` builds its registry. Importing this
package imports none of their modules: `register` does, or, for a registry that only
checks templates (``lazily``, the ONAP lint's), the registry does when it first gives out
that type's plugin (`ResourceTypeRegistry.register_lazily`), so that a lint of templates
using none of them imports none. `BUILTIN_TYPES`
imports them all.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from stoker.resources.nested import NESTED_TYPES

if TYPE_CHECKING:
    from stoker.resources.base import ResourcePlugin
    from stoker.resources.registry import ResourceTypeRegistry

_PACKAGE = __name__

#: type name -> (module, class) of each built-in type not defined in `stoker.resources.nested`
LOCATIONS: dict[str, tuple[str, str]] = {
    "OS::Heat::None": (f"{_PACKAGE}.none_resource", "NoneResource"),
    "OS::Heat::TestResource": (f"{_PACKAGE}.test_resource", "TestResource"),
    "OS::Heat::RandomString": (f"{_PACKAGE}.random_string", "RandomString"),
    "OS::Heat::Value": (f"{_PACKAGE}.value", "Value"),
    "OS::Heat::Delay": (f"{_PACKAGE}.delay", "Delay"),
    "OS::Heat::SoftwareConfig": (f"{_PACKAGE}.software_config", "SoftwareConfig"),
    "OS::Heat::StructuredConfig": (f"{_PACKAGE}.software_config", "StructuredConfig"),
    "OS::Heat::CloudConfig": (f"{_PACKAGE}.software_config", "CloudConfig"),
    "OS::Heat::SoftwareComponent": (f"{_PACKAGE}.software_config", "SoftwareComponent"),
    "OS::Heat::MultipartMime": (f"{_PACKAGE}.multipart_mime", "MultipartMime"),
    "OS::Heat::WaitConditionHandle": (f"{_PACKAGE}.wait_condition", "WaitConditionHandle"),
    "OS::Heat::WaitCondition": (f"{_PACKAGE}.wait_condition", "WaitCondition"),
    "OS::Heat::DeployedServer": (f"{_PACKAGE}.deployed_server", "DeployedServer"),
}


def plugin_class(location: tuple[str, str]) -> type[ResourcePlugin]:
    """The class at ``location`` (module, class name), its module imported if need be."""
    module, name = location
    found: type[ResourcePlugin] = getattr(importlib.import_module(module), name)
    return found


def register(registry: ResourceTypeRegistry, *, lazily: bool = False) -> None:
    """Add every built-in type to ``registry``: imported now, or (``lazily``) when the
    registry first gives its plugin out."""
    for type_name, location in LOCATIONS.items():
        if lazily:
            registry.register_lazily(type_name, location)
        else:
            registry.register(plugin_class(location))
    for nested in NESTED_TYPES:
        registry.register(nested)


def __getattr__(name: str) -> Any:
    """``BUILTIN_TYPES``: every built-in plugin class (each module imported)."""
    if name == "BUILTIN_TYPES":
        return (*(plugin_class(location) for location in LOCATIONS.values()), *NESTED_TYPES)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
