"""One sandbox per test session (per xdist worker), served for real on an ephemeral port."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from .server import RunningSandbox


@pytest.fixture(scope="session")
def sandbox() -> Iterator[RunningSandbox]:
    running = RunningSandbox(build_delay=0.0).start()
    yield running
    running.stop()


@pytest.fixture(scope="session")
def cloud(sandbox: RunningSandbox) -> Any:
    """An openstacksdk connection as ``admin``."""
    return sandbox.connect()


@pytest.fixture(scope="session")
def demo(sandbox: RunningSandbox) -> Any:
    """An openstacksdk connection as ``demo`` (a member of project ``demo``)."""
    return sandbox.connect("demo")


class Clock:
    """The sandbox's clock, moved by the test: transitions happen when it says."""

    def __init__(self) -> None:
        self.now = time.time()  # from now: tokens issued before stay valid

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock(sandbox: RunningSandbox) -> Iterator[Clock]:
    """A test clock and a 10 s build delay for the duration of one test."""
    saved = sandbox.hub.clock, sandbox.config.build_delay
    fake = Clock()
    sandbox.hub.clock = fake
    sandbox.config.build_delay = 10.0
    yield fake
    sandbox.hub.clock, sandbox.config.build_delay = saved


@pytest.fixture
def faults(sandbox: RunningSandbox) -> Iterator[None]:
    """Faults a test sets through the control API are cleared after it."""
    yield
    sandbox.config.faults = None
