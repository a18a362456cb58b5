"""The store's tests run on three backends: SQLite through the stdlib executor (the one an
up-to-date file gets), SQLite through SQLAlchemy's (a new or older file, an in-memory
database), and PostgreSQL (see `stoker.store.executor`)."""

from __future__ import annotations

import pytest


# tests/conftest.py's BACKENDS, and its SQLITE_SQLALCHEMY
@pytest.fixture(params=("sqlite", "postgresql", "sqlite-sqlalchemy"))
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)
