"""Crash safety of nested updates: a real `stoker stack update` of a ResourceGroup under a
rolling update (which grows above its target to keep members in service) and of a
provider-template resource dies by SIGKILL after N commits (`stoker.engine.crash_hook`);
`stoker stack recover` finishes it. Nothing may be done twice: every member updated once,
the extra member the rolling update adds created once and deleted once, the provider's
inner resource updated once, and the stack UPDATE_COMPLETE with the new values."""

from __future__ import annotations

import collections
import os
import signal
import subprocess
import sys

import pytest

from stoker.engine.crash_hook import ENV_VAR
from stoker.engine.state import Action, Status
from stoker.store import open_store

pytestmark = pytest.mark.heavy

COUNT = 6
PROVIDER = """heat_template_version: "2021-04-16"
parameters:
  v: {type: string}
resources:
  inner: {type: OS::Heat::TestResource, properties: {value: {get_param: v}}}
  fixed: {type: OS::Heat::TestResource, properties: {value: fixed}}
"""


def template(value: str) -> str:
    return f"""heat_template_version: "2021-04-16"
resources:
  g:
    type: OS::Heat::ResourceGroup
    update_policy: {{rolling_update: {{max_batch_size: 2, min_in_service: 5}}}}
    properties:
      count: {COUNT}
      resource_def:
        type: OS::Heat::TestResource
        properties: {{value: "{value}-%index%", wait_secs: 0.01}}
  p: {{type: prov.yaml, properties: {{v: {value}}}}}
"""


def stoker(url: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "stoker", "--db", url, "stack", *args],
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, **(env or {})},
    )


def kill_and_recover(tmp_path, store_url: str, name: str, commits: int) -> None:
    (tmp_path / "prov.yaml").write_text(PROVIDER)
    before, after = tmp_path / f"{name}-a.yaml", tmp_path / f"{name}-b.yaml"
    before.write_text(template("old"))
    after.write_text(template("new"))
    created = stoker(store_url, "create", name, "-t", str(before))
    assert created.returncode == 0, created.stderr[-2000:]
    store = open_store(store_url)
    stack = store.get_stack(name, "default")
    top = {r.name: r for r in store.resources(stack.id)}
    group, provider = top["g"].physical_id, top["p"].physical_id
    assert group and provider
    members = {r.name: r for r in store.resources(group)}
    inner = {r.name: r for r in store.resources(provider)}
    marks = {sid: max(e.id or 0 for e in store.events(sid)) for sid in (stack.id, group, provider)}
    killed = stoker(store_url, "update", name, "-t", str(after), env={ENV_VAR: str(commits)})
    assert killed.returncode == -signal.SIGKILL, (commits, killed.stderr[-2000:])
    interrupted = store.get_stack(name, "default")
    assert (interrupted.action, interrupted.status) == (Action.UPDATE, Status.IN_PROGRESS)
    recovered = stoker(store_url, "recover", name)
    assert recovered.returncode == 0, (commits, recovered.stderr[-2000:])
    final = store.get_stack(name, "default")
    assert (final.action, final.status) == (Action.UPDATE, Status.COMPLETE), final.status_reason
    now = {r.name: r for r in store.resources(stack.id)}
    assert (now["g"].physical_id, now["p"].physical_id) == (group, provider)
    rows = {r.name: r for r in store.resources(group)}
    assert set(rows) == {str(i) for i in range(COUNT)}
    for index, row in rows.items():
        assert row.data["value"] == f"new-{index}"
        assert row.physical_id == members[index].physical_id  # updated in place
    assert {r.name: r.data.get("value") for r in store.resources(provider)} == {
        "inner": "new",
        "fixed": "fixed",
    }
    done = collections.Counter(
        (e.stack_id, e.resource_name, e.action, e.physical_id)
        for sid in (stack.id, group, provider)
        for e in store.events(sid, after_id=marks[sid])
        if e.status is Status.COMPLETE and e.resource_type != "OS::Heat::Stack"
    )
    assert [key for key, count in done.items() if count > 1] == []
    for index, row in members.items():
        assert done[(group, index, Action.UPDATE, row.physical_id)] == 1
    extra = [k for k in done if k[0] == group and k[1] == str(COUNT)]
    # the rolling update grew the group by one member to keep 5 in service, then shrank
    assert sorted(k[2].value for k in extra) == ["CREATE", "DELETE"]
    assert done[(provider, "inner", Action.UPDATE, inner["inner"].physical_id)] == 1
    assert not any(k[0] == provider and k[1] == "fixed" for k in done)


def test_a_killed_nested_update_recovers(tmp_path, store_url):
    """The default suite's kill: in the group's second batch."""
    kill_and_recover(tmp_path, store_url, "nk", commits=7)


@pytest.mark.slow
@pytest.mark.parametrize("commits", [2, 3, 4, 5, 9, 11, 13, 15, 17])
def test_killed_nested_updates_recover_without_doing_anything_twice(tmp_path, store_url, commits):
    kill_and_recover(tmp_path, store_url, f"nk{commits}", commits)
