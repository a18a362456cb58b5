"""The built-in cloud-free resource types (heat-semantics §6.6).

Nothing registers itself: `register` adds them all to the registry it is given, which is
how `stoker.resources.registry.default_registry` builds its registry.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stoker.resources.base import ResourcePlugin
from stoker.resources.builtin.delay import Delay
from stoker.resources.builtin.multipart_mime import MultipartMime
from stoker.resources.builtin.none_resource import NoneResource
from stoker.resources.builtin.random_string import RandomString
from stoker.resources.builtin.software_config import CloudConfig, SoftwareConfig, StructuredConfig
from stoker.resources.builtin.test_resource import TestResource
from stoker.resources.builtin.value import Value
from stoker.resources.builtin.wait_condition import WaitCondition, WaitConditionHandle
from stoker.resources.nested import NESTED_TYPES

if TYPE_CHECKING:
    from stoker.resources.registry import ResourceTypeRegistry

BUILTIN_TYPES: tuple[type[ResourcePlugin], ...] = (
    NoneResource,
    TestResource,
    RandomString,
    Value,
    Delay,
    SoftwareConfig,
    StructuredConfig,
    CloudConfig,
    MultipartMime,
    WaitConditionHandle,
    WaitCondition,
    *NESTED_TYPES,
)


def register(registry: ResourceTypeRegistry) -> None:
    """Add every built-in type to ``registry``."""
    for plugin_class in BUILTIN_TYPES:
        registry.register(plugin_class)
