"""Alembic's entry point: runs on the connection `stoker.store.migrate` passes in.

When ``config.attributes["connection"]`` holds a connection (the normal case), the
migrations run inside the transaction its caller began, so a failed upgrade leaves no half
schema and concurrent openers serialise on the caller's lock. Run from the ``alembic``
command instead, the database comes from ``-x url=...``, ``sqlalchemy.url`` or
`stoker.store.urls.database_url`.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

from stoker.store.connection import create_store_engine
from stoker.store.models import ddl_metadata
from stoker.store.urls import database_url


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=ddl_metadata(connection.dialect.name),
        render_as_batch=connection.dialect.name == "sqlite",  # SQLite's ALTER is limited
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def main() -> None:
    given = context.config.attributes.get("connection")
    if given is not None:
        _run(given)
        return
    url = context.get_x_argument(as_dictionary=True).get("url")
    url = url or context.config.get_main_option("sqlalchemy.url") or database_url()
    engine = create_store_engine(url)
    try:
        with engine.connect() as connection:
            _run(connection)
            connection.commit()
    finally:
        engine.dispose()


main()
