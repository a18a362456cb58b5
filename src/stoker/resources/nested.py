"""Resource types that are a nested stack: provider templates, groups, chains, OS::Heat::Stack.

Such a type says what child stack it wants (a template as data, parameter values, files);
the engine creates, deletes and records that child like any stack, with its parent. The
type then answers get_attr and get_resource from the child, through a `ChildStack` view the
engine hands it (outputs, member references and attributes, read from recorded state).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from stoker.limits import active_limits, exceeded
from stoker.parameters import ParameterType
from stoker.resources.base import ResourceFailure, ResourcePlugin, ResourceView, Traits
from stoker.resources.constraints import allowed_values, length, value_range
from stoker.resources.schema import (
    PARAMETER_PROPERTY_TYPES,
    SHOW,
    AttributeSchema,
    AttributeType,
    PropertySchema,
    PropertyType,
)
from stoker.template.loader import load_document
from stoker.template.nodes import plain


class ChildStack(Protocol):
    """A nested stack as its facade sees it."""

    stack_id: str
    stack_name: str
    arn: str  # arn:openstack:heat::<project>:stacks/<name>/<id>, as Heat builds it

    def output(self, name: str) -> Any:
        """An output's value; raises LookupError if there is no such output."""

    def output_names(self) -> list[str]: ...

    def members(self) -> list[str]:
        """The child's resources, in the order they were defined."""

    def reference(self, member: str) -> Any: ...

    def attribute(self, member: str, attribute: str, path: Sequence[Any]) -> Any: ...


@dataclass(slots=True, frozen=True)
class ChildSpec:
    """The child stack a nested type wants: a template (as data) and its inputs."""

    template: dict[str, Any]
    parameters: dict[str, Any] = field(default_factory=dict)
    #: for messages: the template file, or a description
    location: str = "<nested>"
    #: where the child's get_file and relative paths start
    base_dir: str | None = None
    files: dict[str, str] = field(default_factory=dict)


class NestedStackPlugin(ResourcePlugin):
    """A resource implemented by a child stack."""

    #: any attribute may be an output of the child. For a provider template ``show`` is
    #: an output name like any other: without such an output, Heat's output read fails
    #: ("The Referenced Attribute (r show) is incorrect"; measured on 24.1.2); groups ask
    #: it of every member. A failed child stack is updated, not replaced: its failed
    #: resources are replaced inside it (Heat's StackResource, recorded in
    #: tests/fidelity/update_nested)
    traits = Traits(
        dynamic_attributes=True, own_show=True, replace_failed=False, always_updates=True
    )
    #: an update's preview with ``show_nested`` lists the child's resources too (Heat's
    #: StackResource); OS::Heat::Stack's child is a remote stack in Heat, which its
    #: preview does not open
    previewed_inside: ClassVar[bool] = True

    def child_spec(self, properties: Mapping[str, Any], name: str) -> ChildSpec:
        raise NotImplementedError

    def nested_reference(self, view: ResourceView, child: ChildStack) -> Any:
        """get_resource of a provider resource: the child's ``OS::stack_id`` output if it
        has one, else the child's ARN-style identifier (Heat 24.1.2; groups, chains and
        OS::Heat::Stack give the bare id instead and override this)."""
        if "OS::stack_id" in child.output_names():
            return child.output("OS::stack_id")
        return child.arn

    def nested_attribute(
        self, view: ResourceView, name: str, path: Sequence[Any], child: ChildStack
    ) -> tuple[Any, Sequence[Any]]:
        """The value of attribute ``name`` and what is left of ``path`` to walk into it.

        Provider semantics (heat-semantics §5): outputs by name, ``resource.<n>`` for an
        inner reference, ``resource.<n>.<attr>`` (or ``[r, resource.<n>, attr, ...]``) for
        an inner attribute.
        """
        if name.startswith("resource."):
            return member_lookup(view, name, path, child, group=False)
        try:
            return child.output(name), path
        except LookupError:
            raise ResourceFailure(
                f"The Referenced Attribute ({view.name} {name}) is incorrect."
            ) from None


def member_lookup(
    view: ResourceView, name: str, path: Sequence[Any], child: ChildStack, *, group: bool
) -> tuple[Any, Sequence[Any]]:
    """``resource.<n>`` / ``resource.<n>.<attr>`` (split on the first two dots)."""
    parts = name.split(".", 2)
    member = parts[1] if len(parts) > 1 else ""
    if member not in child.members():
        if group:
            raise ResourceFailure(f"Member '{member}' not found in group resource '{view.name}'.")
        raise ResourceFailure(f"The Referenced Attribute ({view.name} {name}) is incorrect.")
    if len(parts) == 3:
        return child.attribute(member, parts[2], path), ()
    if path:
        return child.attribute(member, str(path[0]), path[1:]), ()
    return child.reference(member), ()


