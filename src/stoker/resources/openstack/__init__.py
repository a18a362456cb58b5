"""The OpenStack resource types, run through openstacksdk against a chosen cloud.

They are registered only when a cloud is chosen (`register`); their schemas are Heat's
catalog's, exactly. openstacksdk itself is imported when the first call is made.
"""

from __future__ import annotations

from stoker.cloud import Cloud
from stoker.cloud.constraints import cloud_constraints
from stoker.resources.openstack import (
    cinder,
    designate,
    glance,
    neutron,
    nova,
    octavia,
    security,
    server,
)
from stoker.resources.openstack.base import CloudResource
from stoker.resources.registry import ResourceTypeRegistry

TYPES: tuple[type[CloudResource], ...] = (
    *neutron.TYPES,
    *security.TYPES,
    *server.TYPES,
    *nova.TYPES,
    *cinder.TYPES,
    *glance.TYPES,
    *octavia.TYPES,
    *designate.TYPES,
)


def register(registry: ResourceTypeRegistry, cloud: Cloud) -> None:
    """Add every OpenStack type, talking to ``cloud``."""
    for plugin_class in TYPES:
        registry.add(plugin_class(cloud))


__all__ = ["TYPES", "cloud_constraints", "register"]
