"""``OS::Heat::TestResource``: a resource that waits and fails on request, for testing.

Stack tests use it to exercise ordering, timeouts, failure and rollback, and replacement
on update, without a cloud: it stores ``value``, waits ``wait_secs`` (or the per-action
``action_wait_secs``) and then fails with "Test Resource failed <name>" when ``fail`` is
set (never on delete, so a failed stack can always be deleted).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stoker.resources.base import ResourceContext, ResourceFailure, ResourcePlugin, ResourceView
from stoker.resources.builtin.waiting import pause
from stoker.resources.constraints import custom_constraint
from stoker.resources.schema import SHOW, AttributeSchema, PropertySchema, PropertyType


class TestResourceFailed(ResourceFailure):
    """``fail: true``: Heat's TestResource raises a ValueError, and its reasons name
    that class (``ValueError: resources.t: Test Resource failed t``)."""

    __test__ = False  # not a test class for pytest
    heat_class = "ValueError"


_NUMBER, _STRING, _BOOLEAN = PropertyType.NUMBER, PropertyType.STRING, PropertyType.BOOLEAN


def _action_seconds(action: str) -> PropertySchema:
    return PropertySchema(
        _NUMBER, f"Seconds to wait during {action}; wait_secs when unset.", update_allowed=True
    )


class TestResource(ResourcePlugin):
    """Stores ``value`` (attribute ``output``); waits, and fails when told to."""

    __test__ = False  # not a pytest test class, whatever its name says

    type_name = "OS::Heat::TestResource"
    properties_schema = {
        "value": PropertySchema(
            _STRING, "The value to store.", default="test_string", update_allowed=True
        ),
        "update_replace": PropertySchema(
            _BOOLEAN,
            "Replace the resource, instead of updating it, when value changes.",
            default=False,
            update_allowed=True,
        ),
        "fail": PropertySchema(
            _BOOLEAN,
            "Fail create and update after the wait (delete still succeeds).",
            default=False,
            update_allowed=True,
        ),
        "client_name": PropertySchema(
            _STRING,
            "Accepted for compatibility; stoker polls no client.",
            default="",
            update_allowed=True,
        ),
        "entity_name": PropertySchema(
            _STRING,
            "Accepted for compatibility; stoker polls no client.",
            default="",
            update_allowed=True,
        ),
        "wait_secs": PropertySchema(
            _NUMBER,
            "Seconds each action waits before it completes; negative waits forever.",
            default=0,
            update_allowed=True,
        ),
        "action_wait_secs": PropertySchema(
            PropertyType.MAP,
            "Per-action waits that override wait_secs.",
            update_allowed=True,
            schema={
                "create": _action_seconds("create"),
                "update": _action_seconds("update"),
                "delete": _action_seconds("delete"),
            },
        ),
        "attr_wait_secs": PropertySchema(
            _NUMBER,
            "Accepted for compatibility; stoker reads attributes from recorded state.",
            default=0,
            update_allowed=True,
        ),
        "constraint_prop_secs": PropertySchema(
            _NUMBER,
            "Checked with the test_constr custom constraint.",
            default=0,
            constraints=(custom_constraint("test_constr"),),
            update_allowed=True,
        ),
        "update_replace_value": PropertySchema(
            _STRING, "Any change of this value replaces the resource."
        ),
    }
    attributes_schema = {
        "output": AttributeSchema(description="The stored value.", cache_none=True),
        "show": SHOW,
    }

    async def create(self, context: ResourceContext) -> None:
        properties = context.properties
        if not properties["fail"]:
            context.data["value"] = properties["value"]
            context.physical_id = context.physical_name
        await self._wait_then_maybe_fail(context, self._seconds(properties, "create"))

    def needs_replace(self, previous: ResourceView, properties: Mapping[str, Any]) -> bool:
        return previous.properties.get("value") != properties.get("value") and bool(
            properties.get("update_replace")
        )

    async def update(self, context: ResourceContext, previous: ResourceView) -> None:
        properties = context.properties
        seconds: float = 0
        if previous.properties.get("value") != properties["value"]:
            if not properties["fail"]:
                context.data["value"] = properties["value"]
            seconds = self._seconds(properties, "update")
        await self._wait_then_maybe_fail(context, seconds)

    async def delete(self, context: ResourceContext) -> None:
        await pause(context, self._seconds(context.properties, "delete"))

    def attribute(self, view: ResourceView, name: str) -> Any:
        return view.data.get("value") if name == "output" else None

    @staticmethod
    def _seconds(properties: Mapping[str, Any], action: str) -> float:
        per_action = properties.get("action_wait_secs") or {}
        seconds = per_action.get(action)
        if seconds is None:
            seconds = properties.get("wait_secs") or 0
        return float(seconds)

    @staticmethod
    async def _wait_then_maybe_fail(context: ResourceContext, seconds: float) -> None:
        await pause(context, seconds)
        if context.properties.get("fail"):
            raise TestResourceFailed(f"Test Resource failed {context.resource_name}")