# ------------------------------------------------------------------ provider templates


class TemplateResource(NestedStackPlugin):
    """A type implemented by a provider template: properties become its parameters,
    outputs its attributes. Made by the engine for each template a type resolves to."""

    def __init__(
        self,
        type_name: str,
        location: str,
        template: dict[str, Any],
        parameters: Mapping[str, tuple[ParameterType, bool]],
        base_dir: str | None,
    ) -> None:
        """``parameters``: each nested parameter's type and whether a value is required.

        A provider template's plugin is made per template, so what other plugins declare
        on the class it sets on the instance (the ignores below say so to mypy)."""
        self.type_name = type_name  # type: ignore[misc]
        self.location = location
        self.template = template
        self.base_dir = base_dir
        self.properties_schema = {  # type: ignore[misc]
            name: PropertySchema(
                PARAMETER_PROPERTY_TYPES[kind],
                required=required,
                update_allowed=True,
                allow_conversion=kind in (ParameterType.COMMA_DELIMITED_LIST, ParameterType.JSON),
            )
            for name, (kind, required) in parameters.items()
        }
        self.attributes_schema = {"show": SHOW}  # type: ignore[misc]

    def child_spec(self, properties: Mapping[str, Any], name: str) -> ChildSpec:
        # Unset properties are not passed: the nested default (or parameter_defaults) applies.
        passed = {
            k: _delimited(k, v) if self.properties_schema[k].type is PropertyType.LIST else v
            for k, v in properties.items()
            if v is not None
        }
        return ChildSpec(self.template, passed, self.location, self.base_dir)


def _delimited(name: str, value: list[Any]) -> str:
    """A list property as Heat 24.1.2 hands it to the nested comma_delimited_list: joined
    with commas (None items as empty strings); a list whose first item is a map flattened
    to ``.member.<i>.<key>=<value>`` items, values in Python's str() form as Heat prints
    them. Items of other types are refused, as Heat refuses them."""
    if not value:
        return ""
    if isinstance(value[0], dict):
        items = []
        for index, item in enumerate(value):
            if not isinstance(item, dict):
                kind = type(item).__name__
                raise ResourceFailure(
                    f"AttributeError: {name}: '{kind}' object has no attribute 'items'"
                )
            items += [f".member.{index}.{k}={v}" for k, v in item.items()]
        return ",".join(items)
    for index, item in enumerate(value):
        if item is not None and not isinstance(item, str):
            raise ResourceFailure(
                f"TypeError: {name}: sequence item {index}: expected str instance, "
                f"{type(item).__name__} found"
            )
    return ",".join("" if item is None else item for item in value)


# ------------------------------------------------------------------ groups
def substitute_index(value: Any, index_var: str, index: str) -> Any:
    """The index variable replaced in string values (not keys) anywhere in ``value``."""
    if isinstance(value, str):
        return value.replace(index_var, index)
    if isinstance(value, dict):
        return {k: substitute_index(v, index_var, index) for k, v in value.items()}
    if isinstance(value, list):
        return [substitute_index(v, index_var, index) for v in value]
    return value


@dataclass(slots=True)
class UnstoredMembers:  # not frozen: ChildStack's attributes are plain ones
    """The child of a group whose nested stack failed its own validation at create, so
    stoker never stored it. Heat 24.1.2 stores that stack with its members never created,
    and get_attr of the group answers a null per member (tests/fidelity nested_matrix
    group_member.member_property_error): this view answers the same, nothing stored."""

    names: tuple[str, ...]
    stack_id: str = ""
    stack_name: str = ""
    arn: str = ""

    def output(self, name: str) -> Any:
        raise LookupError(name)

    def output_names(self) -> list[str]:
        return []

    def members(self) -> list[str]:
        return list(self.names)

    def reference(self, member: str) -> Any:
        return None

    def attribute(self, member: str, attribute: str, path: Sequence[Any]) -> Any:
        return None


