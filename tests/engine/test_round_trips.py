"""What a nested stack's create costs the store, in transactions, and the reads the engine
no longer makes because it wrote what they would read: the claim released with the
stack's final state, progress told of each stack it writes, a child's view made from its
create. Counted on SQLite, whose driver reports every statement it runs
(``sqlite3.Connection.set_trace_callback``), set on each connection the pool hands out
(SQLAlchemy's ``checkout`` event)."""

from __future__ import annotations

import asyncio
import os
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from stoker.cli.progress import Progress
from stoker.definition.loading import LoadOptions, load_definition
from stoker.engine.settings import EngineSettings
from stoker.engine.stacks import CreateRequest, StackEngine
from stoker.engine.state import EventRecord, StackRecord, Status
from stoker.resources.registry import default_registry
from stoker.store import SqlStore, open_store
from stoker.template.nodes import plain

MEMBER = """heat_template_version: 2018-08-31
parameters:
  index: {type: string}
resources:
  a: {type: OS::Heat::None}
  b:
    type: OS::Heat::Value
    properties: {value: {get_param: index}}
outputs:
  value: {value: {get_attr: [b, value]}}
"""


def _parent(children: int) -> str:
    body = {
        f"c{n}": f"{{type: member.yaml, properties: {{index: '{n}'}}}}" for n in range(children)
    }
    lines = "\n".join(f"  {name}: {value}" for name, value in body.items())
    outputs = ", ".join(f"{{get_attr: [c{n}, value]}}" for n in range(children))
    return textwrap.dedent(
        """\
        heat_template_version: 2018-08-31
        resources:
        {lines}
        outputs:
          values: {{value: [{outputs}]}}
        """
    ).format(lines=textwrap.indent(lines, "").replace("\n", "\n"), outputs=outputs)


class Statements:
    """Every statement the store's SQLite connections run, by connection (the store's
    threads interleave theirs), and their transactions."""

    def __init__(self, store: SqlStore) -> None:
        self.seen: list[tuple[int, str]] = []
        event.listen(store.engine, "checkout", self._checkout)

    def _checkout(self, connection: Any, _record: Any, _proxy: Any) -> None:
        key = id(connection)
        connection.set_trace_callback(lambda statement: self.seen.append((key, statement)))

    def transactions(self) -> list[list[str]]:
        """The statements of each committed transaction, in the order of their commits."""
        found: list[list[str]] = []
        open_: dict[int, list[str]] = {}
        for key, statement in self.seen:
            text = " ".join(statement.split())
            if text.startswith("BEGIN"):
                open_[key] = []
            elif text == "COMMIT" and key in open_:
                found.append(open_.pop(key))
            elif key in open_:
                open_[key].append(text)
        return found


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[SqlStore]:
    with open_store(f"sqlite:///{tmp_path / 'store.db'}") as store:
        yield store


def _request(engine: StackEngine, directory: Path, children: int) -> CreateRequest:
    (directory / "member.yaml").write_text(MEMBER)
    template = directory / f"parent{children}.yaml"
    template.write_text(_parent(children))
    options = LoadOptions(require_all_parameters=True, stack_name=f"p{children}")
    loaded = load_definition(str(template), [], {}, options)
    assert loaded.definition is not None
    assert not [d for d in engine.check(loaded.definition, str(directory)) if d.is_error]
    return CreateRequest(
        name=f"p{children}",
        definition=loaded.definition,
        template=plain(loaded.definition.template.document.data),
        environment=loaded.definition.environment.to_data(absolute_paths=True),
        template_file=os.path.abspath(template),
    )


def _create(store: SqlStore, directory: Path, children: int, **engine: Any) -> StackRecord:
    stacks = StackEngine(store, default_registry(), EngineSettings(), **engine)
    record = asyncio.run(stacks.create(_request(stacks, directory, children)))
    assert record.status is Status.COMPLETE, record.status_reason
    return record


def _transactions(store: SqlStore, directory: Path, children: int) -> list[list[str]]:
    """The transactions of the create (its outputs read after them, as they should be)."""
    counted = Statements(store)
    record = _create(store, directory, children)
    found = counted.transactions()
    outputs = StackEngine(store, default_registry(), EngineSettings()).outputs(record)
    assert outputs[0]["output_value"] == [str(n) for n in range(children)]
    return found


def test_a_nested_stack_costs_at_most_five_transactions(
    sqlite_store: SqlStore, tmp_path: Path
) -> None:
    """Per nested stack, at most (group commit shares the parent's writes among its
    children): its facade's IN_PROGRESS and its child's id (the parent's writes), the
    child's row with its resources, the child's final state with its resources' records
    and the claim's release, and its facade's COMPLETE. Nothing is read: not the child's
    summary nor its resources for its facade's outputs; and no claim is released in a
    transaction of its own."""
    one = _transactions(sqlite_store, tmp_path, 1)
    five = _transactions(sqlite_store, tmp_path, 5)
    assert (len(five) - len(one)) / 4 <= 5, five
    finals = [t for t in five if any(s.startswith("UPDATE stacks SET action") for s in t)]
    assert len(finals) == 6  # each stack's final state ...
    for transaction in finals:  # ... with its claim's release, after the rest
        assert transaction[-1].startswith("UPDATE stacks SET lease_engine_id=NULL")
    releases = [
        t for t in five if any(s.startswith("UPDATE stacks SET lease_engine_id") for s in t)
    ]
    assert releases == finals
    reads = [t for t in five if all(s.startswith("SELECT") for s in t)]
    assert [r for r in reads if "FROM stacks WHERE stacks.project" not in r[0]] == []


def test_the_engine_tells_of_each_stack_it_writes_before_its_first_event(
    sqlite_store: SqlStore, tmp_path: Path
) -> None:
    heard: list[tuple[str, str, int | str]] = []

    def written(stack: StackRecord, resources: int) -> None:
        heard.append(("stack", stack.parent_resource or "", resources))

    def listener(record: EventRecord) -> None:
        if record.resource_type == "OS::Heat::Stack" and record.status is Status.IN_PROGRESS:
            heard.append(("event", record.resource_name, ""))

    top = _create(sqlite_store, tmp_path, 2, listener=listener, stack_listener=written)
    stacks = [entry for entry in heard if entry[0] == "stack"]
    assert sorted(stacks) == [("stack", "", 2), ("stack", "c0", 2), ("stack", "c1", 2)]
    for index, entry in enumerate(heard):
        if entry[0] == "event":  # the stack's first event: told of it just before
            assert heard[index - 1][0] == "stack"
    assert top.parent_id is None


def test_progress_places_the_stacks_it_is_told_of_without_reading_them(
    sqlite_store: SqlStore, tmp_path: Path
) -> None:
    asked: list[str] = []

    def lookup(stack_id: str) -> None:
        asked.append(stack_id)

    progress = Progress(2, live=False, lookup=lookup)
    stacks = StackEngine(sqlite_store, default_registry(), EngineSettings())
    progress.follow(stacks)
    with progress:
        record = asyncio.run(stacks.create(_request(stacks, tmp_path, 2)))
    assert record.status is Status.COMPLETE
    assert asked == []
    assert progress.denominator() == 2 + 2 * 2
    assert sorted(progress.paths.values()) == ["", "c0", "c1"]
