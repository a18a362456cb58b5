"""TripleO's overcloud, end to end: the create `openstack overcloud deploy` sends, its 21
outputs against real Heat's, and the delete.

The inputs are vendored in ``data/`` (see its NOTICE): TripleO's templates at the last
commit of openstack-archive/tripleo-heat-templates, rendered for the default roles and
networks, and the environment files the client writes, in the client's order. The mode is
TripleO's "deployed servers": every resource is cloud-free. The engine settings are those
of tripleoclient's own (ephemeral) Heat: nested stacks 10 deep, yaql limits 9000 items and
900000 bytes.

``heat_outputs.json`` is what Heat 24.1.2 answered for the same request (``GET
.../outputs/<key>`` after CREATE_COMPLETE). Only what varies per run is normalised: the
ids of the two deployed servers (random uuids in both engines), replaced on each side by
the role and index `ServerIdData` gives them.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cli.entry import SHORT_VIEW

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
THT = DATA / "tripleo-heat-templates"
TEMPLATE = THT / "overcloud.yaml"
#: the order python-tripleoclient sends them in (the registry always first)
ENVIRONMENTS = (
    THT / "overcloud-resource-registry-puppet.yaml",
    DATA / "environments" / "tripleoclient-parameters.yaml",
    THT / "environments" / "deployed-network-environment.yaml",
    DATA / "environments" / "vip-deployed.yaml",
    DATA / "environments" / "baremetal-deployed.yaml",
)
#: tripleoclient's ephemeral Heat (heat_launcher.py): max_nested_stack_depth, [yaql]
SETTINGS = ("--max-nested-depth", "10")
LIMITS = ("--yaql-limit-iterators", "9000", "--yaql-memory-quota", "900000")


def create_command(db: str, action: str = "create") -> list[str]:
    """The whole create (or ``stack update`` with the same inputs), as a user runs it."""
    environments = [arg for env in ENVIRONMENTS for arg in ("-e", str(env))]
    return [
        sys.executable,
        "-m",
        "stoker",
        "--db",
        db,
        "stack",
        *SETTINGS,
        action,
        "overcloud",
        "-t",
        str(TEMPLATE),
        *environments,
        *LIMITS,
        "-f",
        "json",
    ]


def show(db: str, cwd: Path) -> dict[str, Any]:
    """``stack show overcloud -f json``: the stack with its outputs."""
    shown = run(
        [sys.executable, "-m", "stoker", "--db", db, "stack", "show", "overcloud", "-f", "json"],
        cwd,
    )
    assert shown.returncode == 0, shown.stderr[-3000:]
    result: dict[str, Any] = json.loads(shown.stdout)
    return result


def normalised(outputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The outputs sorted by key, each deployed server's id replaced by its role and
    index (the only values that differ between two runs of the same create)."""
    by_key = {o["output_key"]: o for o in outputs}
    ids = by_key["ServerIdData"]["output_value"]["server_ids"]
    text = json.dumps(sorted(outputs, key=lambda o: o["output_key"]), sort_keys=True)
    for role, servers in ids.items():
        for index, server_id in enumerate(servers):
            text = text.replace(server_id, f"<server {role} {index}>")
    result: list[dict[str, Any]] = json.loads(text)
    return result


def rows(db: str, *, live: bool = False) -> dict[str, int]:
    """How many stacks (nested ones included) and resources the database holds; with
    ``live``, those not DELETE_COMPLETE (stoker keeps a deleted stack's rows, as Heat
    keeps its deleted stacks until they are purged)."""
    where = " WHERE NOT (action = 'DELETE' AND status = 'COMPLETE')" if live else ""
    connection = sqlite3.connect(db)
    try:
        return {
            table: connection.execute(f"SELECT count(*) FROM {table}{where}").fetchone()[0]  # noqa: S608
            for table in ("stacks", "resources")
        }
    finally:
        connection.close()


def physical_ids(db: str) -> dict[tuple[str, str], str | None]:
    """Every resource's physical id, by its stack's id and its name (nested stacks keep
    their ids across an update that leaves them in place)."""
    connection = sqlite3.connect(db)
    try:
        found = connection.execute("SELECT stack_id, name, physical_id FROM resources")
        return {(stack_id, name): physical for stack_id, name, physical in found}
    finally:
        connection.close()


def run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "STOKER_SECRET_KEY_FILE": str(cwd / "secret.key")}
    return subprocess.run(
        command, capture_output=True, text=True, timeout=900, cwd=cwd, env=env, check=False
    )


def test_overcloud_create_matches_heat_update_changes_nothing_and_delete_leaves_nothing(
    tmp_path: Path,
) -> None:
    db = str(tmp_path / "stoker.db")
    created = run(create_command(db), tmp_path)
    assert created.returncode == 0, created.stderr[-3000:]
    # Heat prints nothing about the parameter_defaults no template declares
    findings = [line for line in created.stderr.splitlines() if ": info: " in line]
    assert findings == []
    # the short view, as `openstack stack create` prints it: the outputs are read after
    assert list(json.loads(created.stdout)) == SHORT_VIEW
    assert json.loads(created.stdout)["stack_status"] == "CREATE_COMPLETE"
    stack = show(db, tmp_path)
    assert stack["stack_status"] == "CREATE_COMPLETE"

    recorded = json.loads((HERE / "heat_outputs.json").read_text())
    assert recorded["stack_status"] == "CREATE_COMPLETE"
    ours = normalised(stack["outputs"])
    theirs = normalised(recorded["outputs"])
    assert [o["output_key"] for o in ours] == [o["output_key"] for o in theirs]
    assert len(ours) == 21
    for mine, heats in zip(ours, theirs, strict=True):
        assert mine == heats, mine["output_key"]

    assert rows(db) == {"stacks": recorded["stacks"], "resources": recorded["resources"]}

    # `stack update` with the same inputs merges its environment files as the create did
    # (against every template the client sends): nothing changes, nothing is replaced
    before = physical_ids(db)
    updated = run(create_command(db, "update"), tmp_path)
    assert updated.returncode == 0, updated.stderr[-3000:]
    assert [line for line in updated.stderr.splitlines() if ": info: " in line] == []
    assert json.loads(updated.stdout)["stack_status"] == "UPDATE_COMPLETE"
    again = show(db, tmp_path)
    assert again["stack_status"] == "UPDATE_COMPLETE"
    assert sorted(again["outputs"], key=lambda o: o["output_key"]) == sorted(
        stack["outputs"], key=lambda o: o["output_key"]
    )
    assert physical_ids(db) == before
    assert rows(db) == {"stacks": recorded["stacks"], "resources": recorded["resources"]}

    deleted = run(
        [sys.executable, "-m", "stoker", "--db", db, "stack", "delete", "overcloud", "-y"],
        tmp_path,
    )
    assert deleted.returncode == 0, deleted.stderr[-3000:]
    assert rows(db, live=True) == {"stacks": 0, "resources": 0}
    listed = run(
        [sys.executable, "-m", "stoker", "--db", db, "stack", "list", "--nested", "-f", "json"],
        tmp_path,
    )
    assert json.loads(listed.stdout) == []