class MemberAttributes(NestedStackPlugin):
    """Attribute rules shared by ResourceGroup and ResourceChain."""

    def unstored_child(self, properties: Mapping[str, Any], name: str) -> ChildStack | None:
        """The members Heat's never-created child would hold (None when the properties
        do not even say which: the group then answers null)."""
        try:
            spec = self.child_spec(properties, name)
        except (ResourceFailure, LookupError, TypeError, ValueError):
            return None
        return UnstoredMembers(tuple(spec.template.get("resources") or ()))

    def nested_reference(self, view: ResourceView, child: ChildStack) -> Any:
        return child.stack_id

    def nested_attribute(
        self, view: ResourceView, name: str, path: Sequence[Any], child: ChildStack
    ) -> tuple[Any, Sequence[Any]]:
        members = child.members()
        if name == "refs":
            return [child.reference(m) for m in members], path
        if name == "refs_map":
            return {m: child.reference(m) for m in members}, path
        if name == "removed_rsrc_list":
            return list(view.data.get("removed", [])), path
        if name == "attributes":
            if not path:
                raise ResourceFailure(
                    f'Attribute "attributes" of {view.name} needs the name of a member '
                    "attribute: get_attr: [group, attributes, <attribute>]"
                )
            return {m: child.attribute(m, str(path[0]), path[1:]) for m in members}, ()
        if name.startswith("resource."):
            return member_lookup(view, name, path, child, group=True)
        return [child.attribute(m, name, path) for m in members], ()


class ResourceGroup(MemberAttributes):
    """``count`` copies of ``resource_def``, named "0", "1", ... (skipping removed names)."""

    type_name = "OS::Heat::ResourceGroup"
    properties_schema = {
        "count": PropertySchema(
            PropertyType.INTEGER,
            "How many members.",
            default=1,
            constraints=(value_range(min=0),),
            update_allowed=True,
        ),
        "index_var": PropertySchema(
            PropertyType.STRING,
            "Replaced by each member's index in its property values.",
            default="%index%",
            constraints=(length(min=3),),
        ),
        "removal_policies": PropertySchema(
            PropertyType.LIST,
            "Members to remove (their names are never reused).",
            default=[],
            update_allowed=True,
            schema={
                "*": PropertySchema(
                    PropertyType.MAP,
                    schema={
                        "resource_list": PropertySchema(PropertyType.LIST, default=[]),
                    },
                )
            },
        ),
        "removal_policies_mode": PropertySchema(
            PropertyType.STRING,
            "How removal_policies combine with earlier ones.",
            default="append",
            constraints=(allowed_values("append", "update"),),
            update_allowed=True,
        ),
        "resource_def": PropertySchema(
            PropertyType.MAP,
            "The definition of each member.",
            required=True,
            update_allowed=True,
            schema={
                "type": PropertySchema(PropertyType.STRING, required=True),
                "properties": PropertySchema(PropertyType.MAP),
                "metadata": PropertySchema(PropertyType.MAP),
            },
        ),
    }
    attributes_schema = {
        "refs": AttributeSchema(AttributeType.LIST, description="The members' reference ids."),
        "refs_map": AttributeSchema(AttributeType.MAP, description="Member name to reference id."),
        "attributes": AttributeSchema(
            AttributeType.MAP, description="Member name to the value of an attribute."
        ),
        "removed_rsrc_list": AttributeSchema(
            AttributeType.LIST, description="Names removed by removal_policies."
        ),
        "show": SHOW,
    }

    def child_spec(self, properties: Mapping[str, Any], name: str) -> ChildSpec:
        count = int(properties.get("count", 1))
        return self.members_spec(properties, name, self.removed(properties), count)

    def members_spec(
        self, properties: Mapping[str, Any], name: str, skip: Collection[str], size: int
    ) -> ChildSpec:
        """The child of ``size`` members named "0", "1", ... except the ``skip`` ones."""
        if size > active_limits().resources:
            raise exceeded("resources", f"the group {name} has {size:,} members")
        members: dict[str, Any] = {}
        index = 0
        while len(members) < size:
            member = str(index)
            index += 1
            if member not in skip:
                members[member] = self.member_body(properties, member)
        return self.spec_of(members, name)

    def spec_of(self, members: Mapping[str, Any], name: str) -> ChildSpec:
        """The child stack holding exactly these member templates."""
        template = {"heat_template_version": "2015-04-30", "resources": dict(members)}
        return ChildSpec(template, {}, f"<members of group {name}>")

    def member_body(self, properties: Mapping[str, Any], member: str) -> dict[str, Any]:
        """Member ``member``'s template: ``resource_def`` with its index substituted."""
        definition = properties["resource_def"]
        index_var = properties.get("index_var") or "%index%"
        body: dict[str, Any] = {"type": definition["type"]}
        if definition.get("properties"):
            body["properties"] = substitute_index(definition["properties"], index_var, member)
        if definition.get("metadata"):
            body["metadata"] = definition["metadata"]
        return body

    def removed(self, properties: Mapping[str, Any]) -> list[str]:
        """The names ``removal_policies`` list (all of them count when the group is new)."""
        return [
            str(item)
            for policy in properties.get("removal_policies") or []
            for item in (policy or {}).get("resource_list") or []
        ]


