"""The ids a process has seen the cloud answer for (made, looked up, listed): a constraint
check accepts them without listing again, and a delete forgets them."""

from __future__ import annotations

from stoker.cloud.rest import forget, remember, seen


class Connection:
    """Stands for an openstacksdk connection (the notes are kept per connection)."""


def test_a_made_id_is_seen_until_it_is_deleted() -> None:
    connection, other = Connection(), Connection()
    remember(connection, "port", "p-1", "p-1")
    remember(connection, "port", "web", "p-1")  # a name only that port has
    remember(connection, "network", "p-1", "p-1")  # another kind: its own note
    assert seen(connection, "port", "p-1") and seen(connection, "port", "web")
    assert not seen(connection, "subnet", "p-1")
    assert not seen(other, "port", "p-1")
    forget(connection, "port", "p-1")
    assert not seen(connection, "port", "p-1") and not seen(connection, "port", "web")
    assert seen(connection, "network", "p-1")
