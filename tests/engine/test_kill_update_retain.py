"""Crash safety of a replaced resource's own ``deletion_policy``: an update that replaces
a Retain resource with one that says Delete (and the reverse) dies by SIGKILL after N
commits (`stoker.engine.crash_hook`) and `stoker stack recover` finishes it. Wherever the
kill lands, the old resource goes by its own (old) definition's policy, as in Heat: the
kept one's child stack stays, the other's is deleted."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from stoker.engine.crash_hook import ENV_VAR
from stoker.engine.state import Action, Status
from stoker.store import open_store


def stoker(url: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "stoker", "--db", url, "stack", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


GROUP = (
    "{type: OS::Heat::ResourceGroup, %sproperties:"
    " {count: 1, resource_def: {type: OS::Heat::None}}}"
)
BEFORE = (
    "heat_template_version: wallaby\nresources:\n"
    f"  kept: {GROUP % 'deletion_policy: Retain, '}\n"
    f"  gone: {GROUP % ''}\n"
)
AFTER = (
    "heat_template_version: wallaby\nresources:\n"
    "  kept: {type: OS::Heat::None}\n"
    "  gone: {type: OS::Heat::None, deletion_policy: Retain}\n"
)


@pytest.mark.slow  # a create, a killed update and a recover per commit count: ~30 s
def test_a_killed_replacing_update_keeps_the_old_resources_own_policy(tmp_path, store_url):
    before, after = tmp_path / "before.yaml", tmp_path / "after.yaml"
    before.write_text(BEFORE)
    after.write_text(AFTER)
    store = open_store(store_url)
    killed_somewhere = False
    for commits in range(1, 40):
        name = f"retain{commits}"
        assert stoker(store_url, "create", name, "-t", str(before)).returncode == 0
        stack = store.get_stack(name, "default")
        children = {r.name: r.physical_id for r in store.resources(stack.id)}
        run = stoker(store_url, "update", name, "-t", str(after), env={ENV_VAR: str(commits)})
        if run.returncode == 0:  # the update needs fewer commits than that: all counts done
            break
        assert run.returncode == -signal.SIGKILL, run.stderr[-2000:]
        if store.get_stack(name, "default").status is Status.IN_PROGRESS:
            killed_somewhere = True
            resumed = stoker(store_url, "recover", name)
            assert resumed.returncode == 0, resumed.stderr[-2000:]
        final = store.get_stack(name, "default")
        assert (final.action, final.status) == (Action.UPDATE, Status.COMPLETE), commits
        kept = store.get_stack(str(children["kept"]), "default")
        gone = store.get_stack(str(children["gone"]), "default")
        assert kept is not None and kept.deleted_at is None, commits
        assert gone is None or gone.deleted_at is not None, commits
    assert killed_somewhere
