"""``OS::Heat::WaitConditionHandle`` and ``OS::Heat::WaitCondition``: pausing a stack until
something outside it reports in.

Something (a boot script, a person, a CI job) signals the handle, each signal saying
SUCCESS or FAILURE; the wait condition completes after ``count`` successes, fails at the
first failure, and fails when ``timeout`` passes first. In stoker a signal arrives through
``stoker stack signal <stack> <handle> --data '<json>'``; the handle's attributes say how.
"""

from __future__ import annotations

import json
import secrets
import time
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from stoker.resources.base import ResourceContext, ResourceFailure, ResourcePlugin, ResourceView
from stoker.resources.builtin.waiting import pause
from stoker.resources.constraints import allowed_values, value_range
from stoker.resources.schema import (
    SHOW,
    AttributeSchema,
    AttributeType,
    PropertySchema,
    PropertyType,
    SupportStatus,
)

SUCCESS, FAILURE = "SUCCESS", "FAILURE"
SIGNAL_KEYS = frozenset({"status", "reason", "data", "id"})
HANDLE_TYPES = frozenset({"OS::Heat::WaitConditionHandle"})
"""Types whose signals a wait condition can count."""

POLL_SECONDS = 0.1
"""How often a wait condition looks at its handle's signals."""


def _string_attribute(description: str) -> AttributeSchema:
    return AttributeSchema(AttributeType.STRING, description, cache_none=True)


class WaitConditionHandle(ResourcePlugin):
    """Collects signals; its reference id is what a wait condition's ``handle`` names."""

    type_name = "OS::Heat::WaitConditionHandle"
    properties_schema = {
        "signal_transport": PropertySchema(
            PropertyType.STRING,
            "How Heat would let servers signal; stoker takes every signal the same way.",
            default="TOKEN_SIGNAL",
            constraints=(
                allowed_values(
                    "CFN_SIGNAL",
                    "TEMP_URL_SIGNAL",
                    "HEAT_SIGNAL",
                    "NO_SIGNAL",
                    "ZAQAR_SIGNAL",
                    "TOKEN_SIGNAL",
                ),
            ),
            support_status=SupportStatus(version="6.0.0"),
        ),
    }
    attributes_schema = {
        "token": _string_attribute("A secret made for this handle at create."),
        "endpoint": _string_attribute("Where signals go: stoker://<stack id>/<handle>."),
        "curl_cli": _string_attribute(
            "A command to signal this handle; append --data '<json signal>'."
        ),
        "signal": _string_attribute("JSON with everything needed to signal this handle."),
        "show": SHOW,
    }

    async def create(self, context: ResourceContext) -> None:
        context.data.update(
            token=secrets.token_urlsafe(32),
            stack_id=context.stack_id,
            stack_name=context.stack_name,
            signals={},
        )
        context.physical_id = str(uuid.uuid4())

    async def signal(self, context: ResourceContext, details: Any) -> None:
        """Record one signal. Keys are exactly ``status`` (SUCCESS or FAILURE), ``reason``,
        ``data`` and ``id``; missing ones default to SUCCESS, "Signal <n> received", null
        and n (the signal's number). A signal with the id of an earlier one replaces it."""
        signals: dict[str, Any] = dict(context.data.get("signals") or {})
        entry = normalise_signal(details, len(signals) + 1)
        identifier = str(entry.pop("id"))
        signals[identifier] = entry
        context.data["signals"] = signals

    def attribute(self, view: ResourceView, name: str) -> Any:
        data = view.data
        if not data.get("token"):
            return None
        endpoint = f"stoker://{data.get('stack_id')}/{view.name}"
        command = f"stoker stack signal {data.get('stack_name')} {view.name}"
        if name == "token":
            return data["token"]
        if name == "endpoint":
            return endpoint
        if name == "curl_cli":
            return command
        if name == "signal":
            return json.dumps(
                {
                    "stack_id": data.get("stack_id"),
                    "stack_name": data.get("stack_name"),
                    "resource_name": view.name,
                    "endpoint": endpoint,
                    "token": data["token"],
                    "command": command,
                }
            )
        return None


def normalise_signal(details: Any, number: int) -> dict[str, Any]:
    """One signal with Heat's defaults filled in; ResourceFailure when it is malformed."""
    if details is None:
        details = {}
    if not isinstance(details, Mapping):
        raise ResourceFailure("Metadata format invalid")
    entry = {
        "status": SUCCESS,
        "reason": f"Signal {number} received",
        "data": None,
        "id": number,
        **details,
    }
    if set(entry) != SIGNAL_KEYS or entry["status"] not in (SUCCESS, FAILURE):
        raise ResourceFailure("Metadata format invalid")
    return entry


class WaitCondition(ResourcePlugin):
    """Waits for ``count`` SUCCESS signals on ``handle`` within ``timeout`` seconds."""

    type_name = "OS::Heat::WaitCondition"
    properties_schema = {
        "handle": PropertySchema(
            PropertyType.STRING,
            "The reference id of a wait condition handle (get_resource of it).",
            required=True,
        ),
        "timeout": PropertySchema(
            PropertyType.NUMBER,
            "Seconds to wait for the signals.",
            required=True,
            constraints=(value_range(1, 43200),),
        ),
        "count": PropertySchema(
            PropertyType.INTEGER,
            "How many SUCCESS signals to wait for.",
            default=1,
            constraints=(value_range(min=1),),
            update_allowed=True,
        ),
    }
    attributes_schema = {
        "data": _string_attribute(
            "JSON map of each signal's id to its data, as they were when the wait ended."
        ),
        "show": SHOW,
    }
    #: the clock the timeout is measured on (tests substitute a fake one)
    clock: Callable[[], float] = staticmethod(time.monotonic)

    async def create(self, context: ResourceContext) -> None:
        await self._wait(context)

    async def update(self, context: ResourceContext, previous: ResourceView) -> None:
        # Signals already received count toward a new ``count``, as in Heat.
        await self._wait(context)

    def attribute(self, view: ResourceView, name: str) -> Any:
        return view.data.get("data") if name == "data" else None

    async def _wait(self, context: ResourceContext) -> None:
        handle = str(context.properties["handle"])
        timeout = float(context.properties["timeout"])
        count = int(context.properties.get("count") or 1)
        started = self.clock()
        while True:
            signals = await _signals(context, handle)
            context.data["data"] = json.dumps(
                {identifier: entry.get("data") for identifier, entry in signals.items()}
            )
            if self.clock() - started > timeout:
                raise ResourceFailure(_timeout_message(signals, count))
            failures = [
                str(entry.get("reason"))
                for entry in signals.values()
                if entry.get("status") != SUCCESS
            ]
            if failures:
                raise ResourceFailure(";".join(failures))
            if len(signals) >= count:
                return
            await pause(context, POLL_SECONDS)


async def _signals(context: ResourceContext, handle: str) -> dict[str, Any]:
    view = await context.lookup(handle) if context.lookup is not None else None
    if view is None or view.type not in HANDLE_TYPES:
        raise ResourceFailure(f"{handle} is not a valid wait condition handle.")
    return dict(view.data.get("signals") or {})


def _timeout_message(signals: Mapping[str, Any], count: int) -> str:
    """The timeout message, with the reasons of the successes when there are any."""
    reasons = [str(e.get("reason")) for e in signals.values() if e.get("status") == SUCCESS]
    message = f"{len(reasons)} of {count} received"
    return f"{message} - {';'.join(reasons)}" if reasons else message
