"""Files stoker makes that hold state: private to the user from the first byte.

A SQLite database holds stacks (hidden values sealed, but names, outputs, events in
clear) or, for `stoker sandbox`, the sandbox's cloud; SQLite creates a missing file with
the process's umask, usually world-readable. Both stores create theirs here first.
"""

from __future__ import annotations

import contextlib
import os

from stoker.errors import DatabaseError


def prepare_sqlite_file(path: str) -> None:
    """Create a new SQLite database file as 0600 in a directory made 0700, before SQLite
    creates it with the process's umask (usually world-readable). An existing file or
    directory is left as the user set it up; a missing directory is not made (like
    sqlite3, the open then fails with one line saying so), except the default data
    directory, which `stoker.store.urls` makes 0700."""
    if path in ("", ":memory:") or os.path.exists(path):
        return
    if not os.path.isdir(os.path.dirname(os.path.abspath(path))):
        return
    try:
        with contextlib.suppress(FileExistsError):
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError as error:
        raise DatabaseError(
            f"cannot create the database file {path}: {error.strerror or error}"
        ) from None
