"""Heat's facade check of a provider template: when a ``resources:`` block of the
registry maps one resource's type to its own template (``thisone: {OS::Thingy:
concrete.yaml}``), the type as it resolves for every other resource (``OS::Thingy:
facade.yaml``, or a built-in type) is the facade that template stands in for. Heat's
``TemplateResource._validate_against_facade`` fails the resource when the template lacks
a property the facade requires, requires one the facade does not have, or lacks one of
its attributes (outputs)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from stoker.resources import TemplateResource

if TYPE_CHECKING:
    from stoker.definition import StackDefinition
    from stoker.resolution.providers import ProviderCache
    from stoker.resources import ResourcePlugin, ResourceTypeRegistry


def facade_problem(
    definition: StackDefinition,
    name: str,
    provider: TemplateResource,
    registry: ResourceTypeRegistry,
    cache: ProviderCache,
) -> str | None:
    """Heat's message when resource ``name``'s template does not match its facade."""
    declared = definition.template.resources[name].type
    mappings = definition.environment.resource_registry
    own = mappings.resolve(declared, name)
    general = mappings.resolve(declared)
    if (own.template_location, own.type_name) == (general.template_location, general.type_name):
        return None  # no other type stands behind this one
    facade = _facade(general.template_location, general.type_name, declared, registry, cache)
    if facade is None:
        return None
    for key, schema in facade.properties_schema.items():
        if schema.required and key not in provider.properties_schema:
            return f"Required property {key} for facade {declared} missing in provider"
    for key, schema in provider.properties_schema.items():
        if schema.required and key not in facade.properties_schema:
            return f"Provider requires property {key} unknown in facade {declared}"
    provided = set(_attributes(provider))
    for attribute in _attributes(facade):
        if attribute not in provided:
            return f"Attribute {attribute} for facade {declared} missing in provider"
    return None


def _facade(
    location: str | None,
    type_name: str,
    declared: str,
    registry: ResourceTypeRegistry,
    cache: ProviderCache,
) -> ResourcePlugin | None:
    if location is None:
        return registry.get(type_name)
    loaded = cache.get(location, declared, {})
    return loaded if isinstance(loaded, TemplateResource) else None


def _attributes(plugin: ResourcePlugin) -> list[str]:
    """The attributes a type offers (a template's outputs), ``show`` aside: every
    resource has it."""
    if isinstance(plugin, TemplateResource):
        model = getattr(plugin, "template_model", None)
        names = list(model.outputs) if model is not None else []
    else:
        names = list(plugin.attributes_schema)
    return [n for n in names if n != "show"]
