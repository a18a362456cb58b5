"""Shared documents (`stoker.store.documents`): each distinct template, set of files and
shared environment stored once, read back exactly, gone with its last user, keyed by a
digest that needs the store's key, and carried through a rotation and the migration."""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import create_engine, func, select

from stoker.engine.state import DefinitionChange, StoredDefinition, WriteBatch
from stoker.store import SqlStore, open_store
from stoker.store.migrate import alembic_config
from stoker.store.models import Document, RawTemplate
from stoker.store.secrets import TEXT_PREFIX, Sealer, new_key

from . import factories as f
from .test_secrets import SECRET, create_hidden_stack, raw_text

pytestmark = pytest.mark.heavy

SHARED_DEFAULTS = {"NtpServer": ["pool.ntp.org"], "Debug": True}
REGISTRY = {"OS::TripleO::Thing": "/t/thing.yaml"}


def _template(name: str) -> dict[str, object]:
    return {"heat_template_version": "2021-04-16", "description": name, "resources": {}}


def _environment(parameters: dict[str, object]) -> dict[str, object]:
    return {
        "parameters": parameters,
        "parameter_defaults": SHARED_DEFAULTS,
        "resource_registry": REGISTRY,
        "event_sinks": [],
        "encrypted_param_names": [],
    }


def _documents(store: SqlStore) -> list[tuple[int, str | None, str]]:
    with store.engine.connect() as connection:
        rows = connection.execute(select(Document.id, Document.digest, Document.body))
        return [tuple(row) for row in rows]  # type: ignore[misc]


def _count(store: SqlStore, table: type) -> int:
    with store.engine.connect() as connection:
        return int(connection.execute(select(func.count()).select_from(table)).scalar_one())


def test_equal_documents_are_stored_once_and_read_back_exactly(store: SqlStore) -> None:
    first = f.stack(
        "one", template=_template("a"), environment=_environment({"x": 1}), files={"f": "F"}
    )
    second = f.stack(
        "two", template=_template("a"), environment=_environment({"x": 2}), files={"f": "F"}
    )
    third = f.stack(
        "three", template=_template("b"), environment={"parameters": {}}, files={"f": "F"}
    )
    for stack in (first, second, third):
        store.create_stack(stack, [], [])
    # templates a and b, the files, the two shared parts of the environments alike, and
    # third's two, both {} (an environment of parameters only): one document
    assert len(_documents(store)) == 2 + 1 + 2 + 1
    for stack in (first, second, third):
        read = store.get_stack(stack.id, stack.project)
        assert (read.template, read.environment, read.files) == (
            stack.template,
            stack.environment,
            stack.files,
        )
        # the sections in their order
        assert list(read.environment) == list(stack.environment)


def test_a_document_goes_with_its_last_user_and_stays_while_another_uses_it(
    store: SqlStore,
) -> None:
    kept = f.stack("kept", template=_template("shared"), environment=_environment({}))
    changed = f.stack("changed", template=_template("shared"), environment=_environment({}))
    store.create_stack(kept, [], [])
    store.create_stack(changed, [], [])
    before = _documents(store)
    new = StoredDefinition(_template("own"), {"parameters": {}}, {"own": "x"}, {}, None)
    # an update keeps the previous definition (nothing dropped yet); the next one drops it
    store.change_definition(DefinitionChange(changed.id, new), WriteBatch())
    store.change_definition(DefinitionChange(changed.id, new), WriteBatch())
    assert _count(store, RawTemplate) == 3
    assert {d[0] for d in before} <= {d[0] for d in _documents(store)}  # kept still uses them
    read = store.get_stack(kept.id, kept.project)
    assert (read.template, read.environment) == (kept.template, kept.environment)
    # a rollback drops the update's raw template: its own documents go with it
    store.change_definition(DefinitionChange(changed.id, new, keep_previous=False), WriteBatch())
    store.change_definition(
        DefinitionChange(changed.id, StoredDefinition.of(kept), keep_previous=False),
        WriteBatch(),
    )
    assert _count(store, RawTemplate) == 2
    assert sorted(_documents(store)) == sorted(before)


def test_the_last_users_documents_all_go(store: SqlStore) -> None:
    stack = f.stack(template=_template("only"), environment=_environment({"p": 1}))
    store.create_stack(stack, [], [])
    other = StoredDefinition(_template("other"), {"parameters": {}}, {}, {}, None)
    store.change_definition(DefinitionChange(stack.id, other), WriteBatch())
    store.change_definition(DefinitionChange(stack.id, other, keep_previous=False), WriteBatch())
    bodies = [body for _, _, body in _documents(store)]
    assert not any('"only"' in body or "NtpServer" in body for body in bodies)
    assert len(bodies) == 2  # other's template; its files and shared environment: {}


def test_a_sealed_documents_digest_needs_the_key(store: SqlStore, tmp_path: Path) -> None:
    """A sealed document's digest is keyed: hashing a guessed document does not find it,
    and the same document under another key has another digest."""
    stack_id = create_hidden_stack(store, tmp_path)
    stack = store.get_stack(stack_id, "default")
    text = raw_text(store)
    assert SECRET not in text
    sealed = [
        (digest, body) for _, digest, body in _documents(store) if body.startswith(TEXT_PREFIX)
    ]
    assert sealed and all(digest for digest, _ in sealed)
    from stoker.store.jsontext import dumps

    plain = dumps(stack.template)
    digests = {digest for digest, _ in sealed}
    for guess in (b"s" + plain.encode(), plain.encode()):
        assert hashlib.sha256(guess).hexdigest() not in digests
        assert hashlib.blake2b(guess, digest_size=32).hexdigest() not in digests
    other = Sealer(new_key())
    assert other.digest(plain, sealed=True) not in digests


