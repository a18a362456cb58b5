"""``OS::Heat::Delay``: a pause, with random jitter, during chosen actions.

Put between resources (with ``depends_on``) it spaces out their creation or deletion, for
instance to avoid overloading a service. The wait is ``min_wait + random() * max_jitter *
jitter_multiplier`` seconds during each action listed in ``actions``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from stoker.resources.base import ResourceContext, ResourceFailure, ResourcePlugin
from stoker.resources.builtin.waiting import pause
from stoker.resources.constraints import allowed_values, value_range
from stoker.resources.schema import SHOW, PropertySchema, PropertyType

ACTIONS = ("CREATE", "DELETE", "SUSPEND", "RESUME")


def _seconds(description: str, default: float) -> PropertySchema:
    return PropertySchema(
        PropertyType.NUMBER,
        description,
        default=default,
        constraints=(value_range(min=0),),
        update_allowed=True,
    )


class Delay(ResourcePlugin):
    """Waits during the listed actions; it has no attributes besides ``show``."""

    type_name = "OS::Heat::Delay"
    properties_schema = {
        "min_wait": _seconds("Seconds to wait, at least.", 0),
        "max_jitter": _seconds("Largest random addition, in units of jitter_multiplier.", 0),
        "jitter_multiplier": _seconds("Seconds per unit of max_jitter.", 1.0),
        "actions": PropertySchema(
            PropertyType.LIST,
            "The actions during which to wait.",
            default=["CREATE"],
            constraints=(allowed_values(*ACTIONS),),
            update_allowed=True,
        ),
    }
    attributes_schema = {"show": SHOW}

    async def create(self, context: ResourceContext) -> None:
        await self._delay(context, "CREATE")

    async def delete(self, context: ResourceContext) -> None:
        await self._delay(context, "DELETE")

    async def suspend(self, context: ResourceContext) -> None:
        await self._delay(context, "SUSPEND")

    async def resume(self, context: ResourceContext) -> None:
        await self._delay(context, "RESUME")

    async def _delay(self, context: ResourceContext, action: str) -> None:
        properties = context.properties
        if action not in (properties.get("actions") or ()):
            return
        shortest, jitter = delay_bounds(properties)
        longest = shortest + jitter
        left = context.time_left()
        if left is not None and longest > left:
            raise ResourceFailure(
                f"{self.type_name} maximum delay {longest}s exceeds stack timeout."
            )
        await pause(context, shortest + jitter * random.random())


def delay_bounds(properties: Mapping[str, Any]) -> tuple[float, float]:
    """The minimum wait and the largest jitter, in seconds."""
    shortest = properties.get("min_wait") or 0
    jitter = (properties.get("max_jitter") or 0) * (properties.get("jitter_multiplier") or 0)
    return shortest, jitter
