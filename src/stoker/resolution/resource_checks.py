"""Each resource's own checks before create, against its type (`stoker.resolution.tree`
runs them for every stack of a tree): its properties' schema and the values already
known, ``deletion_policy: Snapshot``, the keys of a literal ``update_policy``, and the
properties of a cloud type known only from the catalog."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from stoker import codes
from stoker.definition import (
    StackDefinition,
    sensitive_properties,
    withheld_messages,
    withhold,
)
from stoker.diagnostics import Diagnostic, Path
from stoker.errors import FunctionError
from stoker.functions.base import OMIT, Unresolved, resolve
from stoker.resolution.types import Resolution
from stoker.resources import (
    NestedStackPlugin,
    ResourcePlugin,
    TemplateResource,
    catalog_schema,
    validate_properties,
)
from stoker.template.nodes import key_span, locate, value_span


def known_properties(definition: StackDefinition, name: str) -> tuple[dict[str, Any], set[str]]:
    """The properties of ``name`` whose values are known before create, and the others."""
    resource = definition.template.resources[name]
    properties = resource.properties if isinstance(resource.properties, dict) else {}
    context = definition.context
    assert context is not None
    known: dict[str, Any] = {}
    unknown: set[str] = set()
    # a literal value resolves to itself (copied, positions stripped), raising nothing and
    # never `OMIT`: no walk to tell it apart first (a group's members each carry the
    # group's literal properties, TripleO's role and service maps among them)
    for key, tree in properties.items():
        try:
            value = resolve(tree, context)
        except (Unresolved, FunctionError):
            unknown.add(str(key))
            continue
        if value is not OMIT:
            known[str(key)] = value
    return known, unknown


def validate_known(
    plugin: ResourcePlugin, known: tuple[dict[str, Any], set[str]], path: Path
) -> tuple[dict[str, Any], list[Diagnostic]]:
    """The known properties (``known``: what `known_properties` gives) validated against
    the type's schema, the others pending: the values as the type takes them (a
    provider's are what its facade hands down) and every finding, as found; ``path``:
    the resource's properties' (`properties_path`)."""
    values, unknown = known
    return validate_properties(
        plugin.properties_schema,
        values,
        path=path,
        type_name=plugin.type_name,
        dynamic=plugin.traits.dynamic_properties,
        pending=frozenset(unknown),
    )


def properties_path(definition: StackDefinition, name: str) -> Path:
    """Where the properties of resource ``name`` are (their findings' path)."""
    resource = definition.template.resources[name]
    return (*resource.path, definition.template.names.properties)


def check_properties(
    definition: StackDefinition,
    name: str,
    plugin: ResourcePlugin,
    *,
    for_create: bool = True,
    known: tuple[dict[str, Any], set[str]] | None = None,
    validation: tuple[dict[str, Any], list[Diagnostic]] | None = None,
) -> list[Diagnostic]:
    """The properties' schema; for a create also the type's own checks (Heat's validate
    API checks only the schema: ``OS::Heat::Value``'s value against its type waits).
    ``known``: what `known_properties` gives, when the caller has it already;
    ``validation``: what `validate_known` gives of it, likewise."""
    resource = definition.template.resources[name]
    given = resource.properties
    if plugin.traits.dynamic_properties and (
        given is None or (isinstance(given, dict) and not given)
    ):
        # No property, and a type that takes any (OS::Heat::None, as each of 10,000 may
        # be): no schema problem, nothing hidden, only the type's own checks (as
        # `engine.properties.resolve_properties` does at create)
        if not for_create:
            return []
        path = properties_path(definition, name)
        return [
            Diagnostic(codes.PROPERTY_VALUE, message, path, resource.span)
            for message in plugin.validate({})
        ]
    known = known_properties(definition, name) if known is None else known
    unknown = known[1]
    path = properties_path(definition, name)
    validated, found = validate_known(plugin, known, path) if validation is None else validation
    if not for_create:
        # Heat's validate checks only that each property is known; a key inside a
        # property's own map schema (a group's resource_def) is checked with the value,
        # at create (measured on 24.1.2: nested_matrix/group_member.resource_def_unknown_key)
        found = [
            d for d in found if d.code == codes.PROPERTY_UNKNOWN and len(d.path) == len(path) + 1
        ]
    sensitive = sensitive_properties(definition.template, name, definition.taint)
    found = withhold(found, path, sensitive)
    data = definition.template.document.data
    found = [d if d.span else replace(d, span=locate(data, d.path)) for d in found]
    if isinstance(plugin, TemplateResource):
        note = f"the provider template is {plugin.location}"
        found = [replace(d, notes=(*d.notes, note)) for d in found]
    if for_create and not unknown and not any(d.is_error for d in found):
        # every value known (nothing pending): ``validated`` is what the type's checks
        # take, from the one validation above
        found.extend(
            Diagnostic(codes.PROPERTY_VALUE, message, path, resource.span)
            for message in withheld_messages(plugin.validate(validated), sensitive)
        )
    return found


def snapshot_policy(
    definition: StackDefinition, name: str, plugin: ResourcePlugin
) -> list[Diagnostic]:
    """``deletion_policy: Snapshot`` on a type that cannot snapshot what it deletes: Heat's
    validate refuses it (measured on 24.1.2 for Value, RandomString and None; nested
    stacks are not measured and not checked)."""
    resource = definition.template.resources[name]
    policy = resource.deletion_policy
    if not isinstance(policy, str) or policy.lower() != "snapshot":
        return []
    if plugin.traits.snapshot_delete or isinstance(plugin, NestedStackPlugin):
        return []
    key = definition.template.names.deletion_policy
    return [
        Diagnostic(
            codes.RESOURCE_DEFINITION,
            f'"{policy}" deletion policy not supported',
            (*resource.path, key),
            resource.span,
        )
    ]


def check_update_policies(definition: StackDefinition, resolution: Resolution) -> list[Diagnostic]:
    """Keys of a literal ``update_policy`` that the type's update policy schema lacks:
    Heat's validate refuses them (``Property error: resources.a.update_policy: Unknown
    Property x``, measured on 24.1.2; a type without an update policy takes no keys)."""
    template = definition.template
    key = template.names.update_policy
    found: list[Diagnostic] = []
    for name in definition.enabled:
        resource = template.resources[name]
        policy = resource.update_policy
        if not isinstance(policy, dict) or name not in resolution.types:
            continue  # the catalog is not read (and garbage collected) for nothing
        schema = catalog_schema(resolution.types.get(name, resource.type))
        if schema is None:
            continue
        if isinstance(resolution.plugins.get(name), TemplateResource):
            continue
        found.extend(_unknown_keys(policy, schema.update_policy, (*resource.path, key)))
    return found


def _unknown_keys(value: dict[Any, Any], schema: Mapping[str, Any], path: Path) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    for name, item in value.items():
        declared = schema.get(str(name))
        if declared is None:
            found.append(
                Diagnostic(
                    codes.PROPERTY_UNKNOWN,
                    f"Unknown Property {name}",
                    (*path, str(name)),
                    key_span(value, name) or value_span(value, name),
                )
            )
        elif declared.schema is not None and isinstance(item, dict) and "*" not in declared.schema:
            found.extend(_unknown_keys(item, declared.schema, (*path, str(name))))
    return found


def check_catalog_properties(
    definition: StackDefinition, resolution: Resolution
) -> list[Diagnostic]:
    """Properties a cloud type (known from the catalog, not runnable here) does not
    declare: all that Heat's validate checks of a resource's properties."""
    template = definition.template
    found: list[Diagnostic] = []
    for name, type_name in resolution.types.items():
        if name in resolution.plugins or name not in template.resources:
            continue
        schema = catalog_schema(type_name)
        resource = template.resources[name]
        properties = resource.properties
        if schema is None or schema.support_status.hidden or not isinstance(properties, dict):
            continue  # a hidden type is a removed one; the catalog keeps no properties
        for key in properties:
            if key not in schema.properties:
                found.append(
                    Diagnostic(
                        codes.PROPERTY_UNKNOWN,
                        f"Unknown Property {key}",
                        (*resource.path, template.names.properties, str(key)),
                        key_span(properties, key) or resource.span,
                    )
                )
    return found
