"""``stoker db ...``: looking after the database itself (the key of its hidden values)."""

from __future__ import annotations

import click

from stoker.store import KEY_ENV, database_url, open_store


@click.group()
def db() -> None:
    """Look after the database (the key that encrypts hidden values at rest)."""


@db.command("rotate-key")
@click.pass_context
def rotate_key(ctx: click.Context) -> None:
    """Encrypt the hidden values again with a new key, and retire the old key.

    The new key replaces the key file; if the key came from $STOKER_SECRET_KEY, the new
    one is printed on stdout and must replace it there.
    """
    url = database_url(ctx.obj.get("db") if isinstance(ctx.obj, dict) else None)
    with open_store(url) as store:
        count, key = store.rotate_key()
        source = store.key_source
    if key is None:
        where = source.description if source is not None else "the key file"
        click.echo(f"re-encrypted {count} hidden values; the new key is in {where}", err=True)
        return
    click.echo(
        f"re-encrypted {count} hidden values; set ${KEY_ENV} to this new key (the old "
        "one no longer opens the database):",
        err=True,
    )
    click.echo(key.decode("ascii"))
