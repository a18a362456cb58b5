"""Every type a template names: its resources' types and the member types of its groups.

Groups carry the type of their members in a property (``resource_def: {type: ...}``), so a
template can use a nested template, or a URL, without any resource's own ``type`` saying so.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from stoker.diagnostics import Path, Span
from stoker.template.nodes import locate, value_span

if TYPE_CHECKING:
    from stoker.lint.context import TemplateContext

#: group type -> where its member type is: (property, key) or (property, None) for a list
MEMBER_TYPES: dict[str, tuple[str, str | None]] = {
    "OS::Heat::ResourceGroup": ("resource_def", "type"),
    "OS::Heat::AutoScalingGroup": ("resource", "type"),
    "OS::Heat::ResourceChain": ("resources", None),
}


class TypeReference(NamedTuple):
    resource: str
    type: str  # as written
    path: Path
    span: Span | None
    member: bool = False  # a group's member type rather than the resource's own type


def type_references(ctx: TemplateContext) -> Iterator[TypeReference]:
    template = ctx.parsed
    type_key = template.names.type
    for name, resource in template.resources.items():
        if not resource.type:
            continue
        type_path = (*resource.path, type_key)
        yield TypeReference(name, resource.type, type_path, locate(ctx.data, type_path))
        where = MEMBER_TYPES.get(resource.type)
        properties = resource.properties
        if where is None or not isinstance(properties, dict):
            continue
        prop, key = where
        value: Any = properties.get(prop)
        base: Path = (*resource.path, template.names.properties, prop)
        if key is not None and isinstance(value, dict) and isinstance(value.get(key), str):
            yield TypeReference(name, str(value[key]), (*base, key), value_span(value, key), True)
        elif key is None and isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, str):
                    yield TypeReference(
                        name, str(item), (*base, index), value_span(value, index), True
                    )
