"""Secrets at rest: file modes, hidden values encrypted, the key checked, rotated, and
database errors that never echo a statement's values."""

from __future__ import annotations

import asyncio
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner
from cryptography.fernet import Fernet, InvalidToken
from sqlalchemy import MetaData, select, update

from stoker.cli.main import cli
from stoker.definition.loading import LoadOptions, load_definition
from stoker.engine.settings import EngineSettings
from stoker.engine.stacks import CreateRequest, StackEngine
from stoker.engine.state import Status, WriteBatch
from stoker.errors import DatabaseError, SecretKeyError
from stoker.resources.registry import default_registry
from stoker.store import ConfigRecord, DeploymentRecord, SoftwareStore, SqlStore, open_store
from stoker.store.models import Resource, SoftwareConfig, Stack
from stoker.store.secrets import KEY_ENV, KEY_FILE_ENV, SEALED, is_sealed
from stoker.template.nodes import plain

from . import factories as f

SECRET = "correct-horse-battery"
TEMPLATE = """heat_template_version: 2021-04-16
parameters:
  pw: {type: string, hidden: true}
resources:
  v: {type: OS::Heat::Value, properties: {value: {get_param: pw}}}
  inner:
    type: OS::Heat::Stack
    properties:
      parameters: {given: {get_attr: [v, value]}}
      template: |
        heat_template_version: 2021-04-16
        parameters:
          given: {type: string}
        resources:
          t: {type: OS::Heat::TestResource, properties: {value: {get_param: given}}}
        outputs:
          back: {value: {get_attr: [t, output]}}
outputs:
  back: {value: {get_attr: [inner, outputs, back]}}
"""


def create_hidden_stack(
    store: SqlStore, tmp_path: Path, name: str = "h", template: str = TEMPLATE
) -> str:
    path = tmp_path / "h.yaml"
    path.write_text(template)
    options = LoadOptions(require_all_parameters=True, stack_name=name)
    result = load_definition(str(path), [], {"pw": SECRET}, options)
    assert result.definition is not None, [d.render() for d in result.diagnostics]
    engine = StackEngine(store, default_registry(), EngineSettings())
    request = CreateRequest(
        name=name,
        definition=result.definition,
        template=plain(result.definition.template.document.data),
        environment=result.definition.environment.to_data(absolute_paths=True),
        parameters={"pw": SECRET},
        template_file=str(path),
    )
    record = asyncio.run(engine.create(request))
    assert record.status is Status.COMPLETE, record.status_reason
    outputs = {o["output_key"]: o.get("output_value") for o in engine.outputs(record)}
    assert outputs == {"back": SECRET}  # readable through the store, nested stack included
    return record.id


def raw_text(store: SqlStore) -> str:
    """Every value of every row of every table, as the database holds it."""
    tables = MetaData()
    tables.reflect(store.engine)
    parts = []
    with store.engine.connect() as connection:
        for table in tables.sorted_tables:
            for row in connection.execute(select(table)):
                parts.append(repr(tuple(row)))
    return "\n".join(parts)


def test_hidden_values_are_encrypted_at_rest(store: SqlStore, tmp_path: Path) -> None:
    stack_id = create_hidden_stack(store, tmp_path)
    text = raw_text(store)
    assert SECRET not in text
    assert SEALED in text
    # Through the store, everything reads back in clear.
    record = store.get_stack(stack_id, "default")
    assert record is not None and record.parameters == {"pw": SECRET}
    values = {r.name: r.properties for r in store.resources(stack_id)}
    assert values["v"]["value"] == SECRET


def test_a_hidden_default_in_the_template_is_encrypted_too(store: SqlStore, tmp_path) -> None:
    # The secret is written in the template itself: the stored template must not show it.
    template = TEMPLATE.replace(
        "pw: {type: string, hidden: true}", f"pw: {{type: string, hidden: true, default: {SECRET}}}"
    )
    stack_id = create_hidden_stack(store, tmp_path, template=template)
    assert SECRET not in raw_text(store)
    record = store.get_stack(stack_id, "default")
    assert record is not None
    assert record.template["parameters"]["pw"]["default"] == SECRET


def test_stacks_without_hidden_parameters_are_stored_as_they_are(store: SqlStore) -> None:
    record = f.stack(parameters={"plain": "visible"})
    store.create_stack(record, [f.resource(record.id, "r", properties={"a": "seen"})], [])
    text = raw_text(store)
    assert "visible" in text and "seen" in text and SEALED not in text


