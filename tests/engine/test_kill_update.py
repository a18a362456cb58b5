"""Crash safety of stack update: a real `stoker stack update` dies by SIGKILL mid-way
(after N commits, `stoker.engine.crash_hook`), then `stoker stack recover` finishes it.

The update changes every kind at once (in-place updates in dependency layers,
replacements, additions, removals), so a kill lands among all of them. After the resume
the stack must be UPDATE_COMPLETE with the new definition's values, and nothing may have
been done twice: each in-place update completes once, each replacement is created once and
its old resource deleted once, each removed resource deleted once.
"""

from __future__ import annotations

import collections
import os
import random
import signal
import subprocess
import sys

import pytest

from stoker.engine import testpoints
from stoker.engine.crash_hook import ENV_VAR
from stoker.engine.state import Action, Status
from stoker.store import open_store

pytestmark = pytest.mark.heavy

WIDTH = 10


def template(layers: int, after: bool) -> str:
    lines = ["heat_template_version: wallaby", "resources:"]
    for index in range(layers * WIDTH):
        lines.append(f"  t{index}:")
        lines.append("    type: OS::Heat::TestResource")
        if index >= WIDTH:
            lines.append(f"    depends_on: [t{index - WIDTH}]")
        value = f"{'new' if after else 'old'}{index}"
        lines.append(f"    properties: {{value: {value}, wait_secs: 0.01}}")
    for index in range(WIDTH):
        lines.append(f"  s{index}:")
        lines.append("    type: OS::Heat::RandomString")
        lines.append(f"    properties: {{length: {9 if after else 8}}}")
        prefix = "added" if after else "removed"
        lines.append(f"  {prefix}{index}: {{type: OS::Heat::None}}")
    return "\n".join(lines) + "\n"


