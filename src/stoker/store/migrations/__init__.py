"""Alembic migrations of the store, shipped with the package and run by `open_store`.

New revisions go in ``versions/``, written by hand to match `stoker.store.models`
(``tests/store`` checks that a migrated database and the models agree). To start one from
the models' differences, point ``alembic`` at this folder: ``script_location`` is this
directory and ``sqlalchemy.url`` the database (``-x url=...`` or ``$STOKER_DB_URL``).
"""
