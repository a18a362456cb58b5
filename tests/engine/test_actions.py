"""The other stack actions on both databases: check, suspend/resume, mark-unhealthy,
recover of an interrupted walk, and cancel of a create running in another process."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from stoker.definition.loading import LoadOptions, load_definition
from stoker.engine import unhealthy
from stoker.engine.settings import EngineSettings
from stoker.engine.stacks import CreateRequest, OperationRefused, StackEngine
from stoker.engine.state import Action, StackStatus, Status, WriteBatch
from stoker.engine.testpoints import ENV
from stoker.errors import StackNotFound
from stoker.resources.registry import default_registry
from stoker.template.nodes import plain

pytestmark = pytest.mark.heavy

TEMPLATE = """
heat_template_version: 2018-08-31
resources:
  rand: {type: OS::Heat::RandomString, properties: {length: 8}}
  none: {type: OS::Heat::None, depends_on: rand}
  val: {type: OS::Heat::Value, properties: {value: {get_attr: [rand, value]}}}
  nest:
    type: OS::Heat::Stack
    properties:
      template: |
        heat_template_version: 2018-08-31
        resources:
          inner: {type: OS::Heat::None}
"""


def create(engine, path, name):
    options = LoadOptions(require_all_parameters=True, stack_name=name)
    result = load_definition(str(path), [], {}, options)
    assert result.definition is not None
    request = CreateRequest(
        name=name,
        definition=result.definition,
        template=plain(result.definition.template.document.data),
        environment=result.definition.environment.to_data(absolute_paths=True),
        template_file=os.path.abspath(path),
    )
    return asyncio.run(engine.create(request))


@pytest.fixture
def engine(store):
    return StackEngine(store, default_registry(), EngineSettings())


@pytest.fixture
def top(engine, tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(textwrap.dedent(TEMPLATE))
    record = create(engine, path, name="top")
    assert record.status is Status.COMPLETE, record.status_reason
    return record


def states(store, stack_id):
    return {
        r.name: (r.action.value, r.status.value, r.status_reason) for r in store.resources(stack_id)
    }


def child_of(store, top):
    nested = store.list_stacks(top.project, include_nested=True)
    (child,) = [stack for stack in nested if stack.parent_id == top.id]
    return child


def test_check_marks_every_resource_and_says_what_it_could_not_check(engine, store, top):
    result = asyncio.run(engine.check_stack("top"))
    assert (result.action, result.status) == (Action.CHECK, Status.COMPLETE)
    # Heat 24.1.2's words (tests/fidelity/recordings/actions.json)
    assert result.status_reason == (
        "Stack CHECK completed successfully. 'CHECK' not fully supported (see resources)"
    )
    got = states(store, top.id)
    assert got["rand"] == ("CHECK", "COMPLETE", "CHECK not supported for OS::Heat::RandomString")
    assert got["nest"] == ("CHECK", "COMPLETE", "state changed")
    inner = states(store, child_of(store, top).id)
    assert inner["inner"] == ("CHECK", "COMPLETE", "CHECK not supported for OS::Heat::None")


def test_suspend_goes_dependents_first_and_resume_forward_into_nested_stacks(engine, store, top):
    result = asyncio.run(engine.suspend("top"))
    assert (result.action, result.status) == (Action.SUSPEND, Status.COMPLETE)
    assert result.status_reason == "Stack SUSPEND completed successfully"
    assert {s[:2] for s in states(store, top.id).values()} == {("SUSPEND", "COMPLETE")}
    child = store.get_stack(child_of(store, top).id, "default")
    assert (child.action, child.status) == (Action.SUSPEND, Status.COMPLETE)
    events = [
        e.resource_name
        for e in store.events(top.id)
        if e.action is Action.SUSPEND
        and e.status is Status.IN_PROGRESS
        and e.resource_name != "top"
    ]
    # rand is required by none and val: it is suspended after both
    assert events.index("rand") > events.index("none") and events.index("rand") > events.index(
        "val"
    )
    again = asyncio.run(engine.suspend("top"))  # already suspended: nothing to do
    assert again.updated_at == result.updated_at
    resumed = asyncio.run(engine.resume("top"))
    assert (resumed.action, resumed.status) == (Action.RESUME, Status.COMPLETE)
    assert {s[:2] for s in states(store, child.id).values()} == {("RESUME", "COMPLETE")}
    order = [
        e.resource_name
        for e in store.events(top.id)
        if e.action is Action.RESUME and e.status is Status.IN_PROGRESS and e.resource_name != "top"
    ]
    assert order.index("rand") < order.index("none")


def test_resume_of_a_stack_never_suspended_fails_as_in_heat(engine, store, top):
    result = asyncio.run(engine.resume("top"))
    assert (result.action, result.status) == (Action.RESUME, Status.FAILED)
    assert result.status_reason.startswith("Resource RESUME failed: Error: resources.")
    assert result.status_reason.endswith("State ('CREATE', 'COMPLETE') invalid for resume")
    # the resources keep their state
    assert {s[:2] for s in states(store, top.id).values()} == {("CREATE", "COMPLETE")}


def test_mark_unhealthy_and_reset(engine, store, top):
    marked = asyncio.run(engine.mark_unhealthy("top", "val", True, "broken"))
    assert (marked.action, marked.status, marked.status_reason) == (
        Action.CHECK,
        Status.FAILED,
        "broken",
    )
    assert states(store, top.id)["val"] == ("CHECK", "FAILED", "broken")
    # by physical id too; reset with Heat's default reason
    rand = {r.name: r for r in store.resources(top.id)}["rand"]
    asyncio.run(engine.mark_unhealthy("top", rand.physical_id, True))
    assert states(store, top.id)["rand"][2] == unhealthy.DEFAULT_REASON
    asyncio.run(engine.mark_unhealthy("top", "val", False))
    assert states(store, top.id)["val"] == ("CHECK", "COMPLETE", unhealthy.DEFAULT_REASON)
    # reset of a healthy resource changes nothing
    before = states(store, top.id)["none"]
    asyncio.run(engine.mark_unhealthy("top", "none", False))
    assert states(store, top.id)["none"] == before
    with pytest.raises(StackNotFound, match=r"The Resource \(nope\) could not be found"):
        asyncio.run(engine.mark_unhealthy("top", "nope", True))


def test_an_interrupted_suspend_is_recovered_without_visiting_done_resources(engine, store, top):
    # What a process that died halfway through a suspend leaves: the stack and one
    # resource SUSPEND_IN_PROGRESS, one resource already SUSPEND_COMPLETE.
    records = {r.name: r for r in store.resources(top.id)}
    now = records["val"].created_at
    store.write(
        WriteBatch(
            stacks=[
                StackStatus(
                    top.id, Action.SUSPEND, Status.IN_PROGRESS, "Stack SUSPEND started", now
                )
            ],
            resources=[
                replace(records["val"], action=Action.SUSPEND, status=Status.COMPLETE),
                replace(records["none"], action=Action.SUSPEND, status=Status.IN_PROGRESS),
            ],
        )
    )
    with pytest.raises(OperationRefused, match="stack recover top"):
        asyncio.run(engine.resume("top"))
    result = asyncio.run(engine.recover("top"))
    assert (result.action, result.status) == (Action.SUSPEND, Status.COMPLETE), result.status_reason
    visited = [
        e.resource_name
        for e in store.events(top.id)
        if e.action is Action.SUSPEND and e.status is Status.COMPLETE
    ]
    assert "val" not in visited and "none" in visited and "rand" in visited


def test_nested_stacks_act_through_their_parent(engine, store, top):
    child = child_of(store, top)
    for run in (engine.check_stack, engine.suspend, engine.resume):
        with pytest.raises(OperationRefused, match="owned by resource nest of stack top"):
            asyncio.run(run(child.name))


def test_cancel_refuses_what_heat_refuses(engine, store, top):
    with pytest.raises(OperationRefused) as refused:
        asyncio.run(engine.cancel("top", rollback=True))
    assert str(refused.value) == "Cancelling update when stack is CREATE_COMPLETE is not supported."
    # a create whose process died has nothing running to cancel
    store.write(
        WriteBatch(
            stacks=[StackStatus(top.id, Action.CREATE, Status.IN_PROGRESS, "x", top.created_at)]
        )
    )
    with pytest.raises(
        OperationRefused, match="Cancelling update when stack is CREATE_IN_PROGRESS"
    ):
        asyncio.run(engine.cancel("top", rollback=True))
    with pytest.raises(OperationRefused, match="stack recover top"):
        asyncio.run(engine.cancel("top", rollback=False))


#: what Heat 24.1.2 did when a create was cancelled (tests/fidelity/actions/record.py,
#: its legacy engine: the refusal and the resources left)
HEAT_CANCEL = json.loads(
    (Path(__file__).parents[1] / "fidelity" / "actions" / "recording.json").read_text()
)["_cancel_create"]
#: the same from Heat's convergence engine, which stoker follows (the update suite's
#: cancel/create_cancelled_*: the create's reason; with rollback enabled, no rollback)
CONVERGENCE_CANCEL = json.loads(
    (Path(__file__).parents[1] / "fidelity" / "updates" / "recordings" / "cancel.json").read_text()
)["create_cancelled_rollback_enabled"]["convergence"]

CHAIN = """
heat_template_version: wallaby
resources:
  a: {type: OS::Heat::TestResource, properties: {value: a}}
  b: {type: OS::Heat::TestResource, depends_on: [a], properties: {value: b}}
  c: {type: OS::Heat::TestResource, depends_on: [b], properties: {value: c}}
  d: {type: OS::Heat::TestResource, depends_on: [c], properties: {value: d}}