def stoker(url: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "stoker", "--db", url, "stack", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


def kill_and_resume(tmp_path, store_url: str, name: str, layers: int, commits: int) -> None:
    before, after = tmp_path / f"{name}-a.yaml", tmp_path / f"{name}-b.yaml"
    before.write_text(template(layers, after=False))
    after.write_text(template(layers, after=True))
    created = stoker(store_url, "create", name, "-t", str(before))
    assert created.returncode == 0, created.stderr[-2000:]
    store = open_store(store_url)
    stack = store.get_stack(name, "default")
    old = {r.name: r for r in store.resources(stack.id)}
    mark = max(e.id or 0 for e in store.events(stack.id))
    killed = stoker(store_url, "update", name, "-t", str(after), env={ENV_VAR: str(commits)})
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    interrupted = store.get_stack(name, "default")
    assert (interrupted.action, interrupted.status) == (Action.UPDATE, Status.IN_PROGRESS)
    resumed = stoker(store_url, "recover", name)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    final = store.get_stack(name, "default")
    assert (final.action, final.status) == (Action.UPDATE, Status.COMPLETE), final.status_reason
    rows = {r.name: r for r in store.resources(stack.id)}
    total = layers * WIDTH
    assert set(rows) == {f"t{i}" for i in range(total)} | {
        f"{p}{i}" for p in ("s", "added") for i in range(WIDTH)
    }
    assert all(
        r.status is Status.COMPLETE and "stoker:replaced" not in r.data for r in rows.values()
    )
    assert all(rows[f"t{i}"].data["value"] == f"new{i}" for i in range(total))
    assert all(len(rows[f"s{i}"].data["value"]) == 9 for i in range(WIDTH))
    assert all(rows[f"s{i}"].physical_id != old[f"s{i}"].physical_id for i in range(WIDTH))
    events = [
        e for e in store.events(stack.id, after_id=mark) if e.resource_type != "OS::Heat::Stack"
    ]
    done = collections.Counter(
        (e.resource_name, e.action, e.physical_id) for e in events if e.status is Status.COMPLETE
    )
    twice = [key for key, count in done.items() if count > 1]
    assert twice == []
    for i in range(total):
        assert done[(f"t{i}", Action.UPDATE, old[f"t{i}"].physical_id)] == 1
    for i in range(WIDTH):
        assert done[(f"s{i}", Action.DELETE, old[f"s{i}"].physical_id)] == 1
        assert done[(f"s{i}", Action.CREATE, rows[f"s{i}"].physical_id)] == 1
        assert done[(f"removed{i}", Action.DELETE, old[f"removed{i}"].physical_id)] == 1


def test_a_killed_update_resumes(tmp_path, store_url):
    """The default suite's kill: a small update, killed a few commits in."""
    kill_and_resume(tmp_path, store_url, "small", layers=3, commits=3)


@pytest.mark.slow
def test_killed_updates_resume_without_doing_anything_twice(tmp_path, store_url):
    chooser = random.Random(20261123)
    # The update of 6 layers takes at least 2 commits per layer (12), then its clean-up
    # (the old resources of replacements and the removed ones: 2 more at the least) and
    # the stack's completion: 15 at the fewest (17 measured). 14 lands in the clean-up.
    for run, commits in enumerate([14, *(chooser.randint(1, 14) for _ in range(7))]):
        kill_and_resume(tmp_path, store_url, f"kill{run}", layers=6, commits=commits)


@pytest.mark.slow
def test_a_rollback_killed_midway_resumes_to_the_old_definition(tmp_path, store_url):
    """An update that fails (rollback enabled) dies during its rollback (SIGKILL at a
    named point); resume finishes the rollback: every value is the old one, replaced
    resources are the original ones."""
    layers = 3
    before, after = tmp_path / "a.yaml", tmp_path / "b.yaml"
    # bad stood on every s before the update: their old resources wait for bad's update
    # (Heat's convergence clean-up, engine/cleanup.py), which fails, so they are still
    # there to be put back
    needs = ", ".join(f"s{i}" for i in range(WIDTH))
    bad = "  bad:\n    type: OS::Heat::TestResource\n"
    bad += f"    depends_on: [t{layers * WIDTH - 1}, {needs}]\n"
    before.write_text(template(layers, after=False) + bad + "    properties: {value: x}\n")
    failing = template(layers, after=True) + bad + "    properties: {value: y, fail: true}\n"
    after.write_text(failing)
    assert stoker(store_url, "create", "rb", "-t", str(before)).returncode == 0
    store = open_store(store_url)
    stack = store.get_stack("rb", "default")
    old = {r.name: r for r in store.resources(stack.id)}
    # The process stops itself where the rollback has put back what the replacements kept
    # and has not restored anything else (engine/testpoints.py); then it is killed there.
    process = subprocess.Popen(
        [sys.executable, "-m", "stoker", "--db", store_url, "stack", "update", "rb"]
        + ["-t", str(after), "--rollback", "enabled"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, testpoints.ENV: "rollback_swapped"},
    )
    try:
        _, status = os.waitpid(process.pid, os.WUNTRACED)
        assert os.WIFSTOPPED(status)
        swapped = {r.name: r.physical_id for r in store.resources(stack.id)}
        assert all(swapped[f"s{i}"] == old[f"s{i}"].physical_id for i in range(WIDTH))
    finally:
        process.kill()
        process.wait()
    interrupted = store.get_stack("rb", "default")
    assert (interrupted.action, interrupted.status) == (Action.ROLLBACK, Status.IN_PROGRESS)
    resumed = stoker(store_url, "recover", "rb")
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    final = store.get_stack("rb", "default")
    assert (final.action, final.status) == (Action.ROLLBACK, Status.COMPLETE), final.status_reason
    rows = {r.name: r for r in store.resources(stack.id)}
    assert set(rows) == set(old)
    assert all(rows[f"t{i}"].data["value"] == f"old{i}" for i in range(layers * WIDTH))
    assert all(rows[f"s{i}"].physical_id == old[f"s{i}"].physical_id for i in range(WIDTH))
    assert all(rows[f"s{i}"].data["value"] == old[f"s{i}"].data["value"] for i in range(WIDTH))
    assert all("stoker:replaced" not in r.data for r in rows.values())
