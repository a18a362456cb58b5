"""Which plugin implements each resource of a stack the engine runs or checks.

A resource's type goes through the environment's resource registry; it ends at a
registered plugin or at a provider template, which becomes a `TemplateResource` (its
parameters are the facade's properties; `stoker.resolution.providers` loads it). The
checks a stack tree gets before create, which follow provider templates recursively, are
`stoker.resolution.tree`.
"""

from __future__ import annotations

import os
from collections.abc import Collection

from stoker import codes
from stoker.cloud.choice import HOW_TO_CHOOSE
from stoker.definition import StackDefinition
from stoker.diagnostics import Diagnostic
from stoker.environment import ResolvedType
from stoker.environment.registry_section import is_template_name
from stoker.resolution.choice import resolve_provider
from stoker.resolution.providers import ProviderCache
from stoker.resources import ResourcePlugin, ResourceTypeRegistry, heat_catalog, heat_knows


class Resolution:
    """For each enabled resource: its plugin, the type name recorded, how it resolved (a
    plain slotted class, cheaper to create at import than a dataclass: see `TreeCheck`)."""

    __slots__ = ("plugins", "types", "resolved", "diagnostics", "looked_up")

    def __init__(self) -> None:
        self.plugins: dict[str, ResourcePlugin] = {}
        self.types: dict[str, str] = {}
        self.resolved: dict[str, ResolvedType] = {}
        self.diagnostics: list[Diagnostic] = []
        #: the type names whose registry entries the resolutions read
        #: (`stoker.environment.ResourceRegistry.agrees_on`); None when a lookup failed
        #: (a loop in the registry) and what it read is not known
        self.looked_up: set[str] | None = set()


def resolve_types(
    definition: StackDefinition,
    registry: ResourceTypeRegistry,
    base_dir: str | None,
    cache: ProviderCache | None = None,
    *,
    require_types: bool = True,
    names: Collection[str] | None = None,
) -> Resolution:
    """Find the plugin of every enabled resource (reporting what cannot be found, unless
    ``require_types`` is false: template validation does not need a type to be runnable);
    with ``names``, only of those (an update resolves only what it may change)."""
    cache = cache or ProviderCache()
    result = Resolution()
    template = definition.template
    environment = definition.environment
    enabled = definition.enabled if names is None else [n for n in definition.enabled if n in names]
    for name in enabled:
        resource = template.resources[name]
        declared = resource.type
        type_path = (*resource.path, template.names.type)
        try:
            resolved, choice = resolve_provider(
                environment.resource_registry,
                environment.requires,
                declared,
                name,
                read=cache.read,
            )
        except Exception as error:  # a loop in the registry
            result.looked_up = None
            result.diagnostics.append(
                Diagnostic(codes.RESOURCE_DEFINITION, str(error), type_path, resource.span)
            )
            continue
        if result.looked_up is not None:
            result.looked_up.update(resolved.mapped_types)
        if choice:
            result.diagnostics.extend(choice)
            if resolved.template is None:
                continue  # no single template qualified: the error says why
        result.resolved[name] = resolved
        location = _template_location(declared, resolved, base_dir, cache.source is not None)
        if location is None:
            plugin = registry.get(resolved.type_name)
            result.types[name] = resolved.type_name
            if plugin is None:
                if not require_types and heat_knows(resolved.type_name):
                    continue  # a cloud type: valid in a template, runnable only in a cloud
                result.diagnostics.append(
                    Diagnostic(
                        codes.RESOURCE_DEFINITION,
                        type_not_runnable(resolved.type_name),
                        type_path,
                        resource.span,
                    )
                )
                continue
            result.plugins[name] = plugin
            continue
        result.types[name] = declared
        loaded = cache.get(location, declared, environment.parameter_defaults)
        if isinstance(loaded, list):
            result.diagnostics.append(
                Diagnostic(
                    codes.RESOURCE_DEFINITION,
                    f"The provider template of {name} ({location}) is invalid: "
                    + "; ".join(d.render() for d in loaded[:3]),
                    type_path,
                    resource.span,
                )
            )
            continue
        result.plugins[name] = loaded
    return result


def _template_location(
    declared: str, resolved: ResolvedType, base_dir: str | None, as_written: bool = False
) -> str | None:
    """Where the type's template is: a path on disk, or (``as_written``) the name to look
    up in a request's files map."""
    if resolved.template is not None:
        if as_written:  # heatclient keys the map by the URL itself (``file:///...``)
            return resolved.template
        location = resolved.template_location or resolved.template
        if "://" in location:
            return location
        if resolved.base_dir is not None or os.path.isabs(location):
            return os.path.abspath(location)  # already relative to its environment file
        return os.path.normpath(os.path.join(base_dir or ".", location))
    if is_template_name(declared):  # Heat's test: ``nested.json`` is an unknown type
        if as_written:
            return declared
        return os.path.normpath(os.path.join(base_dir or ".", declared))
    return None


def type_not_runnable(type_name: str) -> str:
    """Why a type has no plugin: Heat's words for a type nobody knows; for one of Heat's
    cloud types, that stoker cannot run it yet and what it can do with it instead."""
    if type_name not in heat_catalog():
        return f"The Resource Type ({type_name}) could not be found."

    if type_name in cloud_type_names():
        return (
            f"stoker runs {type_name} against an OpenStack cloud and none is chosen: "
            + HOW_TO_CHOOSE
        )
    return (
        f"stoker cannot run {type_name} yet (it needs an OpenStack cloud); "
        "'stoker template validate' and 'stoker lint' check templates that use it, and "
        f"'stoker resource-type show {type_name}' shows its schema"
    )


def cloud_type_names() -> frozenset[str]:
    """The types stoker runs once a cloud is chosen (`stoker.resources.openstack`)."""
    from stoker.resources import TYPES

    return frozenset(plugin.type_name for plugin in TYPES)