"""


@pytest.mark.parametrize("rollback", [False, True], ids=["disable-rollback", "enable-rollback"])
def test_cancel_stops_a_create_running_in_another_process(tmp_path, store, store_url, rollback):
    """The create stops itself (SIGSTOP) once b's IN_PROGRESS is committed; the test asks
    for the cancel and continues it: b finishes, c and d never start (Heat 24.1.2 does the
    same: tests/fidelity/actions/recording.json), and with rollback enabled the create is
    not rolled back either (Heat's convergence engine stops its traversal)."""
    path = tmp_path / "chain.yaml"
    path.write_text(textwrap.dedent(CHAIN))
    args = ["create", "c1", "-t", str(path)] + (["--enable-rollback"] if rollback else [])
    child = subprocess.Popen(
        [sys.executable, "-m", "stoker", "--db", store_url, "stack", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, ENV: "before_handler:2"},
    )
    try:
        _, status = os.waitpid(child.pid, os.WUNTRACED)
        assert os.WIFSTOPPED(status), "the create ended before it reached b"
        engine = StackEngine(store, default_registry(), EngineSettings())
        with pytest.raises(OperationRefused) as refused:
            asyncio.run(engine.cancel("c1", rollback=True))
        assert str(refused.value) == HEAT_CANCEL["cancel_update"]["message"]
        asyncio.run(engine.cancel("c1", rollback=False))
        os.kill(child.pid, signal.SIGCONT)
        _, stderr = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 1, stderr
    stack = store.get_stack("c1", "default") or next(
        s for s in store.list_stacks("default", include_deleted=True) if s.name == "c1"
    )
    events = [(e.resource_name, e.action.value, e.status.value) for e in store.events(stack.id)]
    assert ("b", "CREATE", "COMPLETE") in events
    assert not any(name in ("c", "d") for name, *_ in events if _[0] == "CREATE")
    assert ("c1", "CREATE", "FAILED") in events
    failed = [
        e for e in store.events(stack.id) if e.resource_name == "c1" and e.status is Status.FAILED
    ]
    assert failed[0].reason == CONVERGENCE_CANCEL["create_reason"]
    assert f"{stack.action.value}_{stack.status.value}" == CONVERGENCE_CANCEL["create_status"]
    got = states(store, stack.id)
    # as Heat left its resource that never started ("after")
    assert [*got["c"][:2]] == HEAT_CANCEL["resources"]["after"][0].split("_")
    assert got["d"] == got["c"] and got["c"][2] == HEAT_CANCEL["resources"]["after"][1]
    assert store.lease(stack.id) is None  # released: the stack is free for update/delete


def test_a_killed_suspend_is_recovered_without_suspending_anything_twice(
    tmp_path, engine, store, store_url
):
    """A real `stoker stack suspend` kills itself (SIGKILL, `engine/crash_hook.py`) after
    its 5th commit: a chain of 6 needs at least 13 (the stack's start, then IN_PROGRESS and
    COMPLETE per resource, one after the other), so the death lands mid-walk."""
    from stoker.engine.crash_hook import ENV_VAR

    lines = ["heat_template_version: wallaby", "resources:"]
    for index in range(6):
        after = f", depends_on: [r{index - 1}]" if index else ""
        lines.append(
            f"  r{index}: {{type: OS::Heat::TestResource, properties: {{value: v}}{after}}}"
        )
    path = tmp_path / "chain.yaml"
    path.write_text("\n".join(lines) + "\n")
    assert create(engine, path, "k").status is Status.COMPLETE
    killed = subprocess.run(
        [sys.executable, "-m", "stoker", "--db", store_url, "stack", "suspend", "k"],
        capture_output=True,
        text=True,
        env={**os.environ, ENV_VAR: "5"},
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    stack = store.get_stack("k", "default")
    assert (stack.action, stack.status) == (Action.SUSPEND, Status.IN_PROGRESS)
    with pytest.raises(OperationRefused, match="stack recover k"):
        asyncio.run(engine.resume("k"))
    stack = asyncio.run(engine.recover("k"))
    assert (stack.action, stack.status) == (Action.SUSPEND, Status.COMPLETE)
    done = [
        e.resource_name
        for e in store.events(stack.id)
        if e.action is Action.SUSPEND and e.status is Status.COMPLETE and e.resource_name != "k"
    ]
    assert done == [f"r{i}" for i in reversed(range(6))]  # each once, dependents first


def test_a_killed_snapshot_is_finished_by_recover(tmp_path, engine, store, store_url):
    """`stoker stack snapshot create` dies (SIGKILL) after its 3rd commit, mid-walk; recover
    finishes the walk and stores the snapshot it was taking."""
    from stoker.engine.crash_hook import ENV_VAR

    path = tmp_path / "t.yaml"
    path.write_text(textwrap.dedent(TEMPLATE))
    record = create(engine, path, "snap")
    killed = subprocess.run(
        [sys.executable, "-m", "stoker", "--db", store_url, "stack", "snapshot", "create", "snap"],
        capture_output=True,
        text=True,
        env={**os.environ, ENV_VAR: "3"},
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    (taken,) = store.snapshots(record.id)
    assert taken.status == "IN_PROGRESS" and taken.data is None
    result = asyncio.run(engine.recover("snap"))
    assert (result.action, result.status) == (Action.SNAPSHOT, Status.COMPLETE)
    (taken,) = asyncio.run(engine.snapshots("snap"))
    assert taken.status == "COMPLETE" and taken.data is not None
    rand = {r.name: r for r in store.resources(record.id)}["rand"]
    assert taken.data["resources"]["rand"]["resource_data"]["value"] == rand.data["value"]


def test_an_interrupted_adopt_is_not_recovered_but_can_be_abandoned(engine, store, top):

    store.write(
        WriteBatch(
            stacks=[StackStatus(top.id, Action.ADOPT, Status.IN_PROGRESS, "x", top.created_at)]
        )
    )
    with pytest.raises(OperationRefused, match="cannot be continued: `stack abandon top`"):
        asyncio.run(engine.recover("top"))
    asyncio.run(engine.abandon("top"))
    assert store.get_stack("top", "default") is None


def test_check_leaves_resources_never_created_as_heat_does(engine, store, tmp_path):
    path = tmp_path / "f.yaml"
    path.write_text(
        textwrap.dedent(
            """
            heat_template_version: 2018-08-31
            resources:
              bad: {type: OS::Heat::TestResource, properties: {fail: true}}
              never: {type: OS::Heat::None, depends_on: bad}
              nest:
                type: OS::Heat::Stack
                depends_on: bad
                properties:
                  template: "heat_template_version: 2018-08-31"
            """
        )
    )
    record = create(engine, path, "failed")
    assert record.status is Status.FAILED
    result = asyncio.run(engine.check_stack("failed"))
    assert (result.action, result.status) == (Action.CHECK, Status.FAILED)
    assert result.status_reason.startswith("Resource CHECK failed: ")
    assert "Resource nest not created yet." in result.status_reason
    got = states(store, record.id)
    assert got["never"] == ("INIT", "COMPLETE", "")  # untouched: no type could check it
    assert got["nest"] == ("CHECK", "FAILED", "Can not check nest, resource not created yet.")
    assert got["bad"] == ("CHECK", "COMPLETE", "CHECK not supported for OS::Heat::TestResource")
