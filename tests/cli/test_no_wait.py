"""``--wait`` / ``--no-wait`` on stack operations, as ``openstack stack`` users type them:
``--wait`` is what stoker always does; ``--no-wait`` returns once the operation has
started, and it runs on in a detached process (`stoker.cli.detach`)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.heavy

STOKER = str(Path(sys.executable).with_name("stoker"))
WAITING = """\
heat_template_version: 2021-04-16
resources:
  handle: {type: OS::Heat::WaitConditionHandle}
  wait:
    type: OS::Heat::WaitCondition
    properties: {handle: {get_resource: handle}, timeout: 600}
"""


def _run(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [STOKER, "--db", str(db), "stack", *args], capture_output=True, text=True, timeout=120
    )


def _status(db: Path, name: str) -> str:
    return _run(db, "show", name, "-f", "value", "-c", "stack_status").stdout.strip()


def _until(condition, what: str) -> None:
    """Wait for ``condition`` (a state another process reaches), failing after a minute."""
    deadline = time.monotonic() + 60
    while not condition():
        assert time.monotonic() < deadline, f"still waiting for {what}"
        time.sleep(0.1)


def test_no_wait_returns_while_the_operation_runs_on(tmp_path: Path) -> None:
    db, template = tmp_path / "s.db", tmp_path / "wait.yaml"
    template.write_text(WAITING)
    started = _run(db, "create", "w", "-t", str(template), "--no-wait")
    assert started.returncode == 0, started.stderr
    found = re.match(r"w: CREATE_IN_PROGRESS \(process (\d+)\)", started.stderr)
    assert found, started.stderr
    pid = int(found.group(1))
    try:
        # the wait condition holds the create until it is signalled: deterministic
        assert _status(db, "w") == "CREATE_IN_PROGRESS"
        signalled = _run(db, "signal", "w", "handle", "--data", '{"status": "SUCCESS"}')
        assert signalled.returncode == 0, signalled.stderr
        _until(lambda: _status(db, "w") == "CREATE_COMPLETE", "the create to end")
        _until(lambda: not os.path.exists(f"/proc/{pid}"), "the detached process to exit")
    finally:
        if os.path.exists(f"/proc/{pid}"):
            os.kill(pid, 15)
    events = json.loads(_run(db, "event", "list", "w", "-f", "json").stdout)
    assert events[-1]["resource_status"] == "CREATE_COMPLETE"


def test_no_wait_fails_as_the_command_would_before_anything_starts(tmp_path: Path) -> None:
    db, template = tmp_path / "s.db", tmp_path / "bad.yaml"
    template.write_text("heat_template_version: 2021-04-16\nresources: {r: {type: OS::No}}\n")
    refused = _run(db, "create", "b", "-t", str(template), "--no-wait")
    assert refused.returncode == 1
    assert "OS::No" in refused.stderr and "Traceback" not in refused.stderr
    assert _run(db, "list", "-f", "value").stdout == ""


def test_wait_is_accepted_and_waits(tmp_path: Path) -> None:
    db, template = tmp_path / "s.db", tmp_path / "none.yaml"
    template.write_text(
        "heat_template_version: 2021-04-16\nresources: {n: {type: OS::Heat::None}}\n"
    )
    done = _run(
        db, "create", "n", "-t", str(template), "--wait", "-f", "value", "-c", "stack_status"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "CREATE_COMPLETE"
    deleted = _run(db, "delete", "n", "--yes", "--wait")
    assert deleted.returncode == 0 and "DELETE_COMPLETE" in deleted.stderr