class ResourceChain(MemberAttributes):
    """One member per type in ``resources``, each after the previous unless concurrent."""

    type_name = "OS::Heat::ResourceChain"
    properties_schema = {
        "concurrent": PropertySchema(
            PropertyType.BOOLEAN, "Create the members at once.", default=False
        ),
        "resource_properties": PropertySchema(
            PropertyType.MAP, "Properties given to every member."
        ),
        "resources": PropertySchema(
            PropertyType.LIST, "The members' types, in order.", required=True, update_allowed=True
        ),
    }
    attributes_schema = {
        "refs": AttributeSchema(AttributeType.LIST, description="The members' reference ids."),
        "attributes": AttributeSchema(
            AttributeType.MAP, description="Member name to the value of an attribute."
        ),
        "show": SHOW,
    }

    def child_spec(self, properties: Mapping[str, Any], name: str) -> ChildSpec:
        resources: dict[str, Any] = {}
        shared = properties.get("resource_properties") or {}
        for index, type_name in enumerate(properties["resources"]):
            body: dict[str, Any] = {"type": str(type_name)}
            if shared:
                body["properties"] = dict(shared)
            if index and not properties.get("concurrent"):
                body["depends_on"] = [str(index - 1)]
            resources[str(index)] = body
        template = {"heat_template_version": "2015-04-30", "resources": resources}
        return ChildSpec(template, {}, f"<members of chain {name}>")


class InlineStack(NestedStackPlugin):
    """``OS::Heat::Stack``: a child stack from an inline template and parameters.

    (Heat's type creates the stack through a remote Heat API; stoker creates it locally.)
    """

    type_name = "OS::Heat::Stack"
    # ``show`` is the engine's null, not an output of the child
    traits = NestedStackPlugin.traits._replace(own_show=False)
    previewed_inside = False  # recorded: tests/fidelity/updates preview/stack_resource_show_nested
    properties_schema = {
        "context": PropertySchema(
            PropertyType.MAP,
            "Where a remote stack would go.",
            update_allowed=True,
            schema={
                "ca_cert": PropertySchema(PropertyType.STRING, update_allowed=True),
                "credential_secret_id": PropertySchema(PropertyType.STRING, update_allowed=True),
                "insecure": PropertySchema(
                    PropertyType.BOOLEAN, default=False, update_allowed=True
                ),
                "region_name": PropertySchema(PropertyType.STRING),
            },
        ),
        "parameters": PropertySchema(
            PropertyType.MAP, "The child's parameter values.", default={}, update_allowed=True
        ),
        "template": PropertySchema(
            PropertyType.STRING,
            "The child's template (YAML/JSON).",
            required=True,
            update_allowed=True,
        ),
        "timeout": PropertySchema(PropertyType.INTEGER, "Minutes.", update_allowed=True),
    }
    attributes_schema = {
        "outputs": AttributeSchema(AttributeType.MAP, description="The child's outputs."),
        "stack_name": AttributeSchema(AttributeType.STRING, description="The child's name."),
        "show": SHOW,
    }

    def child_spec(self, properties: Mapping[str, Any], name: str) -> ChildSpec:
        document = load_document(str(properties["template"]), f"<template of {name}>")
        if not isinstance(document.data, dict):
            raise ResourceFailure(f"The template of {name} is not a mapping")
        return ChildSpec(
            plain(document.data), dict(properties.get("parameters") or {}), f"<template of {name}>"
        )

    def nested_reference(self, view: ResourceView, child: ChildStack) -> Any:
        return child.stack_id

    def nested_attribute(
        self, view: ResourceView, name: str, path: Sequence[Any], child: ChildStack
    ) -> tuple[Any, Sequence[Any]]:
        if name == "outputs":
            return {o: child.output(o) for o in child.output_names()}, path
        if name == "stack_name":
            return child.stack_name, path
        raise ResourceFailure(f"The Referenced Attribute ({view.name} {name}) is incorrect.")


NESTED_TYPES: tuple[type[NestedStackPlugin], ...] = (ResourceGroup, ResourceChain, InlineStack)
