"""Whole processes racing on one stack, on SQLite and on PostgreSQL: one wins cleanly, the
other gets a clear one-line error, and nothing is left behind or created twice.

No sleeps race a process: the first process stops itself at a named point
(`stoker.engine.testpoints`, ``SIGSTOP``) or kills itself after N commits
(`stoker.engine.crash_hook`), the second runs while it is there, and the first is then
continued (``SIGCONT``) or recovered (``stack recover``).
"""

from __future__ import annotations

import collections
import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from stoker.engine.crash_hook import ENV_VAR as KILL_AFTER
from stoker.engine.state import Action, Status
from stoker.engine.testpoints import ENV as STOP_AT
from stoker.store import SqlStore, open_store

LAYERS, WIDTH = 4, 3  # TestResources: each layer depends on the one before


def chain(tmp_path: Path) -> Path:
    lines = ["heat_template_version: wallaby", "resources:"]
    for index in range(LAYERS * WIDTH):
        lines += [f"  r{index}:", "    type: OS::Heat::TestResource"]
        if index >= WIDTH:
            lines.append(f"    depends_on: [r{index - WIDTH}]")
        lines.append(f"    properties: {{value: v{index}}}")
    lines += [
        "  group:",
        "    type: OS::Heat::ResourceGroup",
        f"    depends_on: [r{LAYERS * WIDTH - 1}]",
        "    properties: {count: 2, resource_def: {type: OS::Heat::TestResource}}",
    ]
    path = tmp_path / "chain.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


NAMES = sorted([f"r{i}" for i in range(LAYERS * WIDTH)] + ["group"])


def command(url: str, *args: str) -> list[str]:
    return [sys.executable, "-m", "stoker", "--db", url, "stack", *args]


def run(url: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        command(url, *args),
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


class Stopped:
    """A `stoker stack ...` process that stopped itself at ``point``; `finish` continues it."""

    def __init__(self, url: str, point: str, *args: str) -> None:
        self.process = subprocess.Popen(
            command(url, *args),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, STOP_AT: point},
        )
        _, status = os.waitpid(self.process.pid, os.WUNTRACED)
        if not os.WIFSTOPPED(status):
            self.process.returncode = os.waitstatus_to_exitcode(status)
            raise AssertionError(f"the process ended before it reached {point}")

    def finish(self) -> tuple[int, str]:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.process.pid, signal.SIGCONT)
        _, stderr = self.process.communicate(timeout=120)
        return self.process.returncode, stderr

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.process.pid, signal.SIGKILL)
            os.kill(self.process.pid, signal.SIGCONT)
        self.process.communicate(timeout=60)


def one_line_error(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.startswith("error: ")]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr, stderr
    return lines[0]


def tree(store: SqlStore, name: str) -> list:
    """Every stack of the tree called ``name`` (nested ones too), deleted ones included."""
    return [
        s
        for s in store.list_stacks("default", include_nested=True, include_deleted=True)
        if s.name == name or s.name.startswith(f"{name}-")
    ]


def assert_created_once(store: SqlStore, name: str) -> None:
    """``name`` is CREATE_COMPLETE and every resource of its tree was created exactly once."""
    stacks = tree(store, name)
    top = [s for s in stacks if s.parent_id is None]
    assert len(top) == 1, [(s.name, s.id) for s in top]  # no second stack of that name
    assert (top[0].action, top[0].status) == (Action.CREATE, Status.COMPLETE)
    assert len(stacks) == 2  # the top and the group's stack: no child made twice
    for stack in stacks:
        assert (stack.action, stack.status) == (Action.CREATE, Status.COMPLETE), stack.name
        completions = collections.Counter(
            e.resource_name
            for e in store.events(stack.id)
            if (e.action, e.status) == (Action.CREATE, Status.COMPLETE)
            and e.resource_type != "OS::Heat::Stack"
        )
        rows = store.resources(stack.id)
        assert sorted(completions) == sorted(r.name for r in rows)
        assert set(completions.values()) == {1}, completions
    assert sorted(r.name for r in store.resources(top[0].id)) == NAMES


