"""Software configuration types: ``OS::Heat::SoftwareConfig``, ``StructuredConfig``,
``CloudConfig`` and ``SoftwareComponent`` (``MultipartMime`` builds on them in
`multipart_mime`).

In Heat these store an immutable config record (group, config, options, inputs, outputs)
through the software-config API and return its UUID; servers and deployments then refer
to it. stoker keeps the same record in the resource's own data, under ``config``, so
``get_attr: [name, config]`` and other config resources (MultipartMime) can read it.
Nothing updates in place: any change makes a new config.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from stoker.resources.base import ResourceContext, ResourcePlugin, ResourceView, Traits
from stoker.resources.constraints import allowed_values, length
from stoker.resources.schema import (
    SHOW,
    AttributeSchema,
    AttributeType,
    PropertySchema,
    PropertyType,
)

UNGROUPED = "Heat::Ungrouped"
IO_TYPES = allowed_values("String", "Number", "CommaDelimitedList", "Json", "Boolean")

_STRING = PropertyType.STRING

INPUT_SCHEMA = PropertySchema(
    PropertyType.MAP,
    schema={
        "name": PropertySchema(_STRING, "Name of the input.", required=True),
        "description": PropertySchema(_STRING, "What the input is for."),
        "type": PropertySchema(
            _STRING, "Type of the input.", default="String", constraints=(IO_TYPES,)
        ),
        "default": PropertySchema(PropertyType.ANY, "Value when a deployment gives none."),
        "replace_on_change": PropertySchema(
            PropertyType.BOOLEAN,
            "Replace the deployment, rather than update it, when this input changes.",
            default=False,
        ),
    },
)
OUTPUT_SCHEMA = PropertySchema(
    PropertyType.MAP,
    schema={
        "name": PropertySchema(_STRING, "Name of the output.", required=True),
        "description": PropertySchema(_STRING, "What the output holds."),
        "type": PropertySchema(
            _STRING, "Type of the output.", default="String", constraints=(IO_TYPES,)
        ),
        "error_output": PropertySchema(
            PropertyType.BOOLEAN,
            "A value in this output means the deployment failed.",
            default=False,
        ),
    },
)


def config_properties(config: PropertySchema) -> dict[str, PropertySchema]:
    """The properties every software config shares, with ``config`` of the given kind."""
    return {
        "group": PropertySchema(
            _STRING, "The tool that applies the config (an agent hook name).", default=UNGROUPED
        ),
        "config": config,
        "options": PropertySchema(PropertyType.MAP, "Options for the configuration tool."),
        "inputs": PropertySchema(
            PropertyType.LIST, "Inputs the config expects.", schema={"*": INPUT_SCHEMA}
        ),
        "outputs": PropertySchema(
            PropertyType.LIST, "Outputs the config produces.", schema={"*": OUTPUT_SCHEMA}
        ),
    }


CONFIG_ATTRIBUTE = AttributeSchema(AttributeType.STRING, "The config itself.")


class ConfigPlugin(ResourcePlugin):
    """What every config type does: store a config record under a new UUID.

    Subclasses say how the record's ``config`` is made (`render`). The reference id is the
    UUID, as in Heat, so a config can be named wherever a config id is expected.
    """

    attributes_schema = {"config": CONFIG_ATTRIBUTE, "show": SHOW}
    #: ``show`` is the stored config record, as Heat's software-config API shows it
    traits = Traits(own_show=True)

    async def render(self, context: ResourceContext) -> Any:
        """The config the record holds."""
        return context.properties.get("config")

    def group(self, properties: Mapping[str, Any]) -> str:
        return str(properties.get("group") or UNGROUPED)

    async def create(self, context: ResourceContext) -> None:
        identifier = str(uuid.uuid4())
        properties = context.properties
        context.data["config"] = {
            "id": identifier,
            "name": context.physical_name,
            "group": self.group(properties),
            "config": await self.render(context),
            "options": properties.get("options") or {},
            "inputs": properties.get("inputs") or [],
            "outputs": properties.get("outputs") or [],
            "creation_time": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        }
        context.physical_id = identifier

    def attribute(self, view: ResourceView, name: str) -> Any:
        if name == "show":
            record = view.data.get("config")
            return dict(record) if isinstance(record, Mapping) else None
        if name != "config":
            return None
        return stored_config(view)


def stored_config(view: ResourceView) -> Any:
    """The ``config`` of the record a config resource stored (None if it has none)."""
    record = view.data.get("config")
    return record.get("config") if isinstance(record, Mapping) else None


_UUID = re.compile(r"^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$", re.I)


async def referenced_config(context: ResourceContext, text: str) -> Any:
    """The stored config of the stack's config resource whose id ``text`` is (None when
    it is no id, or names no config resource of this stack)."""
    if not _UUID.match(text) or context.lookup is None:
        return None
    view = await context.lookup(text)
    return stored_config(view) if view is not None else None


CONFIG_PROPERTY = PropertySchema(_STRING, "The script or manifest that does the configuration.")
#: the properties a software component has instead of ``config`` and ``group``
_OWN = frozenset({"config", "group"})


class SoftwareConfig(ConfigPlugin):
    """A config script or manifest, as text, for the tool named by ``group``."""

    type_name = "OS::Heat::SoftwareConfig"
    properties_schema = config_properties(CONFIG_PROPERTY)


class StructuredConfig(ConfigPlugin):
    """A config given as a map, for tools that take structured data (Puppet, Ansible)."""

    type_name = "OS::Heat::StructuredConfig"
    properties_schema = config_properties(
        PropertySchema(PropertyType.MAP, "The configuration data, as a map.")
    )


class CloudConfig(ConfigPlugin):
    """A cloud-init ``#cloud-config`` document made from a map."""

    type_name = "OS::Heat::CloudConfig"
    properties_schema = {
        "cloud_config": PropertySchema(
            PropertyType.MAP, "The cloud-config data, written out as YAML."
        ),
    }

    async def render(self, context: ResourceContext) -> str:
        return cloud_config_text(context.properties.get("cloud_config") or {})

    def group(self, properties: Mapping[str, Any]) -> str:
        return UNGROUPED


