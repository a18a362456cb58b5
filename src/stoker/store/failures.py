"""A database that cannot be opened, said in one line: which URL, what went wrong, what to do.

Drivers answer with several lines (and SQLAlchemy adds the statement and a link); a user
needs the URL they gave (password masked), the driver's reason, and the next step. Only
the driver's own message is used, never the SQL or its parameters.
"""

from __future__ import annotations

from stoker.errors import DatabaseError

#: (words in the driver's message, what to do about it)
_HINTS = (
    ("does not exist", "create it (e.g. createdb NAME) or fix --db / $STOKER_DB_URL"),
    ("connection refused", "is the server running and listening there?"),
    ("could not translate host name", "check the host name in --db / $STOKER_DB_URL"),
    ("name or service not known", "check the host name in --db / $STOKER_DB_URL"),
    ("password authentication failed", "check the user name and password"),
    ("no password supplied", "give the password in the URL or in ~/.pgpass"),
    ("timeout expired", "is the server reachable from here?"),
    ("unable to open database file", "does the directory exist, and may you write to it?"),
    ("file is not a database", "this file is not a SQLite database; choose another path"),
    ("readonly database", "the file or its directory is read-only"),
)

_GENERIC = "check --db / $STOKER_DB_URL"

INSTALL_POSTGRESQL = (
    "PostgreSQL support is not installed: pip install 'stoker[postgresql]' (psycopg 3)"
)


def unsupported(shown: str) -> DatabaseError:
    return DatabaseError(
        f"cannot use database {shown}: stoker stores state in SQLite or PostgreSQL; "
        "give a sqlite:///FILE or postgresql://USER@HOST/DB URL, or a file path"
    )


def missing_driver(shown: str) -> DatabaseError:
    return DatabaseError(f"cannot use database {shown}: {INSTALL_POSTGRESQL}")


def cannot_open(shown: str, error: BaseException) -> DatabaseError:
    """``error`` (a DBAPI error, usually wrapped by SQLAlchemy) as one actionable line."""
    reason = driver_reason(error)
    lowered = reason.lower()
    hint = next((hint for words, hint in _HINTS if words in lowered), _GENERIC)
    return DatabaseError(f"cannot open database {shown}: {reason}; {hint}")


#: (words in the driver's message, what to do) for a database that fails while in use
_RESUME = "`stoker stack recover` continues an interrupted operation once it is back"
_USE_HINTS = (
    ("readonly database", "the file or its directory is read-only; nothing was written"),
    ("disk image is malformed", "the file is damaged; restore it from a backup"),
    ("file is not a database", "the file is damaged; restore it from a backup"),
    ("terminating connection", f"the server ended the connection; {_RESUME}"),
    ("server closed the connection", f"the server went away; {_RESUME}"),
    ("consuming input failed", f"the server went away; {_RESUME}"),
    ("connection refused", f"is the server running? {_RESUME}"),
    ("not currently accepting connections", f"the database is closed to connections; {_RESUME}"),
)


def during_use(shown: str, kind: str, reason: str) -> DatabaseError:
    """A database that failed while in use (it opened): which one, the driver's reason
    (its first line only: never a statement or its values), and what to do when known."""
    lowered = reason.lower()
    hint = next((hint for words, hint in _USE_HINTS if words in lowered), None)
    suffix = f"; {hint}" if hint else ""
    return DatabaseError(f"database error ({kind}) on {shown}: {reason}{suffix}")


def driver_reason(error: BaseException) -> str:
    """The cause from the driver's message: its first line, after libpq's 'connection to
    server at ... failed:' and a FATAL/ERROR prefix (later lines are libpq's guesses)."""
    original = getattr(error, "orig", None) or error
    lines = [line.strip() for line in str(original).splitlines() if line.strip()]
    if not lines:
        return type(original).__name__
    line = lines[0]
    # "connection failed: connection to server at "h" (1.2.3.4), port 5432 failed: FATAL: x"
    line = line.rsplit(" failed: ", 1)[-1]
    for prefix in ("FATAL:", "ERROR:"):
        if line.startswith(prefix):
            line = line[len(prefix) :].strip()
    return line
