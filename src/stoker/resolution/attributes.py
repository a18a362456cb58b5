"""The attributes a stack's `get_attr` calls name, checked against what each target
declares (its type's attributes, a provider template's outputs, a group's members'), as
the tree check does before create (`stoker.resolution.tree`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from stoker import codes
from stoker.definition import StackDefinition
from stoker.diagnostics import Diagnostic
from stoker.functions.base import Function, Scope, functions_in
from stoker.resolution.types import Resolution
from stoker.resources import NestedStackPlugin, TemplateResource, catalog_schema

_ATTRIBUTE_READERS = frozenset({"get_attr", "Fn::GetAtt"})
#: types whose attributes are their software config's outputs: any name may be read
_DEPLOYMENTS = frozenset({"OS::Heat::SoftwareDeployment", "OS::Heat::StructuredDeployment"})


def declared_attributes(resolution: Resolution, name: str) -> frozenset[str] | None:
    """The attribute names ``name``'s type declares; None when it answers any name
    (nested stacks, provider templates, ``OS::Heat::None``, software deployments)."""
    plugin = resolution.plugins.get(name)
    if plugin is not None:
        if plugin.traits.dynamic_attributes or isinstance(
            plugin, TemplateResource | NestedStackPlugin
        ):
            return None
        type_name = plugin.type_name
        names = set(plugin.attributes_schema)
    else:
        type_name = resolution.types.get(name, "")
        schema = catalog_schema(type_name)
        if schema is None or schema.nested_stack or schema.support_status.hidden:
            return None  # hidden types are removed ones: Heat does not check their reads
        names = set(schema.attributes)
    if type_name in _DEPLOYMENTS:
        return None
    return frozenset(names | {"show"})


def check_attributes(definition: StackDefinition, resolution: Resolution) -> list[Diagnostic]:
    """get_attr of an attribute the resource's type does not declare, which Heat refuses
    when it validates (``The Referenced Attribute (v nosuch) is incorrect.``)."""
    scope = definition.scope
    if scope is None:
        return []
    template = definition.template
    trees: list[Any] = []
    for name in definition.enabled:
        resource = template.resources[name]
        trees.extend((resource.properties, resource.metadata))
    trees.extend(output.value for output in template.outputs.values())
    found: list[Diagnostic] = []
    # each target's answer, asked once: a template reads the same resources' attributes
    # many times (each of 1,000 values reads its parent's three times)
    declared_of: dict[str, frozenset[str] | None] = {}
    for call, args in _reads(trees, scope):
        if not isinstance(args[0], str):
            continue
        target, attribute = str(args[0]), str(args[1])
        if target in declared_of:
            declared = declared_of[target]
        else:
            declared = declared_of[target] = declared_attributes(resolution, target)
        if declared is None or attribute in declared:
            continue
        found.append(_unknown(target, attribute, call))
    return found


def member_attributes(
    definition: StackDefinition, name: str, plugin: NestedStackPlugin, members: Resolution
) -> list[Diagnostic]:
    """get_attr of a group's or chain's member attribute that the member's type lacks.

    Heat's validate accepts it; its create builds the group's nested template with an
    output per attribute read and refuses that (``The Referenced Attribute (0 nosuch) is
    incorrect.``, measured on 24.1.2 for ``[g, nosuch]``, ``[g, attributes, nosuch]`` and
    ``[g, resource.0.nosuch]``).
    """
    scope = definition.scope
    names = list(members.types) or list(members.plugins)
    if scope is None or not names:
        return []
    own = set(plugin.attributes_schema)
    trees: list[Any] = [definition.template.outputs[o].value for o in definition.template.outputs]
    for enabled in definition.enabled:
        resource = definition.template.resources[enabled]
        trees.extend((resource.properties, resource.metadata))
    found: list[Diagnostic] = []
    # the walks `check_attributes` made of the same trees in the same scope
    for call, args in _reads(trees, scope):
        if args[0] != name:
            continue
        member, attribute = names[0], args[1]
        if attribute == "attributes" and len(args) > 2 and isinstance(args[2], str):
            attribute = args[2]
        elif attribute.startswith("resource."):
            parts = attribute.split(".", 2)
            if len(parts) < 3:
                continue
            member, attribute = parts[1], parts[2]
        elif attribute in own:
            continue
        declared = declared_attributes(members, member) if member in names else None
        if declared is None or attribute in declared:
            continue
        found.append(_unknown(member, attribute, call))
    return found


def _reads(trees: list[Any], scope: Scope) -> Iterator[tuple[Function, list[Any]]]:
    """The attribute reads of ``trees`` that name an attribute, and their arguments."""
    for tree in trees:
        for call in functions_in(tree, scope):
            args = call.args
            if call.name not in _ATTRIBUTE_READERS or not isinstance(args, list):
                continue
            if len(args) >= 2 and isinstance(args[1], str):
                yield call, args


def _unknown(target: str, attribute: str, call: Function) -> Diagnostic:
    return Diagnostic(
        codes.UNKNOWN_ATTRIBUTE,
        f"The Referenced Attribute ({target} {attribute}) is incorrect.",
        call.path,
        call.span,
    )
