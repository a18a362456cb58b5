"""The registry of resource types stoker can run: type name -> plugin instance.

Registration is explicit (`register`, or `register_lazily` with where the class is, for
the built-in types: imported when first asked for), a name can be registered once, and
nothing is found by import side effects or subclass scanning. Plugins hold no per-resource state
(that lives in `ResourceContext.data`), so one instance serves every resource of a type.
"""

from __future__ import annotations

from stoker.errors import RegistrationError as RegistrationError
from stoker.resources import builtin
from stoker.resources.base import ResourcePlugin
from stoker.resources.catalog import TypeSchema, heat_catalog
from stoker.resources.schema import SUPPORTED


class ResourceTypeRegistry:
    """Type names to plugins. Build one with `default_registry` and pass it explicitly."""

    def __init__(self) -> None:
        self._plugins: dict[str, ResourcePlugin] = {}
        # type name -> (module, class): registered, not imported yet
        self._lazy: dict[str, tuple[str, str]] = {}

    def register(self, plugin_class: type[ResourcePlugin]) -> None:
        """Add a plugin class under its ``type_name``; registering a name twice is an
        error (silently replacing a type would hide a bug)."""
        if not (isinstance(plugin_class, type) and issubclass(plugin_class, ResourcePlugin)):
            raise RegistrationError(f"{plugin_class!r} is not a ResourcePlugin subclass")
        name = getattr(plugin_class, "type_name", None)
        if not isinstance(name, str) or not name:
            raise RegistrationError(f"{plugin_class.__name__} declares no type_name")
        self._refuse_duplicate(name)
        self._plugins[name] = plugin_class()

    def register_lazily(self, type_name: str, location: tuple[str, str]) -> None:
        """Register the plugin class at ``location`` (module, class name) under
        ``type_name`` without importing it: `get` imports it the first time it is asked
        for, and checks it as `register` does."""
        self._refuse_duplicate(type_name)
        self._lazy[type_name] = location

    def add(self, plugin: ResourcePlugin) -> None:
        """Add a plugin instance built with what it needs (a cloud type's connection);
        as `register`, a name can be added once."""
        name = plugin.type_name
        self._refuse_duplicate(name)
        self._plugins[name] = plugin

    def _refuse_duplicate(self, name: str) -> None:
        if name in self._plugins:
            existing = type(self._plugins[name]).__name__
        elif name in self._lazy:
            existing = self._lazy[name][1]
        else:
            return
        raise RegistrationError(f"resource type {name} is already registered (by {existing})")

    def get(self, type_name: str) -> ResourcePlugin | None:
        """The plugin for ``type_name``, or None when stoker cannot run that type."""
        plugin = self._plugins.get(type_name)
        if plugin is None and type_name in self._lazy:
            plugin = self._load(type_name)
        return plugin

    def _load(self, type_name: str) -> ResourcePlugin:
        """Import a lazily registered plugin class and make its one instance (two threads
        asking at once may both make one: plugins are stateless, the first stays)."""
        plugin_class = builtin.plugin_class(self._lazy[type_name])
        if not (isinstance(plugin_class, type) and issubclass(plugin_class, ResourcePlugin)):
            raise RegistrationError(f"{plugin_class!r} is not a ResourcePlugin subclass")
        if getattr(plugin_class, "type_name", None) != type_name:
            raise RegistrationError(f"{plugin_class.__name__} is not the type {type_name}")
        return self._plugins.setdefault(type_name, plugin_class())

    def __contains__(self, type_name: object) -> bool:
        return type_name in self._plugins or type_name in self._lazy

    def names(self) -> list[str]:
        """The registered type names, sorted."""
        return sorted({*self._plugins, *self._lazy})

    def schema(self, type_name: str) -> TypeSchema | None:
        """What the plugin declares, as a `TypeSchema`; the support status comes from
        Heat's catalog when Heat has the type (plugins do not restate it)."""
        plugin = self.get(type_name)
        if plugin is None:
            return None
        known = heat_catalog().get(type_name)
        return TypeSchema(
            name=type_name,
            properties=dict(plugin.properties_schema),
            attributes=dict(plugin.attributes_schema),
            support_status=known.support_status if known else SUPPORTED,
            listed=known.listed if known else True,
            service=None,
            nested_stack=known.nested_stack if known else False,
        )


def default_registry(*, lazily: bool = False) -> ResourceTypeRegistry:
    """A new registry holding the built-in cloud-free types. ``lazily`` (for a caller that
    only checks templates, as the ONAP lint's R-92635 does): each type's module is
    imported when first asked for, not now. The engine's registries are made whole, so
    that no operation pays an import inside its timeout."""
    registry = ResourceTypeRegistry()
    builtin.register(registry, lazily=lazily)
    return registry