class SoftwareComponent(ConfigPlugin):
    """A software component: one config per lifecycle action (``configs``), stored as a
    config record whose ``group`` is ``component`` and whose ``config`` is
    ``{"configs": [...]}``, as Heat's handle_create stores it. Its ``config`` attribute is
    null, as in Heat (whose SoftwareComponent answers only an attribute it never
    declares)."""

    type_name = "OS::Heat::SoftwareComponent"
    properties_schema = {
        "configs": PropertySchema(
            PropertyType.LIST,
            "The configurations of the component's lifecycle actions.",
            required=True,
            constraints=(length(min=1),),
            schema={
                "*": PropertySchema(
                    PropertyType.MAP,
                    "One configuration and the actions it applies to.",
                    schema={
                        "actions": PropertySchema(
                            PropertyType.LIST,
                            "The lifecycle actions this configuration applies to.",
                            default=["CREATE", "UPDATE"],
                            constraints=(length(min=1),),
                            schema={"*": PropertySchema(_STRING, "A lifecycle action.")},
                        ),
                        "config": PropertySchema(
                            _STRING, "The script or manifest for these actions."
                        ),
                        "tool": PropertySchema(
                            _STRING, "The tool that applies the configuration.", required=True
                        ),
                    },
                )
            },
        ),
        **{k: v for k, v in config_properties(CONFIG_PROPERTY).items() if k not in _OWN},
    }

    def validate(self, properties: Mapping[str, Any]) -> list[str]:
        seen: set[Any] = set()
        for config in properties.get("configs") or ():
            actions = list((config or {}).get("actions") or ())
            if any(action in seen for action in actions):
                return [
                    "Defining more than one configuration for the same action in a "
                    "SoftwareComponent is not allowed."
                ]
            seen.update(actions)
        return []

    async def render(self, context: ResourceContext) -> Any:
        return {"configs": context.properties.get("configs")}

    def group(self, properties: Mapping[str, Any]) -> str:
        return "component"

    def attribute(self, view: ResourceView, name: str) -> Any:
        if name == "config":
            return None
        return super().attribute(view, name)


def cloud_config_text(data: Mapping[str, Any]) -> str:
    """``#cloud-config`` then the map in block-style YAML, as cloud-init reads it."""
    import yaml  # here: only a CloudConfig resource needs PyYAML (see template.loader)

    return "#cloud-config\n" + yaml.safe_dump(
        dict(data), default_flow_style=False, allow_unicode=True
    )