def test_the_group_commit_seals_what_it_writes(store: SqlStore) -> None:
    """`SqlStore.write` (the engine's fast path on the driver's cursor) seals a hidden
    stack's status reason, resources and events in the rows it sends; a plain stack's
    rows in the same batch stay in clear."""
    hidden = f.stack(
        name="hidden",
        template={
            "heat_template_version": "2021-04-16",
            "parameters": {"pw": {"type": "string", "hidden": True}},
        },
        parameters={"pw": SECRET},
    )
    plain_stack = f.stack(name="plain")
    store.create_stack(hidden, [], [])
    store.create_stack(plain_stack, [], [])
    fresh = open_store(store.engine.url.render_as_string(hide_password=False))
    try:  # a store that has not read the stacks yet learns which one is sealed
        batch = WriteBatch(
            stacks=[f.status(hidden.id, Status.FAILED, f"failed: {SECRET}")],
            resources=[
                f.resource(hidden.id, "r", properties={"pw": SECRET}, status_reason=SECRET),
                f.resource(plain_stack.id, "p", properties={"shown": "in clear"}),
            ],
            events=[f.event(hidden.id, "r", reason=SECRET), f.event(plain_stack.id, "p", "seen")],
        )
        fresh.write(batch)
    finally:
        fresh.close()
    text = raw_text(store)
    assert SECRET not in text and "in clear" in text and "seen" in text
    record = store.get_stack(hidden.id, "demo")
    assert record is not None and record.status_reason == f"failed: {SECRET}"
    (resource,) = store.resources(hidden.id)
    assert resource.properties == {"pw": SECRET} and resource.status_reason == SECRET
    assert [e.reason for e in store.events(hidden.id)] == [SECRET]


@pytest.fixture
def default_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No key chosen (neither variable set), the user's data directory in ``tmp_path``:
    the default key file's path, not made yet."""
    monkeypatch.delenv(KEY_FILE_ENV, raising=False)
    monkeypatch.delenv(KEY_ENV, raising=False)
    monkeypatch.delenv("STOKER_DB_URL", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "new" / "deeper"))
    return tmp_path / "new" / "deeper" / "stoker" / "secret.key"


def test_a_new_sqlite_database_and_its_key_are_private(tmp_path, default_key) -> None:
    path = tmp_path / "new" / "deeper" / "stoker" / "stoker.db"
    with open_store() as store:  # the default data directory, made on first use
        store.create_stack(f.stack(), [], [])
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(default_key.stat().st_mode) == 0o600
    assert not Path(f"{path}.key").exists()
    for extra in path.parent.glob("stoker.db-*"):  # WAL and shared memory, if still there
        assert stat.S_IMODE(extra.stat().st_mode) & 0o077 == 0


def test_no_key_file_is_made_beside_a_database_given_by_path(tmp_path, default_key) -> None:
    work = tmp_path / "work"
    work.mkdir()
    url = f"sqlite:///{work / 'stacks.db'}"
    with open_store(url) as store:
        create_hidden_stack(store, tmp_path)
    assert sorted(p.name for p in work.iterdir() if not p.name.startswith("stacks.db-")) == [
        "stacks.db"
    ]
    assert stat.S_IMODE(default_key.stat().st_mode) == 0o600
    assert stat.S_IMODE(default_key.parent.stat().st_mode) == 0o700
    # one key for every database: a second one opens with the same file
    with open_store(f"sqlite:///{work / 'other.db'}") as store:
        create_hidden_stack(store, tmp_path)
    assert sorted(p.name for p in work.iterdir() if p.name.endswith(".key")) == []


def test_key_file_option_and_variable_choose_the_key(tmp_path, default_key, monkeypatch) -> None:
    url = f"sqlite:///{tmp_path / 'stacks.db'}"
    chosen = tmp_path / "keys" / "mine.key"
    result = CliRunner().invoke(cli, ["--db", url, "--key-file", str(chosen), "stack", "list"])
    assert result.exit_code == 0, result.output
    monkeypatch.setenv(KEY_FILE_ENV, str(chosen))  # what --key-file handed on
    assert stat.S_IMODE(chosen.stat().st_mode) == 0o600 and not default_key.exists()
    with open_store(url) as store:
        create_hidden_stack(store, tmp_path)
    monkeypatch.delenv(KEY_FILE_ENV)
    with pytest.raises(SecretKeyError, match=r"does not exist"):
        open_store(url)  # the default key (missing) is not this database's
    monkeypatch.setenv(KEY_FILE_ENV, str(chosen))
    with open_store(url) as store:
        assert store.get_stack("h", "default").parameters == {"pw": SECRET}


