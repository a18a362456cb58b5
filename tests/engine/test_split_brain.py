"""One writer per stack: a process stopped past its lease must not write after a takeover.

A real `stoker stack create` stops itself (``SIGSTOP``, through the test-only hook of
`stoker.engine.testpoints`) at a chosen point; once its short lease has expired, the test
process resumes the stack and finishes it; then the first is continued (``SIGCONT``). The
first must fail with a clear message and change nothing more: every resource is created
once (one CREATE_COMPLETE, one physical id) and the stack stays CREATE_COMPLETE.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime

import pytest

from stoker.engine.settings import EngineSettings
from stoker.engine.stacks import StackEngine
from stoker.engine.state import Action, Status
from stoker.engine.testpoints import ENV, POINTS
from stoker.resources.registry import default_registry
from stoker.store import open_store

CHAIN = 7  # TestResources in a chain, then a RandomString after them
LEASE_SECONDS = 0.6

# Where the first process stops: (point, which time it is reached there).
STOPS = {
    "after_stack_row": "after_stack_row:1",
    "before_handler": "before_handler:3",
    "after_handler": "after_handler:3",
    "after_complete": "after_complete:3",
    "heartbeat": "heartbeat:1",
    "before_stack_complete": "before_stack_complete:1",
}


def template() -> str:
    lines = ["heat_template_version: wallaby", "resources:"]
    for index in range(CHAIN):
        lines += [f"  r{index}:", "    type: OS::Heat::TestResource"]
        if index:
            lines.append(f"    depends_on: [r{index - 1}]")
        lines.append("    properties: {value: v" + str(index) + ", wait_secs: 0.05}")
    lines += ["  secret:", "    type: OS::Heat::RandomString", f"    depends_on: [r{CHAIN - 1}]"]
    return "\n".join(lines) + "\n"


def _stoker(url: str, *args: str) -> list[str]:
    return [sys.executable, "-m", "stoker", "--db", url, "stack", *args]


def test_every_stop_point_is_covered() -> None:
    assert set(STOPS) == set(POINTS)


@pytest.mark.slow
@pytest.mark.parametrize("point", sorted(STOPS))
def test_a_process_that_lost_its_lease_writes_nothing_more(tmp_path, store_url, point):
    path = tmp_path / "chain.yaml"
    path.write_text(template())
    url = store_url
    first = subprocess.Popen(
        _stoker(url, "--lease-seconds", str(LEASE_SECONDS), "create", "sb", "-t", str(path)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, ENV: STOPS[point]},
    )
    try:
        _, status = os.waitpid(first.pid, os.WUNTRACED)  # returns when it stops itself
        assert os.WIFSTOPPED(status), f"the create never reached {STOPS[point]} (it ended)"
        store = open_store(url)
        try:
            record = store.get_stack("sb", "default")
            assert record is not None and record.status is Status.IN_PROGRESS
            # The stopped process cannot renew its claim: wait until it has expired.
            lease = store.lease(record.id)
            assert lease is not None
            time.sleep(max(0.0, (lease.expires_at - datetime.now(UTC)).total_seconds()) + 0.05)
            # This process takes the stack over and finishes it (as `stoker stack recover`).
            engine = StackEngine(store, default_registry(), EngineSettings())
            taken = asyncio.run(engine.recover("sb"))
            assert (taken.action, taken.status) == (Action.CREATE, Status.COMPLETE)
        finally:
            store.close()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(first.pid, signal.SIGCONT)
    _, stderr = first.communicate(timeout=120)
    assert first.returncode == 1, stderr[-2000:]
    assert "lost its claim on stack" in stderr, stderr[-2000:]
    assert "Traceback" not in stderr

    with open_store(url) as store:
        record = store.get_stack("sb", "default")
        assert (record.action, record.status) == (Action.CREATE, Status.COMPLETE)
        events = store.events(record.id)
        stack_events = [
            (e.action, e.status) for e in events if e.resource_type == "OS::Heat::Stack"
        ]
        assert stack_events.count((Action.CREATE, Status.COMPLETE)) == 1
        assert (Action.CREATE, Status.FAILED) not in stack_events
        resources = [e for e in events if e.resource_type != "OS::Heat::Stack"]
        completions = collections.Counter(
            e.resource_name
            for e in resources
            if e.action is Action.CREATE and e.status is Status.COMPLETE
        )
        assert sorted(completions) == sorted([f"r{i}" for i in range(CHAIN)] + ["secret"])
        assert set(completions.values()) == {1}, completions
        assert not [e for e in resources if e.status is Status.FAILED]
        physical = collections.defaultdict(set)
        for event in resources:
            if event.physical_id:
                physical[event.resource_name].add(event.physical_id)
        for row in store.resources(record.id):
            assert (row.action, row.status) == (Action.CREATE, Status.COMPLETE)
            physical[row.name].add(row.physical_id)
        assert {name: len(ids) for name, ids in physical.items()} == dict.fromkeys(physical, 1)
