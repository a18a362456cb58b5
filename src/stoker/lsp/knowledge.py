"""What stoker knows about a resource of the buffer: its type's schema, properties and
attributes, from the linter's resolution (catalog type, registry mapping or provider
template), else from the catalog by the name written."""

from __future__ import annotations

import os

from stoker.lint.context import TemplateContext
from stoker.lint.providers import ProviderTemplate
from stoker.resources import PropertySchema, TypeSchema, catalog_schema, heat_catalog
from stoker.schema import describe_property, describe_type


def resource_type(unit: TemplateContext | None, resource: str) -> str | None:
    if unit is None or resource not in unit.parsed.resources:
        return None
    return unit.parsed.resources[resource].type or None


def _schema(unit: TemplateContext, resource: str) -> TypeSchema | None:
    """The schema of the resource's type: the linter's resolution's, else the catalog's
    by the name written."""
    resolved = unit.resource_types.get(resource)
    schema = resolved.schema if resolved is not None else None
    return schema or catalog_schema(unit.parsed.resources[resource].type)


def _declared(unit: TemplateContext | None, resource: str) -> ProviderTemplate | TypeSchema | None:
    """What declares the resource's properties and attributes: its provider template
    when its type resolves to one, else its type's schema (`_schema`)."""
    if unit is None or resource not in unit.parsed.resources:
        return None
    resolved = unit.resource_types.get(resource)
    if resolved is not None and resolved.provider is not None:
        return resolved.provider
    return _schema(unit, resource)


def properties_of(unit: TemplateContext | None, resource: str) -> dict[str, str]:
    """Property name -> what to show about it, for the resource's (resolved) type."""
    declared = _declared(unit, resource)
    if isinstance(declared, ProviderTemplate):
        parameters = declared.template.parameters if declared.template is not None else {}
        return {
            name: f"{parameter.type.value} parameter of {declared.reference}"
            + (f": {parameter.description}" if parameter.description else "")
            for name, parameter in parameters.items()
        }
    if declared is None:
        return {}
    return {
        name: describe_property(name, prop)
        for name, prop in declared.properties.items()
        if prop.implemented and not prop.support_status.hidden
    }


def property_schema(
    unit: TemplateContext | None, resource: str, name: str
) -> PropertySchema | None:
    if unit is None or resource not in unit.parsed.resources:
        return None
    schema = _schema(unit, resource)
    return schema.properties.get(name) if schema is not None else None


def attributes_of(unit: TemplateContext | None, resource: str) -> dict[str, str]:
    """Attribute name -> its description, for the resource's (resolved) type."""
    declared = _declared(unit, resource)
    if isinstance(declared, ProviderTemplate):
        outputs = declared.template.outputs if declared.template is not None else {}
        return {name: str(output.description or "output") for name, output in outputs.items()}
    if declared is None:
        return {}
    return {
        name: " ".join(
            part
            for part in (attribute.type.value if attribute.type else "any", attribute.description)
            if part
        )
        for name, attribute in declared.attributes.items()
        if not attribute.support_status.hidden
    }


def type_names(unit: TemplateContext | None, directory: str) -> dict[str, str]:
    """Every type a resource may have here: the catalog's listed types, the names the
    environment's registry maps, and the provider templates beside the file."""
    catalog = heat_catalog()
    found = {
        name: describe_type(catalog.types[name])
        for name in catalog.names()
        if catalog.types[name].listed
    }
    if unit is not None:
        for entry in unit.environment.resource_registry.user_block.entries():
            if "*" not in entry.key:
                found.setdefault(entry.key, f"mapped by the environment to {entry.value}")
    try:
        files = sorted(os.listdir(directory))
    except OSError:
        files = []
    for name in files:
        if name.endswith((".yaml", ".yml")) and os.path.isfile(os.path.join(directory, name)):
            found.setdefault(name, "a provider template beside this file")
    return found


def type_description(unit: TemplateContext | None, name: str) -> str | None:
    schema = catalog_schema(name)
    if schema is not None:
        return describe_type(schema)
    if unit is not None:
        for entry in unit.environment.resource_registry.user_block.entries():
            if entry.key == name:
                return f"{name}: mapped by the environment to {entry.value}"
    return None


def provider_file(unit: TemplateContext | None, resource: str, directory: str) -> str | None:
    """The file a resource's provider template is read from, when it is one."""
    if unit is None:
        return None
    resolved = unit.resource_types.get(resource)
    if resolved is None or resolved.provider is None:
        return None
    source = resolved.provider.source
    if source is not None and source.disk_path is not None:
        return source.disk_path
    candidate = os.path.join(directory, resolved.provider.reference)
    return candidate if os.path.isfile(candidate) else None


def allowed_values(prop: PropertySchema | None) -> list[str]:
    if prop is None:
        return []
    for constraint in prop.constraints:
        if constraint.kind.value == "allowed_values" and isinstance(constraint.definition, tuple):
            return [str(value) for value in constraint.definition]
    if prop.type.value == "boolean":
        return ["true", "false"]
    return []


def parameter_text(unit: TemplateContext | None, name: str) -> str | None:
    if unit is None or name not in unit.parsed.parameters:
        return None
    parameter = unit.parsed.parameters[name]
    parts = [f"parameter {name}: {parameter.type.value}"]
    if parameter.has_default:  # a hidden one's default is never shown
        parts.append("default: (hidden)" if parameter.hidden else f"default: {parameter.default!r}")
    if parameter.description:
        parts.append(str(parameter.description))
    return "\n\n".join(parts)
