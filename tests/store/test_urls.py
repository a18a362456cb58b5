"""Choosing the database URL; no database needed."""

from __future__ import annotations

from pathlib import Path

import pytest

from stoker.store import database_url, default_database_url, sqlalchemy_url


def test_default_is_a_sqlite_file_in_the_xdg_data_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    url = default_database_url()
    assert url == f"sqlite:///{tmp_path / 'data' / 'stoker' / 'stoker.db'}"
    assert (tmp_path / "data" / "stoker").is_dir()  # created, so SQLite can make the file
    assert (tmp_path / "data" / "stoker").stat().st_mode & 0o777 == 0o700  # private


def test_default_without_xdg_is_under_local_share(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_database_url() == f"sqlite:///{tmp_path}/.local/share/stoker/stoker.db"


def test_explicit_url_then_environment_then_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.setenv("STOKER_DB_URL", "postgresql://db.example/stoker")
    assert database_url("sqlite:////srv/x.db") == "sqlite:////srv/x.db"
    assert database_url(None) == "postgresql://db.example/stoker"
    monkeypatch.setenv("STOKER_DB_URL", "  ")
    assert database_url() == f"sqlite:///{tmp_path}/stoker/stoker.db"


@pytest.mark.parametrize(
    ("given", "driver"),
    [
        ("postgresql://u:p@h:5432/d", "postgresql+psycopg"),
        ("postgres://u@h/d", "postgresql+psycopg"),
        ("postgresql+psycopg://u@h/d", "postgresql+psycopg"),
        ("sqlite:////tmp/x.db", "sqlite"),
    ],
)
def test_postgresql_urls_use_psycopg_3(given: str, driver: str) -> None:
    url = sqlalchemy_url(given)
    assert url.drivername == driver
    assert url.database in ("d", "/tmp/x.db")
