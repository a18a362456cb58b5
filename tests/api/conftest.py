"""One in-process API per test module (Starlette's TestClient runs the real application
and its background operations in a real event loop), over a real SQLite store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from .helpers import make_client


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    path: Path = tmp_path_factory.mktemp("api") / "api.db"
    with make_client(f"sqlite:///{path}", max_json_body_size=2_000_000) as test_client:
        yield test_client
