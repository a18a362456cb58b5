"""``stack cancel`` of an update running in another process, against what Heat 24.1.2
did (tests/fidelity/update/cancel.json, recorded by record_cancel.py beside it): the
update starts nothing more; cancel rolls it back (whatever the stack's rollback setting),
``--no-rollback`` leaves it UPDATE_FAILED, "Stack UPDATE cancelled" as Heat's convergence
engine (its default) says it (tests/fidelity/updates/cases/cancel.yaml; the legacy engine,
recorded here, says "Operation cancelled")."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from stoker.engine.settings import EngineSettings
from stoker.engine.stacks import StackEngine
from stoker.engine.state import Action, Status
from stoker.engine.testpoints import ENV
from stoker.resources.registry import default_registry

HEAT = json.loads((Path(__file__).parents[1] / "fidelity" / "update" / "cancel.json").read_text())

BEFORE = """
heat_template_version: "2021-04-16"
resources:
  a: {type: OS::Heat::TestResource, properties: {value: x}}
  b: {type: OS::Heat::TestResource, properties: {value: x}, depends_on: [a]}
"""
AFTER = BEFORE.replace("value: x}}", "value: y}}").replace("value: x},", "value: y},")


#: where stoker follows the convergence engine's words (tests/fidelity/updates)
CONVERGENCE_REASON = {"cancel_without_rollback": "Stack UPDATE cancelled"}


def run(url: str, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "stoker", "--db", url, "stack", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["cancel_update", "cancel_without_rollback"])
def test_cancel_of_an_update_as_heat(tmp_path, store, store_url, mode):
    """The update stops itself (SIGSTOP) once a's UPDATE_IN_PROGRESS is committed; the
    test asks for the cancel and continues it: a finishes, b never starts."""
    before, after = tmp_path / "before.yaml", tmp_path / "after.yaml"
    before.write_text(textwrap.dedent(BEFORE))
    after.write_text(textwrap.dedent(AFTER))
    created = run(store_url, "create", "c", "-t", str(before))
    _, problem = created.communicate(timeout=60)
    assert created.returncode == 0, problem
    stack = store.get_stack("c", "default")
    mark = max(e.id or 0 for e in store.events(stack.id))
    child = run(store_url, "update", "c", "-t", str(after), env={ENV: "before_handler:1"})
    try:
        _, status = os.waitpid(child.pid, os.WUNTRACED)
        assert os.WIFSTOPPED(status), "the update ended before it reached a"
        engine = StackEngine(store, default_registry(), EngineSettings())
        asyncio.run(engine.cancel("c", rollback=mode == "cancel_update"))
        os.kill(child.pid, signal.SIGCONT)
        _, stderr = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    heat = HEAT[mode]
    final = store.get_stack("c", "default")
    assert f"{final.action.value}_{final.status.value}" == heat["status"], stderr
    assert final.status_reason == CONVERGENCE_REASON.get(mode, heat["reason"])
    events = [
        [
            e.resource_name if e.resource_name != "c" else "<stack>",
            f"{e.action.value}_{e.status.value}",
            e.reason,
        ]
        for e in store.events(stack.id, after_id=mark)
    ]
    expected = [
        [n, s, CONVERGENCE_REASON.get(mode, r) if (n, s) == ("<stack>", "UPDATE_FAILED") else r]
        for n, s, r in heat["events"]
    ]
    assert events == expected
    rows = {r.name: f"{r.action.value}_{r.status.value}" for r in store.resources(stack.id)}
    assert rows == heat["resources"]
    assert store.lease(stack.id) is None
    if mode == "cancel_update":
        values = {r.name: r.properties.get("value") for r in store.resources(stack.id)}
        assert values == {"a": "x", "b": "x"}
        assert (final.action, final.status) == (Action.ROLLBACK, Status.COMPLETE)
