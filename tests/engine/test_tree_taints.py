"""The taints of a tree of nested stacks (which outputs the table view withholds): a hidden
parameter three stacks down still masks the top stack's output derived from it, on both
backends, whether the engine just created the tree or reads it back; and the walk reads
the stacks below in one statement, not one per stack."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from sqlalchemy import event

from stoker.definition import SENSITIVE
from stoker.definition.loading import LoadOptions, load_definition
from stoker.engine import StackEngine, table_outputs
from stoker.engine.settings import EngineSettings
from stoker.engine.stacks import CreateRequest
from stoker.engine.state import StackRecord, Status
from stoker.resources.registry import default_registry
from stoker.store import SqlStore, open_store
from stoker.template.nodes import plain

LEAF = """heat_template_version: 2018-08-31
parameters:
  deep: {type: string, hidden: true, default: leaf-secret}
resources:
  v: {type: OS::Heat::Value, properties: {value: {list_join: ['-', [x, {get_param: deep}]]}}}
outputs:
  secret: {value: {get_attr: [v, value]}}
  open: {value: shown}
"""

# a stack of two children, the first of the next level down, the second a plain leaf
LEVEL = """heat_template_version: 2018-08-31
resources:
  down: {type: %s}
  side: {type: OS::Heat::Value, properties: {value: side}}
outputs:
  secret: {value: {get_attr: [down, secret]}}
  open: {value: {get_attr: [down, open]}}
  side: {value: {get_attr: [side, value]}}
"""


def _request(engine: StackEngine, directory: Path) -> CreateRequest:
    (directory / "leaf.yaml").write_text(LEAF)
    (directory / "middle.yaml").write_text(LEVEL % "leaf.yaml")
    (directory / "upper.yaml").write_text(LEVEL % "middle.yaml")
    template = directory / "top.yaml"
    template.write_text(LEVEL % "upper.yaml")
    options = LoadOptions(require_all_parameters=True, stack_name="top")
    loaded = load_definition(str(template), [], {}, options)
    assert loaded.definition is not None
    assert not [d for d in engine.check(loaded.definition, str(directory)) if d.is_error]
    return CreateRequest(
        name="top",
        definition=loaded.definition,
        template=plain(loaded.definition.template.document.data),
        environment=loaded.definition.environment.to_data(absolute_paths=True),
        template_file=os.path.abspath(template),
    )


def _engine(store: SqlStore) -> StackEngine:
    return StackEngine(store, default_registry(), EngineSettings())


def _create(store: SqlStore, directory: Path) -> tuple[StackEngine, StackRecord]:
    engine = _engine(store)
    record = asyncio.run(engine.create(_request(engine, directory)))
    assert record.status is Status.COMPLETE, record.status_reason
    return engine, record


def _shown(engine: StackEngine, record: StackRecord) -> dict[str, Any]:
    outputs = table_outputs(engine, record, engine.outputs(record))
    return {o["output_key"]: o["output_value"] for o in outputs}


EXPECTED = {"secret": SENSITIVE, "open": "shown", "side": "side"}


def test_a_hidden_parameter_three_stacks_down_masks_the_top_output(
    store: SqlStore, tmp_path: Path
) -> None:
    engine, record = _create(store, tmp_path)
    clear = {o["output_key"]: o["output_value"] for o in engine.outputs(record)}
    assert clear == {"secret": "x-leaf-secret", "open": "shown", "side": "side"}
    assert _shown(engine, record) == EXPECTED  # the engine that created the tree
    assert _shown(_engine(store), record) == EXPECTED  # one that reads it back
    # each stack between: its output read from below is withheld too
    nested = sorted(store.tree_summaries(record.id), key=lambda s: s.name)
    middles = [s for s in nested if s.parent_resource == "down"]
    assert len(middles) == 3
    for stack in middles:
        full = store.get_stack(stack.id, stack.project)
        assert full is not None
        assert _shown(_engine(store), full)["secret"] == SENSITIVE


def test_the_walk_reads_the_stacks_below_in_one_statement(tmp_path: Path) -> None:
    seen: list[str] = []

    def checkout(connection: Any, _record: Any, _proxy: Any) -> None:
        connection.set_trace_callback(seen.append)

    with open_store(f"sqlite:///{tmp_path / 'store.db'}") as store:
        engine, record = _create(store, tmp_path)
        event.listen(store.engine, "checkout", checkout)
        for reader in (engine, _engine(store)):  # what it created; what it reads back
            seen.clear()
            assert _shown(reader, record) == EXPECTED
            below = [s for s in seen if "WHERE stacks.parent_id =" in s]
            assert len(below) == 1, below
