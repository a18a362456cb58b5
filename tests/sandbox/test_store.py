"""The sandbox's state is its database: a restarted sandbox carries on, seeded once."""

from __future__ import annotations

from pathlib import Path

import pytest

from stoker.errors import DatabaseError
from stoker.sandbox.store import SandboxStore

from .server import RunningSandbox

pytestmark = pytest.mark.heavy


def test_a_restarted_sandbox_keeps_its_servers_and_seeds_once(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'sandbox.db'}"
    first = RunningSandbox(url).start()
    try:
        cloud = first.connect()
        image = cloud.image.find_image("cirros-0.6.2-x86_64-disk")
        server = cloud.compute.create_server(
            name="survivor", flavor_id="1", image_id=image.id, networks="none"
        )
        counts = (len(list(cloud.compute.flavors())), len(list(cloud.image.images())))
    finally:
        first.stop()
    second = RunningSandbox(url).start()
    try:
        cloud = second.connect()  # the seeded admin's password still works
        assert cloud.compute.get_server(server.id).name == "survivor"
        assert (len(list(cloud.compute.flavors())), len(list(cloud.image.images()))) == counts
        assert [u.name for u in cloud.identity.users()] == ["admin", "demo"]
    finally:
        second.stop()


def test_an_unusable_database_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DatabaseError, match="cannot open the sandbox database"):
        SandboxStore(f"sqlite:///{tmp_path / 'missing-dir' / 'x.db'}")


def test_each_backend_holds_a_sandbox(fresh_database_url: str) -> None:
    """SQLite by default; PostgreSQL too (``--db postgresql://...``: psycopg 3)."""
    with RunningSandbox(fresh_database_url) as sandbox:
        cloud = sandbox.connect()
        image = cloud.image.find_image("cirros-0.6.2-x86_64-disk")
        created = cloud.compute.create_server(
            name="stored", flavor_id="1", image_id=image.id, networks="none"
        )
        assert cloud.compute.get_server(created.id).status == "ACTIVE"
        cloud.compute.delete_server(created)


def test_reads_are_copies_of_what_was_written() -> None:
    """The store keeps its documents decoded; a reader changing what it got (a nested
    list too) leaves the store as it was, and what comes back is JSON's form of what was
    written (a tuple reads back as a list), as from the database itself."""
    store = SandboxStore("sqlite://")
    store.insert("t.doc", "a", {"tags": ("x",), "inner": {"n": [1]}}, "p1")
    got = store.get("t.doc", "a")
    assert got == {"tags": ["x"], "inner": {"n": [1]}}
    got["inner"]["n"].append(2)
    got["tags"].append("y")
    (listed,) = store.list("t.doc", project_id="p1")
    listed["inner"]["n"].clear()
    assert store.get("t.doc", "a") == {"tags": ["x"], "inner": {"n": [1]}}
    assert store.scan("t.doc", project_id="p1") == [{"tags": ["x"], "inner": {"n": [1]}}]
    assert store.scan("t.doc", project_id="p2") == []
    assert len(store.list("t.doc", where=lambda d: d["tags"] == ["x"])) == 1
    assert store.list("t.doc", where=lambda d: d["tags"] == ["y"]) == []


def test_writes_are_durable_and_a_failed_transaction_leaves_none(
    fresh_database_url: str,
) -> None:
    """What the store acknowledged is in the database (a store opened anew reads it), and
    a transaction that fails half way leaves none of its writes, on each backend."""
    first = SandboxStore(fresh_database_url)
    try:
        first.insert("t.doc", "a", {"n": 1}, "p1")
        first.insert("t.doc", "b", {"n": 2}, None)
        first.put("t.doc", "a", {"n": 3})
        assert first.delete("t.doc", "b")
        assert not first.delete("t.doc", "b")
        with pytest.raises(RuntimeError), first.transaction():
            first.insert("t.doc", "c", {"n": 4}, "p1")
            first.put("t.doc", "a", {"n": 5})
            raise RuntimeError("half way")
        assert first.list("t.doc") == [{"n": 3}]
    finally:
        first.close()
    second = SandboxStore(fresh_database_url)
    try:
        assert second.list("t.doc") == [{"n": 3}]
        assert second.project_of("t.doc", "a") == "p1"
    finally:
        second.close()
