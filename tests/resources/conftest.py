"""Helpers for driving resource plugins for real, without the engine.

`Stack` plays the engine's part for a handful of resources: it validates properties with
the plugin's schema, runs handlers with a `ResourceContext`, records what they stored as
`ResourceView`s, and answers ``context.lookup`` from those records. Time is fake: sleeps
advance a clock instead of waiting, so waits and timeouts are exact and instant.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import pytest

from stoker.resources.base import ResourceContext, ResourcePlugin, ResourceView
from stoker.resources.registry import default_registry
from stoker.resources.schema import validate_properties


@dataclass
class FakeClock:
    """Monotonic time that moves only when something sleeps."""

    now: float = 1000.0
    slept: list[float] = field(default_factory=list)

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)


@dataclass
class Stack:
    """A few resources of one stack, run through their plugins by hand."""

    clock: FakeClock = field(default_factory=FakeClock)
    name: str = "demo"
    id: str = "5f0c3c1e-0000-4000-8000-000000000001"
    time_left: float | None = None
    views: dict[str, ResourceView] = field(default_factory=dict)
    contexts: dict[str, ResourceContext] = field(default_factory=dict)
    #: called on every sleep, to let a test act "while" a handler waits
    on_sleep: list[Any] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.registry = default_registry()
        # Timeouts are measured on the fake clock too (plugins read it, never store state).
        self.plugin("OS::Heat::WaitCondition").clock = self.clock  # type: ignore[misc]

    def plugin(self, type_name: str) -> ResourcePlugin:
        plugin = self.registry.get(type_name)
        assert plugin is not None, type_name
        return plugin

    def context(self, name: str, type_name: str, properties: dict[str, Any]) -> ResourceContext:
        plugin = self.plugin(type_name)
        values, found = validate_properties(
            plugin.properties_schema,
            properties,
            path=("resources", name, "properties"),
            type_name=type_name,
            dynamic=plugin.traits.dynamic_properties,
        )
        errors = [d.render() for d in found if d.is_error]
        assert not errors, errors
        context = ResourceContext(
            stack_name=self.name,
            stack_id=self.id,
            project_id="project",
            resource_name=name,
            physical_name=f"{self.name}-{name}-abcdefghijkl",
            properties=values,
            time_left=lambda: self.time_left,
            lookup=self.lookup,
            sleep=self._sleep,
        )
        self.contexts[name] = context
        return context

    async def _sleep(self, seconds: float) -> None:
        await self.clock.sleep(seconds)
        for action in list(self.on_sleep):
            await action()

    async def lookup(self, reference: str) -> ResourceView | None:
        for view in self.views.values():
            plugin = self.plugin(view.type)
            if view.name == reference or plugin.reference_id(view) == reference:
                return view
        return None

    def record(self, name: str, type_name: str, action: str, status: str) -> ResourceView:
        context = self.contexts[name]
        view = ResourceView(
            name=name,
            type=type_name,
            physical_id=context.physical_id,
            properties=dict(context.properties),
            data=dict(context.data),
            action=action,
            status=status,
        )
        self.views[name] = view
        return view

    async def create(
        self, name: str, type_name: str, properties: dict[str, Any] | None = None
    ) -> ResourceView:
        """Create a resource; on failure it is recorded CREATE_FAILED and the error raised."""
        context = self.context(name, type_name, properties or {})
        try:
            await self.plugin(type_name).create(context)
        except Exception:
            self.record(name, type_name, "CREATE", "FAILED")
            raise
        return self.record(name, type_name, "CREATE", "COMPLETE")

    async def signal(self, name: str, details: Any) -> ResourceView:
        view = self.views[name]
        context = self.contexts[name]
        await self.plugin(view.type).signal(context, details)
        return self.record(name, view.type, "SIGNAL", "COMPLETE")

    async def delete(self, name: str) -> None:
        view = self.views[name]
        await self.plugin(view.type).delete(self.contexts[name])
        del self.views[name]

    def attribute(self, name: str, attribute: str) -> Any:
        view = self.views[name]
        return self.plugin(view.type).attribute(view, attribute)

    def reference(self, name: str) -> str | None:
        view = self.views[name]
        return self.plugin(view.type).reference_id(view)


@pytest.fixture
def stack() -> Stack:
    return Stack()


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)