def test_cli_key_file_variable_name_is_the_stores() -> None:
    from stoker.cli import group

    assert group.KEY_FILE_ENV == KEY_FILE_ENV


def test_a_key_beside_a_database_from_earlier_versions_is_named(
    tmp_path, default_key, monkeypatch
) -> None:
    """A database keyed by ``<database>.key`` (what earlier versions made) is refused with
    the two ways to go on, each of which then works."""
    url = f"sqlite:///{tmp_path / 'stacks.db'}"
    legacy = tmp_path / "stacks.db.key"
    monkeypatch.setenv(KEY_FILE_ENV, str(legacy))
    with open_store(url) as store:
        create_hidden_stack(store, tmp_path)
    monkeypatch.delenv(KEY_FILE_ENV)
    with pytest.raises(SecretKeyError) as caught:
        open_store(url)
    message = str(caught.value)
    assert f"--key-file {legacy}" in message
    assert f"mv {legacy} {default_key}" in message
    assert not default_key.exists()  # nothing was made while refusing
    result = CliRunner().invoke(cli, ["--db", url, "--key-file", str(legacy), "stack", "list"])
    assert result.exit_code == 0, result.output
    monkeypatch.delenv(KEY_FILE_ENV)  # set by the option above, in this process
    default_key.parent.mkdir(parents=True)
    legacy.rename(default_key)
    with open_store(url) as store:
        assert store.get_stack("h", "default").parameters == {"pw": SECRET}
    # another database's default key exists now: only --key-file is offered
    other = f"sqlite:///{tmp_path / 'other.db'}"
    other_key = tmp_path / "other.db.key"
    monkeypatch.setenv(KEY_FILE_ENV, str(other_key))
    with open_store(other) as store:
        create_hidden_stack(store, tmp_path)
    monkeypatch.delenv(KEY_FILE_ENV)
    with pytest.raises(SecretKeyError, match="--key-file") as caught:
        open_store(other)
    assert "mv " not in str(caught.value)


def test_a_missing_or_wrong_key_is_a_clear_error(tmp_path, default_key, monkeypatch) -> None:
    url = f"sqlite:///{tmp_path / 'stoker.db'}"
    with open_store(url) as store:
        create_hidden_stack(store, tmp_path)
    key = default_key
    saved = key.read_bytes()
    key.unlink()
    with pytest.raises(SecretKeyError, match="secret.key does not exist"):
        open_store(url)
    assert not key.exists()  # no new key was made for a database that has one
    monkeypatch.setenv(KEY_ENV, "not a key")
    with pytest.raises(SecretKeyError, match="malformed"):
        open_store(url)
    monkeypatch.setenv(KEY_ENV, "x" * 43 + "=")
    with pytest.raises(SecretKeyError, match="not the one"):
        open_store(url)
    monkeypatch.setenv(KEY_ENV, saved.decode().strip())
    with open_store(url) as store:
        assert store.get_stack("h", "default").parameters == {"pw": SECRET}


def test_rotate_key_reencrypts_and_retires_the_old_key(tmp_path, default_key, monkeypatch) -> None:
    url = f"sqlite:///{tmp_path / 'stoker.db'}"
    with open_store(url) as store:
        stack_id = create_hidden_stack(store, tmp_path)
        before = raw_text(store)
    key = default_key
    old = key.read_bytes().strip()
    result = CliRunner().invoke(cli, ["--db", url, "db", "rotate-key"])
    assert result.exit_code == 0, result.output
    assert "re-encrypted" in result.output
    new = key.read_bytes().strip()
    assert new != old and stat.S_IMODE(key.stat().st_mode) == 0o600
    assert not Path(f"{key}.new").exists()
    with open_store(url) as store:
        after = raw_text(store)
        assert SECRET not in after and after != before
        assert store.get_stack(stack_id, "default").parameters == {"pw": SECRET}
    monkeypatch.setenv(KEY_ENV, old.decode())
    with pytest.raises(SecretKeyError, match="not the one"):
        open_store(url)
    # From the environment: the new key is printed, to be put there.
    monkeypatch.setenv(KEY_ENV, new.decode())
    result = CliRunner().invoke(cli, ["--db", url, "db", "rotate-key"])
    assert result.exit_code == 0, result.output
    printed = result.stdout.strip().splitlines()[-1]
    monkeypatch.setenv(KEY_ENV, printed)
    with open_store(url) as store:
        assert store.get_stack(stack_id, "default").parameters == {"pw": SECRET}


