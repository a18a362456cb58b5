"""``OS::Heat::None``: a placeholder that accepts anything and does nothing.

Environments map a type to it to switch a resource off without editing the template
(``OS::Neutron::Port: OS::Heat::None``), so it takes any property, answers any attribute
with null, and never updates or replaces.
"""

from __future__ import annotations

import uuid
from typing import Any

from stoker.resources.base import ResourceContext, ResourcePlugin, ResourceView
from stoker.resources.schema import SHOW


class NoneResource(ResourcePlugin):
    """Stands in for any resource; its reference id is a random UUID made at create."""

    type_name = "OS::Heat::None"
    properties_schema = {}
    attributes_schema = {"show": SHOW}
    dynamic_attributes = True
    dynamic_properties = True
    never_updates = True
    own_show = True
    external_effect = False

    async def create(self, context: ResourceContext) -> None:
        identifier = str(uuid.uuid4())
        context.data["uuid"] = identifier
        context.physical_id = identifier

    def reference_id(self, view: ResourceView) -> str | None:
        return view.data.get("uuid") or view.physical_id or view.name

    def attribute(self, view: ResourceView, name: str) -> Any:
        return None
