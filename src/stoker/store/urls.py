"""Which database the store uses, and how a URL names its driver.

Order of choice: an explicit URL (a command-line flag), else ``$STOKER_DB_URL``, else a
SQLite file in the user's data directory (XDG: ``$XDG_DATA_HOME`` or ``~/.local/share``,
then ``stoker/stoker.db``), so that the embedded mode works with no configuration.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # SQLAlchemy is imported when a URL is parsed, not to choose one
    from sqlalchemy.engine import URL

ENV_VAR = "STOKER_DB_URL"
APP_NAME = "stoker"
DB_FILE = "stoker.db"

# A bare PostgreSQL URL means psycopg 3, the driver stoker depends on (SQLAlchemy's own
# default for ``postgresql://`` is psycopg2, which is not installed).
_POSTGRES_NAMES = frozenset({"postgresql", "postgres"})


def default_database_url() -> str:
    """The SQLite file in the user's data directory; the directory is created (0700)."""
    import platformdirs  # only here: a command given a URL never needs it

    directory = platformdirs.user_data_path(APP_NAME, appauthor=False)
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)  # private: it holds state
    return f"sqlite:///{(directory / DB_FILE).resolve()}"


def database_url(explicit: str | None = None) -> str:
    """The URL to use: ``explicit``, else ``$STOKER_DB_URL``, else the default.

    A value without ``://`` is a file path and means SQLite (``state/y.db`` is
    ``sqlite:///state/y.db``, relative to the working directory as the user meant it).
    """
    chosen = explicit or os.environ.get(ENV_VAR, "").strip()
    if not chosen:
        return default_database_url()
    if "://" not in chosen:
        return f"sqlite:///{chosen}"
    return chosen


def sqlalchemy_url(url: str | URL) -> URL:
    """Parse ``url``, mapping ``postgresql://`` (and ``postgres://``) to psycopg 3."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if parsed.drivername in _POSTGRES_NAMES:
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def redacted(url: str | URL) -> str:
    """The URL with any password hidden, for messages."""
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)
