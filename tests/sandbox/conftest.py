"""One sandbox per test session (per xdist worker), served for real on an ephemeral port."""

from __future__ import annotations

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
