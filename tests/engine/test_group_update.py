"""ResourceGroup updates: Heat's batch arithmetic (heat/scaling/rolling_update.py and
resource_group.py's _get_batches, checked against the batches Heat 24.1.2 ran in
tests/fidelity/update_nested), names never reused, removal by reference id, pauses."""

from __future__ import annotations

import asyncio

import pytest
from test_update import create_request, run, update_request

from stoker.engine import rolling
from stoker.engine.settings import EngineSettings
from stoker.engine.stacks import StackEngine
from stoker.errors import ResourceFailure
from stoker.resources.registry import default_registry


@pytest.fixture
def engine(store) -> StackEngine:
    return StackEngine(store, default_registry(), EngineSettings())


@pytest.mark.parametrize(
    ("target", "current", "batch", "keep", "expected"),
    [
        # group_rolling in tests/fidelity/update_nested: grows to 5, shrinks back to 4
        (4, 4, 2, 3, [(5, 2), (5, 2), (4, 1)]),
        # group_rolling_one: one member at a time
        (3, 3, 1, 0, [(3, 1), (3, 1), (3, 1)]),
        # group_batch_create: batches of 2 from nothing
        (5, 0, 2, 0, [(2, 2), (4, 2), (5, 1)]),
        # rolling100 of benchmarks/update.py: 10 batches of 10, never above 100
        (100, 100, 10, 0, [(100, 10)] * 10),
        # a resize down with the definition changed: the last batch is the target
        (2, 4, 2, 0, [(2, 2)]),
    ],
)
def test_batches_follow_heats_arithmetic(target, current, batch, keep, expected):
    assert rolling.batches(target, current, batch, keep) == expected


def test_a_recovered_rolling_update_counts_what_is_done():
    # 3 of 4 members carry the new definition already: one more batch, of one
    assert rolling.batches(4, 4, 2, 0, updated=3) == [(4, 1)]
    assert rolling.batches(4, 4, 2, 0, updated=4) == []


def test_pauses_that_outlast_the_timeout_are_refused():
    rolling.check_timeout(3, 10, 60)
    with pytest.raises(ResourceFailure, match="will result in stack update timeout"):
        rolling.check_timeout(7, 10, 60)
    with pytest.raises(ResourceFailure, match="pause_time"):
        rolling.policy_of({"rolling_update": {"pause_time": 3601}}, "rolling_update")
    assert rolling.policy_of({}, "rolling_update") is None
    assert rolling.policy_of({"batch_create": {}}, "batch_create") == rolling.BatchPolicy()


GROUP = """
heat_template_version: "2021-04-16"
resources:
  g:
    type: OS::Heat::ResourceGroup
    POLICY
    properties:
      count: COUNT
      REMOVAL
      resource_def: {type: OS::Heat::TestResource, properties: {value: VALUE}}
outputs:
  refs: {value: {get_attr: [g, refs_map]}}
  removed: {value: {get_attr: [g, removed_rsrc_list]}}
"""


def group(count: int, value: str = "v", removal: str = "", policy: str = "") -> str:
    return (
        GROUP.replace("COUNT", str(count))
        .replace("VALUE", value)
        .replace("REMOVAL", removal)
        .replace("POLICY", policy)
    )


def members(store, stack) -> list[str]:
    child = {r.name: r for r in store.resources(stack.id)}["g"].physical_id
    return sorted((r.name for r in store.resources(child)), key=int)


def outputs(engine, stack) -> dict:
    return {o["output_key"]: o.get("output_value") for o in engine.outputs(stack)}


def test_removed_names_are_never_used_again(engine, store):
    stack = run(engine.create(create_request(group(4))))
    refs = outputs(engine, stack)["refs"]
    # remove member 2 by its reference id (as Heat's refs give it), and 0 by its name
    removal = f'removal_policies: [{{resource_list: ["{refs["2"]}", "0"]}}]'
    result = run(engine.update("s", update_request(group(3, removal=removal))))
    assert result.status.value == "COMPLETE", result.status_reason
    assert members(store, stack) == ["1", "3", "4"]
    assert outputs(engine, result)["removed"] == ["0", "2"]
    # the policy is gone from the template: the names stay skipped, the group grows past them
    result = run(engine.update("s", update_request(group(4))))
    assert members(store, stack) == ["1", "3", "4", "5"]
    # mode update starts the list afresh: the names are 0..4 again (5, the highest, goes)
    afresh = "removal_policies: []\n      removal_policies_mode: update"
    result = run(engine.update("s", update_request(group(5, removal=afresh))))
    assert result.status.value == "COMPLETE", result.status_reason
    assert members(store, stack) == ["0", "1", "2", "3", "4"]
    assert outputs(engine, result)["removed"] == []


def test_a_rolling_update_pauses_between_batches(store):
    """The engine's waits are recorded (the sleep it is handed), not timed."""
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        await asyncio.sleep(0)

    engine = StackEngine(store, default_registry(), EngineSettings(), sleep=sleep)
    policy = "update_policy: {rolling_update: {max_batch_size: 1, pause_time: 7}}"
    run(engine.create(create_request(group(3, "a", policy=policy))))
    assert slept == []  # a create is not rolled
    result = run(engine.update("s", update_request(group(3, "b", policy=policy))))
    assert result.status.value == "COMPLETE", result.status_reason
    assert slept == [7, 7]  # three batches, two pauses
    child = {r.name: r for r in store.resources(result.id)}["g"].physical_id
    assert {r.name: r.data["value"] for r in store.resources(child)} == {
        "0": "b",
        "1": "b",
        "2": "b",
    }


ROLLS_BACK = """
heat_template_version: "2021-04-16"
resources:
  g:
    type: OS::Heat::ResourceGroup
    properties:
      count: COUNT
      resource_def: {type: OS::Heat::TestResource, properties: {value: VALUE}}
  s:
    type: OS::Heat::Stack
    properties:
      parameters: {v: VALUE, fail: FAIL}
      template: |
        heat_template_version: 2021-04-16
        parameters:
          v: {type: string}
          fail: {type: boolean}
        resources:
          inner: {type: OS::Heat::TestResource, properties: {value: {get_param: v}}}
          bad:
            type: OS::Heat::TestResource
            depends_on: inner
            properties: {value: {get_param: v}, fail: {get_param: fail}}
"""


def test_a_failed_nested_update_rolls_back_into_the_children(engine, store):
    def text(count: int, value: str, fail: str) -> str:
        return ROLLS_BACK.replace("COUNT", str(count)).replace("VALUE", value).replace("FAIL", fail)

    stack = run(engine.create(create_request(text(2, "one", "false"))))
    changed = text(3, "two", "true")
    result = run(engine.update("s", update_request(changed, disable_rollback=False)))
    assert (result.action.value, result.status.value) == ("ROLLBACK", "COMPLETE")
    top = {r.name: r.physical_id for r in store.resources(stack.id)}
    assert {r.name: r.data["value"] for r in store.resources(top["g"])} == {"0": "one", "1": "one"}
    inner = {r.name: r.data["value"] for r in store.resources(top["s"])}
    assert inner == {"inner": "one", "bad": "one"}