def test_rotation_reseals_every_sealed_value(tmp_path, default_key) -> None:
    """Software configs and deployments too, and a token of an empty value (as earlier
    versions stored one) becomes the empty value in clear; the stack's parameters stay
    a token, its mark."""
    url = f"sqlite:///{tmp_path / 'stoker.db'}"
    config = ConfigRecord("c1", "default", "c", "script", {"config": SECRET}, f.T0)
    deployment = DeploymentRecord(
        "d1", "default", "c1", "srv", "CREATE", "COMPLETE", "", f.T0, {"in": SECRET}, {}
    )
    with open_store(url) as store:
        stack_id = create_hidden_stack(store, tmp_path)
        software = SoftwareStore(store)
        software.add_config(config)
        software.put_deployment(deployment)
        old = Fernet(default_key.read_bytes().strip())
        table = Resource.__table__
        with store.engine.begin() as connection:
            connection.execute(
                update(table)
                .where(table.c.name == "v")
                .values(data={SEALED: old.encrypt(b"{}").decode("ascii")})
            )
        store.rotate_key()
    with open_store(url) as store:
        with store.engine.connect() as connection:
            stored = connection.execute(select(SoftwareConfig.config)).scalar_one()
        assert is_sealed(stored)
        with pytest.raises(InvalidToken):  # re-sealed with the new key
            old.decrypt(stored[SEALED])
        software = SoftwareStore(store)
        assert software.config("default", "c1") == config
        assert software.deployment("default", "d1") == deployment
        assert store.get_stack(stack_id, "default").parameters == {"pw": SECRET}
        assert {r.name: r.data for r in store.resources(stack_id)}["v"] == {}
        with store.engine.connect() as connection:
            data = connection.execute(select(table.c.data).where(table.c.name == "v"))
            assert data.scalar_one() == {}
            parameters = connection.execute(select(Stack.parameters)).scalars().all()
        assert parameters and all(is_sealed(p) for p in parameters)


def test_database_errors_are_one_line_without_the_values(store: SqlStore) -> None:
    record = f.stack()
    store.create_stack(record, [], [])
    bad = [WriteBatch(resources=[f.resource(record.id, "r", properties={"pw": SECRET}, type=None)])]
    if store.engine.dialect.name == "postgresql":  # text cannot hold NUL there
        bad.append(WriteBatch(events=[f.event(record.id, "r", reason=f"\0{SECRET}")]))
    for batch in bad:
        with pytest.raises(DatabaseError) as caught:
            store.write(batch)
        message = str(caught.value)
        assert message.startswith("database error (")
        assert "\n" not in message and SECRET not in message
        assert "INSERT" not in message and "parameters" not in message.lower()


def test_failure_reasons_never_quote_a_hidden_value(store, tmp_path) -> None:
    path = tmp_path / "f.yaml"
    path.write_text(
        "heat_template_version: 2021-04-16\n"
        "parameters:\n  pw: {type: string, hidden: true}\n"
        "resources:\n  v: {type: OS::Heat::Value, properties: {value: {get_param: pw}}}\n"
        "  t: {type: OS::Heat::TestResource, properties: {fail: {get_attr: [v, value]}}}\n"
    )
    options = LoadOptions(require_all_parameters=True, stack_name="f")
    result = load_definition(str(path), [], {"pw": SECRET}, options)
    engine = StackEngine(store, default_registry(), EngineSettings())
    request = CreateRequest(
        name="f",
        definition=result.definition,
        template=plain(result.definition.template.document.data),
        environment=result.definition.environment.to_data(absolute_paths=True),
        parameters={"pw": SECRET},
        template_file=str(path),
    )
    record = asyncio.run(engine.create(request))
    assert record.status is Status.FAILED
    # the property check would quote the value: it is rebuilt without it (structurally,
    # by the property reading a hidden parameter through v), so no reason holds it
    assert "read from a hidden parameter" in record.status_reason
    assert SECRET not in record.status_reason
    assert SECRET not in raw_text(store)
    assert SECRET not in store.get_stack("f", "default").status_reason
    assert all(SECRET not in e.reason for e in store.events(record.id))
    assert all(SECRET not in (r.status_reason or "") for r in store.resources(record.id))


@pytest.mark.parametrize(
    "url", ["sqlite:////proc/no-such-dir/stoker.db", "postgresql://nobody@127.0.0.1:1/none"]
)
def test_a_database_that_cannot_be_opened_is_one_line(url) -> None:
    with pytest.raises(DatabaseError) as caught:
        open_store(url)
    assert "\n" not in str(caught.value)
