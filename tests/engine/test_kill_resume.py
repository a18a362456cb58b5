"""Crash safety: a real `stoker stack create` dies by SIGKILL mid-way, then is resumed.

The child kills itself after N recorded commits (`stoker.engine.crash_hook`, turned on by
an environment variable), so the death is real and always lands mid-operation: N stays
below the fewest commits the create can take (two per dependency layer), whatever the
machine's load. Every run must end CREATE_COMPLETE after `stoker stack recover`, and no
resource's create may complete twice (its events show each CREATE_COMPLETE once).

The full runs (20 kills, 5 nested) are marked ``slow``: ``scripts/test.sh`` (CI) runs them;
the default ``pytest`` runs one small kill on each backend.
"""

from __future__ import annotations

import collections
import os
import random
import signal
import subprocess
import sys

import pytest

from stoker.engine.crash_hook import ENV_VAR
from stoker.engine.state import Action, Status
from stoker.store import open_store

pytestmark = pytest.mark.heavy

RESOURCES = 200
WIDTH = 20  # resources per dependency layer
RUNS = 20


def template(resources: int = RESOURCES, wait: float = 0.08) -> str:
    lines = ["heat_template_version: wallaby", "resources:"]
    for index in range(resources):
        lines.append(f"  r{index}:")
        lines.append("    type: OS::Heat::TestResource")
        if index >= WIDTH:
            lines.append(f"    depends_on: [r{index - WIDTH}]")
        lines.append("    properties: {value: v" + str(index) + f", wait_secs: {wait}}}")
    return "\n".join(lines) + "\n"


def fewest_commits(resources: int) -> int:
    """A create records IN_PROGRESS and then COMPLETE for each dependency layer, each in
    its own commit at the least: fewer commits than this cannot finish the create."""
    return 2 * (resources // WIDTH)


def stoker(url: str, *args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "stoker", "--db", url, "stack", *args],
        capture_output=True,
        text=True,
        timeout=120,
        **kwargs,
    )


def create_then_kill(url: str, name: str, template, commits: int) -> None:
    """Run `stoker stack create NAME`, which kills itself after ``commits`` commits."""
    process = subprocess.run(
        [sys.executable, "-m", "stoker", "--db", url, "stack", "create", name, "-t", str(template)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, ENV_VAR: str(commits)},
        timeout=120,
    )
    assert process.returncode == -signal.SIGKILL, process.stderr[-2000:]


def assert_resumes_cleanly(store, store_url: str, name: str, resources: int) -> None:
    record = store.get_stack(name, "default")
    assert record is not None and record.status is Status.IN_PROGRESS
    result = stoker(store_url, "recover", name)
    assert result.returncode == 0, result.stderr[-2000:]
    record = store.get_stack(name, "default")
    assert (record.action, record.status) == (Action.CREATE, Status.COMPLETE), record.status_reason
    completions = collections.Counter(
        e.resource_name
        for e in store.events(record.id)
        if e.action is Action.CREATE
        and e.status is Status.COMPLETE
        and e.resource_type != "OS::Heat::Stack"
    )
    assert len(completions) == resources
    assert set(completions.values()) == {1}, [n for n, c in completions.items() if c > 1]
    rows = store.resources(record.id)
    assert {(r.action, r.status) for r in rows} == {(Action.CREATE, Status.COMPLETE)}


def test_a_killed_create_resumes(tmp_path, store_url):
    """The default suite's kill: small, one run, the same checks as the full one."""
    path = tmp_path / "t.yaml"
    path.write_text(template(resources=60, wait=0.01))
    store = open_store(store_url)
    create_then_kill(store_url, "small", path, fewest_commits(60) - 1)
    assert_resumes_cleanly(store, store_url, "small", 60)


@pytest.mark.slow
def test_killed_creates_resume_without_creating_anything_twice(tmp_path, store_url):
    path = tmp_path / "t.yaml"
    path.write_text(template())
    chooser = random.Random(20261121)
    store = open_store(store_url)
    for run in range(RUNS):
        name = f"kill{run}"
        # Die after a randomly chosen number of commits: somewhere in the create, with
        # some resources complete and others in progress, never after its end.
        commits = chooser.randint(1, fewest_commits(RESOURCES) - 1)
        create_then_kill(store_url, name, path, commits)
        assert_resumes_cleanly(store, store_url, name, RESOURCES)


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
        # the top's facade, the group's member facades and each member's three layers
        # (two commits each) come before the create can end
        commits = chooser.randint(1, 8)
        create_then_kill(store_url, name, tmp_path / "top.yaml", commits)
        top = store.get_stack(name, "default")
        assert top is not None and top.status is Status.IN_PROGRESS
        result = stoker(store_url, "recover", name)
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
