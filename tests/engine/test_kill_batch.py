"""Crash safety of the group commit of effect-free resources (`Recorder.defer`).

Resources whose effect is only their records (None, Value, RandomString) do not wait for
their commit: their records are queued and committed a batch at a time. A real `stoker
stack create` of chains of such resources around one TestResource (an external effect)
is stopped at an exact point (`engine/testpoints.py`) and killed with SIGKILL there:

- inside a batch: some effect-free resources are complete in memory only. `stack
  recover` redoes them, and no resource's create is recorded complete twice;
- as the TestResource's handler is about to start: everything it depends on, and the
  RandomString whose value it read, must already be durable, and the value it was
  given is the one the stack keeps after the recovery.
"""

from __future__ import annotations

import collections
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from stoker.engine.state import Action, Status
from stoker.engine.testpoints import ENV
from stoker.store import open_store

BEFORE = 200  # effect-free resources in a chain before the TestResource
AFTER = 200  # and after it


def template() -> str:
    lines = [
        "heat_template_version: wallaby",
        "resources:",
        "  secret: {type: OS::Heat::RandomString}",
        "  n0: {type: OS::Heat::None, depends_on: secret}",
    ]
    lines += [f"  n{i}: {{type: OS::Heat::None, depends_on: n{i - 1}}}" for i in range(1, BEFORE)]
    lines += [
        "  ext:",
        "    type: OS::Heat::TestResource",
        f"    depends_on: n{BEFORE - 1}",
        "    properties: {value: {get_attr: [secret, value]}}",
        "  m0: {type: OS::Heat::None, depends_on: ext}",
    ]
    lines += [f"  m{i}: {{type: OS::Heat::None, depends_on: m{i - 1}}}" for i in range(1, AFTER)]
    return "\n".join(lines) + "\n"


def stop_then_kill(url: str, path: Path, point: str) -> None:
    """Run the create until it stops itself at ``point``; ``check`` the store; kill it."""
    process = subprocess.Popen(
        [sys.executable, "-m", "stoker", "--db", url, "stack", "create", "s", "-t", str(path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, ENV: point},
    )
    try:
        _, status = os.waitpid(process.pid, os.WUNTRACED)
        assert os.WIFSTOPPED(status), f"the create never reached {point}"
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.communicate(timeout=60)


def recover_and_check(url: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "stoker", "--db", url, "stack", "recover", "s"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    with open_store(url) as store:
        record = store.get_stack("s", "default")
        assert record is not None
        assert (record.action, record.status) == (Action.CREATE, Status.COMPLETE)
        completions = collections.Counter(
            e.resource_name
            for e in store.events(record.id)
            if (e.action, e.status) == (Action.CREATE, Status.COMPLETE)
            and e.resource_type != "OS::Heat::Stack"
        )
        assert len(completions) == BEFORE + AFTER + 2
        assert set(completions.values()) == {1}, [n for n, c in completions.items() if c > 1]
        rows = {r.name: r for r in store.resources(record.id)}
        assert {(r.action, r.status) for r in rows.values()} == {(Action.CREATE, Status.COMPLETE)}
        assert rows["ext"].properties["value"] == rows["secret"].data["value"]


@pytest.mark.slow
def test_a_create_killed_inside_a_batch_resumes(tmp_path: Path, store_url: str) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(template())
    # the 150th effect-free resource of the first chain: complete in memory, its records
    # queued; some before it committed, some not
    stop_then_kill(store_url, path, "after_queued:150")
    with open_store(store_url) as store:
        record = store.get_stack("s", "default")
        assert record is not None and record.status is Status.IN_PROGRESS
        done = {
            r.name
            for r in store.resources(record.id)
            if (r.action, r.status) == (Action.CREATE, Status.COMPLETE)
        }
        # secret is the first to pass the point, so n148 stopped there: complete in
        # memory, its records queued, not committed (the batch in flight is lost)
        assert "n148" not in done and "ext" not in done
    recover_and_check(store_url)


@pytest.mark.slow
def test_what_an_external_effect_depends_on_is_durable_before_it(
    tmp_path: Path, store_url: str
) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(template())
    stop_then_kill(store_url, path, "before_handler:1")  # the TestResource's, the only one
    with open_store(store_url) as store:
        record = store.get_stack("s", "default")
        assert record is not None
        rows = {r.name: r for r in store.resources(record.id)}
        assert (rows["ext"].action, rows["ext"].status) == (Action.CREATE, Status.IN_PROGRESS)
        before = ["secret", *(f"n{i}" for i in range(BEFORE))]
        assert {(rows[n].action, rows[n].status) for n in before} == {
            (Action.CREATE, Status.COMPLETE)
        }
        assert rows["m0"].action is Action.INIT
    recover_and_check(store_url)
