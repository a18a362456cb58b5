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
from collections.abc import Callable
from functools import partial

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


def completed(store, stacks) -> int:
    """Resources whose create completed, over ``stacks``."""
    return sum(
        1
        for stack in stacks
        for r in store.resources(stack.id)
        if r.action is Action.CREATE and r.status is Status.COMPLETE
    )


def completed_in_stack(store, name: str) -> int:
    record = store.get_stack(name, "default")
    return completed(store, [record] if record else [])


def completed_in_members(store, name: str) -> int:
    """Below the group of the nested test: its members' resources."""
    members = [
        s
        for s in store.list_stacks("default", include_nested=True)
        if s.name.startswith(f"{name}-group-") and s.parent_resource != "group"
    ]
    return completed(store, members)


def create_then_kill(url: str, name: str, template, done: Callable[[str], int], target: int):
    """Start `stoker stack create NAME`, SIGKILL it once ``done(NAME)`` reaches ``target``."""
    process = subprocess.Popen(
        [sys.executable, "-m", "stoker", "--db", url, "stack", "create", name, "-t", str(template)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None and done(name) < target:
        time.sleep(0.005)
    process.kill()
    process.wait()


@pytest.mark.slow
def test_killed_creates_resume_without_creating_anything_twice(tmp_path, store_url):
    path = tmp_path / "t.yaml"
    path.write_text(template())
    chooser = random.Random(20261121)
    store = open_store(store_url)
    outcomes = collections.Counter()
    for run in range(RUNS):
        name = f"kill{run}"
        # Kill at a random point of the create: once a randomly chosen number of resources
        # have completed (some others are then in progress), watching the database.
        target = chooser.randint(0, RESOURCES - 25)  # the last layer of 20 still to come
        create_then_kill(store_url, name, path, partial(completed_in_stack, store), target)
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


NESTED_RUNS = 5


@pytest.mark.slow
def test_killed_nested_creates_resume_without_duplicate_children(tmp_path, store_url):
    (tmp_path / "member.yaml").write_text(
        "heat_template_version: wallaby\nparameters:\n  index: {type: string}\nresources:\n"
        + "".join(
            f"  r{i}:\n    type: OS::Heat::TestResource\n"
            + (f"    depends_on: [r{i - 5}]\n" if i >= 5 else "")
            + "    properties: {value: {get_param: index}, wait_secs: 0.1}\n"
            for i in range(15)
        )
    )
    (tmp_path / "top.yaml").write_text(
        "heat_template_version: wallaby\nresources:\n  group:\n"
        "    type: OS::Heat::ResourceGroup\n"
        "    properties: {count: 8, resource_def: {type: member.yaml, properties: "
        "{index: '%index%'}}}\n"
    )
    chooser = random.Random(7)
    store = open_store(store_url)
    for run in range(NESTED_RUNS):
        name = f"nested{run}"
        # of the 120 TestResources below the group; the last layer (5 per member, 40 in
        # all) still to come, so the kill lands before the create ends
        target = chooser.randint(1, 80)
        create_then_kill(
            store_url, name, tmp_path / "top.yaml", partial(completed_in_members, store), target
        )
        top = store.get_stack(name, "default")
        assert top is not None and top.status is Status.IN_PROGRESS
        result = stoker(store_url, "resume", name)
        assert result.returncode == 0, result.stderr[-2000:]
        top = store.get_stack(name, "default")
        assert top.status is Status.COMPLETE, top.status_reason
        tree = [
            s
            for s in store.list_stacks("default", include_nested=True)
            if s.name.startswith(f"{name}-")
        ]
        assert len(tree) == 9  # the group's stack and its 8 members: nothing made twice
        assert all(s.status is Status.COMPLETE for s in tree)
        for stack in [top, *tree]:
            completions = collections.Counter(
                e.resource_name
                for e in store.events(stack.id)
                if e.action is Action.CREATE
                and e.status is Status.COMPLETE
                and e.resource_type != "OS::Heat::Stack"
            )
            assert set(completions.values()) <= {1}, (stack.name, completions)
