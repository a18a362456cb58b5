"""Crash safety: SIGKILL a real `stoker stack create` at random points, then resume.

Every run must end CREATE_COMPLETE after `stoker stack resume`, and no resource's create
may complete twice (its events show each CREATE_COMPLETE once).
"""

from __future__ import annotations

import collections
import random
import subprocess
import sys
import time

import pytest

from stoker.engine.state import Action, Status
from stoker.store import open_store

RESOURCES = 200
RUNS = 20


def template() -> str:
    lines = ["heat_template_version: wallaby", "resources:"]
    for index in range(RESOURCES):
        lines.append(f"  r{index}:")
        lines.append("    type: OS::Heat::TestResource")
        if index >= 20:
            lines.append(f"    depends_on: [r{index - 20}]")
        lines.append("    properties: {value: v" + str(index) + ", wait_secs: 0.08}")
    return "\n".join(lines) + "\n"


def stoker(url: str, *args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "stoker", "--db", url, "stack", *args],
        capture_output=True,
        text=True,
        timeout=120,
        **kwargs,
    )


@pytest.mark.slow
def test_killed_creates_resume_without_creating_anything_twice(tmp_path, store_url):
    path = tmp_path / "t.yaml"
    path.write_text(template())
    chooser = random.Random(20261121)
    store = open_store(store_url)
    outcomes = collections.Counter()
    for run in range(RUNS):
        name = f"kill{run}"
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "stoker",
                "--db",
                store_url,
                "stack",
                "create",
                name,
                "-t",
                str(path),
                "-f",
                "value",
                "-c",
                "stack_status",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        # Kill at a random point of the create: once a randomly chosen number of resources
        # have completed (some others are then in progress), watching the database.
        target = chooser.randint(0, RESOURCES - 25)  # the last layer of 20 still to come
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and process.poll() is None:
            record = store.get_stack(name, "default")
            if record is not None:
                done = sum(
                    1
                    for r in store.resources(record.id)
                    if r.action is Action.CREATE and r.status is Status.COMPLETE
                )
                if done >= target:
                    break
            time.sleep(0.005)
        process.kill()
        process.wait()
        record = store.get_stack(name, "default")
        assert record is not None and record.status is Status.IN_PROGRESS, (
            "the kill came too late to interrupt the create"
        )
        outcomes["resumed"] += 1
        result = stoker(store_url, "resume", name)
        assert result.returncode == 0, result.stderr[-2000:]
        record = store.get_stack(name, "default")
        assert (record.action, record.status) == (Action.CREATE, Status.COMPLETE), (
            record.status_reason
        )
        completions = collections.Counter(
            e.resource_name
            for e in store.events(record.id)
            if e.action is Action.CREATE
            and e.status is Status.COMPLETE
            and e.resource_type != "OS::Heat::Stack"
        )
        assert len(completions) == RESOURCES
        assert set(completions.values()) == {1}, [n for n, c in completions.items() if c > 1]
        rows = store.resources(record.id)
        assert {(r.action, r.status) for r in rows} == {(Action.CREATE, Status.COMPLETE)}
    assert outcomes["resumed"] == RUNS
