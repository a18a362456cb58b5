"""Which plugin implements each resource.

A resource's type goes through the environment's resource registry; it ends at a
registered plugin or at a provider template, which becomes a `TemplateResource` (its
parameters are the facade's properties). The checks a stack tree gets before create,
which follow provider templates recursively, are `stoker.engine.tree_check`.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from typing import Any

from stoker import codes
from stoker.definition.files import CollectedFiles, FilesMap, collect_files
from stoker.definition.stack import StackDefinition
from stoker.definition.template import Template
from stoker.definition.template_parser import parse_template
from stoker.diagnostics import Diagnostic
from stoker.environment import ResolvedType, caching_read, resolve_provider
from stoker.errors import TemplateError
from stoker.resources.base import ResourcePlugin
from stoker.resources.catalog import heat_knows
from stoker.resources.nested import TemplateResource
from stoker.resources.registry import ResourceTypeRegistry
from stoker.template.loader import read_file
from stoker.template.nodes import plain

# Heat treats a type as a template path only with these endings (heat/engine/environment.py);
# ``nested.json`` is an unknown resource type there
TEMPLATE_SUFFIXES = (".yaml", ".template")


class Resolution:
    """For each enabled resource: its plugin, the type name recorded, how it resolved (a
    plain slotted class, cheaper to create at import than a dataclass: see `TreeCheck`)."""

    __slots__ = ("plugins", "types", "resolved", "diagnostics")

    def __init__(self) -> None:
        self.plugins: dict[str, ResourcePlugin] = {}
        self.types: dict[str, str] = {}
        self.resolved: dict[str, ResolvedType] = {}
        self.diagnostics: list[Diagnostic] = []


class ProviderCache:
    """Provider templates already read, by location (one read per template per operation).

    They come from the disk (the CLI: paths relative to the template that names them),
    or, given ``source``, only from a request's files map (the API: names as written,
    Heat's way); the rest of the resolution is the same."""

    def __init__(self, files_root: str | None = None, source: FilesMap | None = None) -> None:
        self._loaded: dict[tuple[str, str], TemplateResource | list[Diagnostic]] = {}
        #: get_file reads only below this directory when set (``--restrict-files``)
        self.files_root = files_root
        self.source = source
        #: reads candidate templates of registry lists once (capabilities resolution)
        self.read = caching_read(read_file if source is None else source.read)

    def get(
        self, location: str, type_name: str, defaults: Mapping[str, Any]
    ) -> TemplateResource | list[Diagnostic]:
        key = (location, type_name)
        if key not in self._loaded:
            self._loaded[key] = _load_provider(
                location, type_name, defaults, self.files_root, self.source
            )
        return self._loaded[key]


def _load_provider(
    location: str,
    type_name: str,
    defaults: Mapping[str, Any],
    files_root: str | None = None,
    source: FilesMap | None = None,
) -> TemplateResource | list[Diagnostic]:
    try:
        document = read_file(location) if source is None else source.read(location)
    except TemplateError as error:
        return error.diagnostics
    except OSError as error:
        return [
            Diagnostic(
                codes.RESOURCE_DEFINITION,
                f"cannot read provider template {location}: {error.strerror}",
            )
        ]
    template = parse_template(document)
    # A default that breaks its own constraints fails the nested stack's create, not the
    # facade's schema: Heat's validate accepts it (see TreeCheck).
    refused = [d for d in template.errors if not is_default_error(d)]
    if refused:
        return refused
    parameters = {
        name: (parameter.type, not parameter.has_default and name not in defaults)
        for name, parameter in template.parameters.items()
    }
    calls = list(template.calls_of("get_file"))
    if source is not None:
        collected = source.collect(calls, location)
        plugin = TemplateResource(type_name, location, plain(document.data) or {}, parameters, None)
        return _with_files(plugin, template, collected)
    base_dir = os.path.dirname(os.path.abspath(location))
    # get_file in a provider template is relative to that template, as heatclient reads it
    collected = collect_files(calls, base_dir, restrict_to=files_root)
    # a literal path python-heatclient cannot read stops it before any request, in a
    # nested template as in the top one (measured: files_matrix/tree.missing_*)
    unreadable = [d for d in collected.diagnostics if d.is_error] + [
        Diagnostic(
            codes.FILE_MISSING,
            f"get_file {call.args}: cannot read {os.path.join(base_dir, call.args)} "
            "(python-heatclient refuses the request: Could not fetch contents)",
            call.path,
            call.span,
        )
        for call in calls
        if isinstance(call.args, str)
        and call.args not in collected.files
        and call.args not in collected.unread
    ]
    if unreadable:
        return unreadable
    plugin = TemplateResource(type_name, location, plain(document.data) or {}, parameters, base_dir)
    return _with_files(plugin, template, collected)


def _with_files(
    plugin: TemplateResource, template: Template, collected: CollectedFiles
) -> TemplateResource:
    plugin.files = collected.files  # type: ignore[attr-defined]
    plugin.template_model = template  # type: ignore[attr-defined]
    return plugin


def is_default_error(diagnostic: Diagnostic) -> bool:
    return diagnostic.code == codes.PARAMETER_SCHEMA and diagnostic.path[-1:] in (
        ("default",),
        ("Default",),
    )


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
            result.diagnostics.append(
                Diagnostic(codes.RESOURCE_DEFINITION, str(error), type_path, resource.span)
            )
            continue
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
    if declared.endswith(TEMPLATE_SUFFIXES):
        if as_written:
            return declared
        return os.path.normpath(os.path.join(base_dir or ".", declared))
    return None


def type_not_runnable(type_name: str) -> str:
    """Why a type has no plugin: Heat's words for a type nobody knows; for one of Heat's
    cloud types, that stoker cannot run it yet and what it can do with it instead."""
    from stoker.resources.catalog import heat_catalog

    if type_name not in heat_catalog():
        return f"The Resource Type ({type_name}) could not be found."
    from stoker.cloud.choice import HOW_TO_CHOOSE

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
    from stoker.resources.openstack import TYPES

    return frozenset(plugin.type_name for plugin in TYPES)