def test_rotation_reseals_documents_and_keeps_them_shared(store: SqlStore, tmp_path: Path) -> None:
    stack_id = create_hidden_stack(store, tmp_path)
    before = _documents(store)
    store.rotate_key()
    after = _documents(store)
    assert [d[0] for d in sorted(after)] == [d[0] for d in sorted(before)]
    changed = dict((i, (d, b)) for i, d, b in before)
    for id_, digest, body in after:
        old_digest, old_body = changed[id_]
        assert digest != old_digest
        if old_body.startswith(TEXT_PREFIX):
            assert body != old_body
    stack = store.get_stack(stack_id, "default")
    assert stack.parameters == {"pw": SECRET}
    # a nested stack with the same definition finds the documents by their new digests
    child = f.stack(
        "child",
        project="default",
        parent_id=stack_id,
        template=stack.template,
        environment=stack.environment,
        files=stack.files,
    )
    store.create_stack(child, [], [])
    assert len(_documents(store)) == len(after)
    read = store.get_stack(child.id, "default")
    assert (read.template, read.environment, read.files) == (
        stack.template,
        stack.environment,
        stack.files,
    )


def test_rows_of_an_older_schema_migrate_and_read_the_same(tmp_path: Path) -> None:
    """A database at 0009 (raw templates whole in their rows, sealed or not) upgrades:
    every stack reads back as before, and new stacks share documents as usual."""
    url = f"sqlite:///{tmp_path / 'stoker.db'}"
    plain = f.stack("plain", template=_template("p"), environment=_environment({"a": 1}))
    with open_store(url) as store:
        hidden_id = create_hidden_stack(store, tmp_path)
        store.create_stack(plain, [], [])
        child = f.stack(
            "child",
            project="default",
            parent_id=hidden_id,
            template=_template("c"),
            environment=_environment({"b": 2}),
            files={"x": "y"},
        )
        store.create_stack(child, [], [])
        expected = {
            s.id: (s.template, s.environment, s.files, s.parameters)
            for project in ("default", plain.project)
            for s in store.list_stacks(project, include_nested=True)
        }
    config = alembic_config()
    engine = create_engine(url)
    with engine.begin() as config.attributes["connection"]:
        command.downgrade(config, "0009")
    with engine.connect() as connection:  # the old form: values in the row
        rows = connection.exec_driver_sql("SELECT template, files FROM raw_templates")
        raw_templates = len(rows.all())
    engine.dispose()
    with open_store(url) as store:  # upgrades to head
        migrated = _documents(store)
        # a template and files each (the environments stay whole in their rows)
        assert len(migrated) == 2 * raw_templates
        assert all(digest is None for _, digest, _ in migrated)
        assert SECRET not in raw_text(store)
        got = {
            s.id: (s.template, s.environment, s.files, s.parameters)
            for project in ("default", plain.project)
            for s in store.list_stacks(project, include_nested=True)
        }
        assert got == expected
        again = f.stack("again", template=_template("p"), environment=_environment({"a": 1}))
        store.create_stack(again, [], [])
        store.create_stack(f.stack("more", template=_template("p")), [], [])
        # template p, {}, and the two shared parts
        assert len(_documents(store)) == len(migrated) + 4


def test_concurrent_definition_changes_sharing_documents(open_stores) -> None:
    """Stacks whose definitions swap between the same two documents, changed at once by
    separate stores (as by separate processes): none fails (PostgreSQL: no deadlock, no
    document deleted under a transaction that has just started to use it), and every
    document left is in use."""
    stores = [open_stores() for _ in range(3)]
    definitions = [
        StoredDefinition(_template(name), _environment({}), {}, {}, None) for name in "ab"
    ]
    stacks = [
        f.stack(f"s{i}", template=_template("a"), environment=_environment({})) for i in range(3)
    ]
    for stack in stacks:
        stores[0].create_stack(stack, [], [])
    failures: list[BaseException] = []

    def swap(store: SqlStore, stack_id: str, first: int) -> None:
        try:
            for turn in range(12):
                definition = definitions[(first + turn) % 2]
                store.change_definition(
                    DefinitionChange(stack_id, definition, keep_previous=turn % 3 != 0),
                    WriteBatch(),
                )
        except BaseException as error:  # noqa: BLE001 - reported by the test below
            failures.append(error)

    threads = [
        threading.Thread(target=swap, args=(store, stack.id, index))
        for index, (store, stack) in enumerate(zip(stores, stacks, strict=True))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert failures == []
    store = stores[0]
    with store.engine.connect() as connection:
        used = {
            id_
            for row in connection.execute(
                select(
                    RawTemplate.template_id,
                    RawTemplate.environment_id,
                    RawTemplate.files_id,
                    RawTemplate.parameter_defaults_id,
                )
            )
            for id_ in row
        }
    assert {id_ for id_, _, _ in _documents(store)} == used
    for stack in stacks:
        read = store.get_stack(stack.id, stack.project)
        assert read.template in (_template("a"), _template("b"))
        assert read.environment == _environment({})
