"""``OS::Heat::None``: a placeholder that accepts anything and does nothing.

Environments map a type to it to switch a resource off without editing the template
(``OS::Neutron::Port: OS::Heat::None``), so it takes any property, answers any attribute
with null, and never updates or replaces.
"""

from __future__ import annotations

import os
from typing import Any

from stoker.resources.base import ResourceContext, ResourcePlugin, ResourceView, Traits
from stoker.resources.schema import SHOW

#: the variant digit of a random UUID (RFC 4122: its two high bits are 10) by the digit drawn
_VARIANT = {f"{d:x}": f"{8 | (d & 3):x}" for d in range(16)}


def uuid4_text() -> str:
    """``str(uuid.uuid4())``, made from the same 16 random bytes with the version and
    variant set as `uuid.UUID` sets them, without its object (a fraction of its cost:
    one is made for each OS::Heat::None created, 10,000 for a stack of them)."""
    h = os.urandom(16).hex()
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{_VARIANT[h[16]]}{h[17:20]}-{h[20:]}"


class NoneResource(ResourcePlugin):
    """Stands in for any resource; its reference id is a random UUID made at create."""

    type_name = "OS::Heat::None"
    properties_schema = {}
    attributes_schema = {"show": SHOW}
    traits = Traits(
        dynamic_attributes=True,
        dynamic_properties=True,
        never_updates=True,
        own_show=True,
        external_effect=False,
        reads_physical_name=False,
    )

    async def create(self, context: ResourceContext) -> None:
        identifier = uuid4_text()
        context.data["uuid"] = identifier
        context.physical_id = identifier

    def reference_id(self, view: ResourceView) -> str | None:
        return view.data.get("uuid") or view.physical_id or view.name

    def attribute(self, view: ResourceView, name: str) -> Any:
        return None