def assert_deleted_once(store: SqlStore, name: str) -> None:
    """Every stack of the tree is deleted, every resource of it deleted exactly once."""
    stacks = tree(store, name)
    assert len(stacks) == 2
    assert store.get_stack(name, "default") is None
    for stack in stacks:
        assert stack.deleted_at is not None, stack.name
        assert (stack.action, stack.status) == (Action.DELETE, Status.COMPLETE), stack.name
        deletions = collections.Counter(
            e.resource_name
            for e in store.events(stack.id)
            if (e.action, e.status) == (Action.DELETE, Status.COMPLETE)
            and e.resource_type != "OS::Heat::Stack"
        )
        rows = store.resources(stack.id)
        assert {(r.action, r.status) for r in rows} <= {(Action.DELETE, Status.COMPLETE)}
        assert sorted(deletions) == sorted(r.name for r in rows if r.physical_id)
        assert set(deletions.values()) <= {1}, deletions


@pytest.mark.slow
@pytest.mark.parametrize("point", ["after_stack_row:1", "before_handler:4"])
def test_two_creates_of_one_name(tmp_path: Path, store_url: str, point: str) -> None:
    path = chain(tmp_path)
    first = Stopped(store_url, point, "create", "s", "-t", str(path))
    try:
        second = run(store_url, "create", "s", "-t", str(path))
    finally:
        code, stderr = first.finish()
    assert second.returncode == 1, second.stderr
    assert one_line_error(second.stderr) == "error: The Stack (s) already exists."
    assert code == 0, stderr[-2000:]
    with open_store(store_url) as store:
        assert_created_once(store, "s")


@pytest.mark.slow
@pytest.mark.parametrize("point", ["after_stack_row:1", "before_handler:4"])
def test_a_delete_during_a_create_is_refused(tmp_path: Path, store_url: str, point: str) -> None:
    """The delete comes while the create holds its claim: refused, naming the operation
    in progress; the create then finishes, and a later delete removes everything once.
    (At ``after_stack_row`` the stack had no claim yet before the creator inserted it
    claimed: the delete took it, and the create went on to fill a deleted stack.)"""
    path = chain(tmp_path)
    first = Stopped(store_url, point, "create", "s", "-t", str(path))
    try:
        deleting = run(store_url, "delete", "s", "--yes")
    finally:
        code, stderr = first.finish()
    assert deleting.returncode == 1, deleting.stderr
    error = one_line_error(deleting.stderr)
    assert error.startswith("error: Stack s already has an action (CREATE) in progress"), error
    assert code == 0, stderr[-2000:]
    with open_store(store_url) as store:
        assert_created_once(store, "s")
        again = run(store_url, "delete", "s", "--yes")
        assert again.returncode == 0, again.stderr
        assert_deleted_once(store, "s")


@pytest.mark.slow
@pytest.mark.parametrize("commits", [2, 5])
def test_a_delete_killed_midway_is_recovered(tmp_path: Path, store_url: str, commits: int) -> None:
    """SIGKILL during a delete (after a few of its commits: the stack's DELETE_IN_PROGRESS,
    some resources' deletions), then `stack recover`: everything is deleted, once, nested
    stack included; a second recover has nothing to do."""
    path = chain(tmp_path)
    created = run(store_url, "create", "s", "-t", str(path))
    assert created.returncode == 0, created.stderr
    killed = run(store_url, "delete", "s", "--yes", env={KILL_AFTER: str(commits)})
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    with open_store(store_url) as store:
        record = store.get_stack("s", "default")
        assert record is not None
        assert (record.action, record.status) == (Action.DELETE, Status.IN_PROGRESS)
        recovered = run(store_url, "recover", "s")
        assert recovered.returncode == 0, recovered.stderr[-2000:]
        assert_deleted_once(store, "s")
    again = run(store_url, "recover", "s")
    assert again.returncode == 1
    assert one_line_error(again.stderr) == "error: The Stack (s) could not be found."
