"""Stack update end to end on a real store (SQLite and PostgreSQL) with the cloud-free
types: each kind of change, the order of replacements, refusals, failure and rollback."""

from __future__ import annotations

import asyncio
import textwrap

import pytest

from stoker.definition.stack import StackDefinition, define_stack
from stoker.definition.template_parser import parse_template
from stoker.engine.plan import Change
from stoker.engine.settings import EngineSettings
from stoker.engine.stacks import CreateRequest, OperationRefused, StackEngine, UpdateRequest
from stoker.engine.state import EventRecord
from stoker.environment import environment_from_data, merge_environments
from stoker.resources.registry import default_registry
from stoker.template.loader import load_document
from stoker.template.nodes import plain


def definition(
    text: str, parameters: dict | None = None, env: dict | None = None
) -> StackDefinition:
    template = parse_template(load_document(textwrap.dedent(text), "t.yaml"))
    environments = []
    if env is not None:
        loaded, _ = environment_from_data(env, "env.yaml")
        environments.append(loaded)
    environment, found = merge_environments(
        environments,
        explicit_parameters=parameters or {},
        template_parameter_names=set(template.parameters),
    )
    assert not [d for d in found if d.is_error]
    result = define_stack(template, environment, {}, require_all_parameters=True, stack_name="s")
    assert result.errors == [], [d.render() for d in result.errors]
    return result


def create_request(text: str, **options) -> CreateRequest:
    found = definition(text, options.pop("parameters", None))
    return CreateRequest(
        name="s",
        definition=found,
        template=plain(found.template.document.data),
        environment=found.environment.to_data(),
        **options,
    )


def update_request(
    text: str, parameters: dict | None = None, env: dict | None = None, **options
) -> UpdateRequest:
    found = definition(text, parameters, env)
    return UpdateRequest(
        definition=found,
        template=plain(found.template.document.data),
        environment=found.environment.to_data(),
        parameters=dict(parameters or {}),
        **options,
    )


@pytest.fixture
def events() -> list[EventRecord]:
    return []


@pytest.fixture
def engine(store, events) -> StackEngine:
    return StackEngine(store, default_registry(), EngineSettings(), listener=events.append)


def run(coroutine):
    return asyncio.run(coroutine)


def states(store, stack_id) -> dict[str, str]:
    return {r.name: f"{r.action.value}_{r.status.value}" for r in store.resources(stack_id)}


def physical(store, stack_id) -> dict[str, str | None]:
    return {r.name: r.physical_id for r in store.resources(stack_id)}


def resource_events(events, after: int = 0) -> list[tuple[str, str]]:
    return [
        (e.resource_name, f"{e.action.value}_{e.status.value}")
        for e in events[after:]
        if e.resource_type != "OS::Heat::Stack"
    ]


BEFORE = """
heat_template_version: "2021-04-16"
resources:
  v: {type: OS::Heat::Value, properties: {value: one}}
  r: {type: OS::Heat::RandomString, properties: {length: 8}}
  t: {type: OS::Heat::TestResource, properties: {value: x, update_replace: true}}
  u: {type: OS::Heat::TestResource, properties: {value: x}}
  n: {type: OS::Heat::None, properties: {a: 1}}
  same: {type: OS::Heat::TestResource, properties: {value: s}}
  gone: {type: OS::Heat::None}
"""

AFTER = """
heat_template_version: "2021-04-16"
resources:
  v: {type: OS::Heat::Value, properties: {value: two}}
  r: {type: OS::Heat::RandomString, properties: {length: 10}}
  t: {type: OS::Heat::TestResource, properties: {value: y, update_replace: true}}
  u: {type: OS::Heat::TestResource, properties: {value: y}}
  n: {type: OS::Heat::None, properties: {a: 2}}
  same: {type: OS::Heat::TestResource, properties: {value: s}}
  new: {type: OS::Heat::None}
"""


def test_plan_names_each_kind_with_its_reason(engine, store):
    stack = run(engine.create(create_request(BEFORE)))
    plan = run(engine.preview_update("s", update_request(AFTER)))
    assert plan.changes() == {
        "unchanged": ["n", "same"],
        "updated": ["v", "u"],
        "replaced": ["r", "t"],
        "added": ["new"],
        "deleted": ["gone"],
    }
    reasons = {d.name: d.reason for d in plan.decisions.values()}
    assert reasons["r"] == "length cannot be updated in place (not update_allowed)"
    assert reasons["t"] == "OS::Heat::TestResource needs a new resource"
    assert reasons["v"] == "changed in place: value"
    assert reasons["n"] == "OS::Heat::None never updates"
    assert reasons["gone"] == "not in the new template"
    assert states(store, stack.id)["v"] == "CREATE_COMPLETE"  # a preview changes nothing


def test_update_applies_each_kind(engine, store, events):
    stack = run(engine.create(create_request(BEFORE)))
    before = physical(store, stack.id)
    old_value = store.resources(stack.id)
    old_random = next(r for r in old_value if r.name == "r").data
    mark = len(events)
    result = run(engine.update("s", update_request(AFTER)))
    assert (result.action.value, result.status.value) == ("UPDATE", "COMPLETE")
    assert result.status_reason == "Stack UPDATE completed successfully"
    after = physical(store, stack.id)
    assert states(store, stack.id) == {
        "v": "UPDATE_COMPLETE",
        "r": "CREATE_COMPLETE",
        "t": "CREATE_COMPLETE",
        "u": "UPDATE_COMPLETE",
        "n": "CREATE_COMPLETE",
        "same": "CREATE_COMPLETE",
        "new": "CREATE_COMPLETE",
    }
    assert after["v"] == before["v"] and after["u"] == before["u"] and after["n"] == before["n"]
    assert after["r"] != before["r"] and after["t"] != before["t"]
    records = {r.name: r for r in store.resources(stack.id)}
    assert len(records["r"].data["value"]) == 10 != len(old_random["value"])
    assert records["v"].properties["value"] == "two"
    assert records["n"].properties == {"a": 2}  # None never updates, but follows silently
    assert all("stoker:replaced" not in r.data for r in records.values())
    seen = resource_events(events, mark)
    assert ("same", "UPDATE_IN_PROGRESS") not in seen and ("n", "UPDATE_IN_PROGRESS") not in seen
    # create-new-before-delete-old: the old r is deleted only after the new one is complete
    r_events = [s for n, s in seen if n == "r"]
    assert r_events == [
        "UPDATE_IN_PROGRESS",
        "UPDATE_COMPLETE",
        "CREATE_IN_PROGRESS",
        "CREATE_COMPLETE",
        "DELETE_IN_PROGRESS",
        "DELETE_COMPLETE",
    ]
    deletes = [e for e in events[mark:] if e.resource_name == "r" and e.action.value == "DELETE"]
    assert {e.physical_id for e in deletes} == {before["r"]}
    # gone, which nothing stood on, is deleted without waiting for the rest (Heat's
    # convergence engine, engine/cleanup.py)
    assert [s for n, s in seen if n == "gone"] == ["DELETE_IN_PROGRESS", "DELETE_COMPLETE"]
    reasons = [e.reason for e in events[mark:] if e.resource_name == "r"]
    assert "The Resource r requires replacement." in reasons
    t_reason = next(
        e.reason for e in events[mark:] if e.resource_name == "t" and "replacement" in e.reason
    )
    assert t_reason.startswith('The Resource TestResource "t" [') and stack.id in t_reason


def test_dependents_follow_a_replacement(engine, store):
    text = """
    heat_template_version: "2021-04-16"
    parameters:
      n: {type: number, default: 8}
    resources:
      r: {type: OS::Heat::RandomString, properties: {length: {get_param: n}}}
      v: {type: OS::Heat::Value, properties: {value: {get_attr: [r, value]}}}
    """
    stack = run(engine.create(create_request(text)))
    plan = run(engine.preview_update("s", update_request(text, {"n": "12"})))
    assert plan.decisions["v"].change is Change.UPDATE
    assert plan.decisions["v"].reason.startswith("reads r, which is replaced")
    exact = run(engine.preview_update("s", update_request(text, {"n": "12"}), heat_view=False))
    assert exact.decisions["v"].change is Change.UPDATE
    assert exact.decisions["v"].reason.startswith("reads r, which is replaced")
    result = run(engine.update("s", update_request(text, {"n": "12"})))
    assert result.status.value == "COMPLETE"
    records = {r.name: r for r in store.resources(stack.id)}
    assert len(records["v"].properties["value"]) == 12
    assert records["v"].properties["value"] == records["r"].data["value"]
    assert states(store, stack.id)["v"] == "UPDATE_COMPLETE"


def test_readers_are_previewed_as_heat_lists_them_and_left_alone(engine, store):
    """Heat's preview lists every resource that reads another as updated (or replaced),
    since it previews against a stack where nothing exists yet; the update decides with
    the values (recorded: tests/fidelity/updates, area preview)."""
    template = """
    heat_template_version: "2021-04-16"
    resources:
      a: {type: OS::Heat::Value, properties: {value: {x: 1, y: %s}}}
      b: {type: OS::Heat::Value, properties: {value: {get_attr: [a, value, x]}}}
      r: {type: OS::Heat::RandomString, properties: {salt: {get_attr: [b, value]}}}
      u: {type: OS::Heat::Value, properties: {value: {get_attr: [r, value]}}}
      d: {type: OS::Heat::TestResource, properties: {value: d}, depends_on: a}
      t: {type: OS::Heat::TestResource, properties: {value: {get_resource: d}}}
    """
    env = {"resource_registry": {"resources": {"t": {"restricted_actions": ["update"]}}}}
    stack = run(engine.create(create_request(template % 1)))
    before = physical(store, stack.id)
    plan = run(engine.preview_update("s", update_request(template % 2, env=env)))
    assert plan.changes() == {
        "unchanged": ["d"],
        "updated": ["a", "b", "u", "t"],
        "replaced": ["r"],
        "added": [],
        "deleted": [],
    }
    assert plan.decisions["b"].reason.startswith("reads a, whose values Heat's preview")
    # r is listed replaced as Heat lists it, not replaced: what u reads may hold
    assert plan.decisions["u"].reason.startswith("reads r, whose values Heat's preview")
    assert plan.decisions["t"].refusal is None  # nothing it reads changes
    # what the update will do (a repair's preview, which Heat has none of): only a changes
    # (b reads the part of a that holds)
    exact = run(engine.preview_update("s", update_request(template % 2), heat_view=False))
    assert exact.changes()["updated"] == ["a"] and exact.changes()["replaced"] == []
    result = run(engine.update("s", update_request(template % 2, env=env)))
    assert result.status.value == "COMPLETE", result.status_reason
    assert physical(store, stack.id) == before
    assert states(store, stack.id) == {
        "a": "UPDATE_COMPLETE",
        "b": "CREATE_COMPLETE",
        "r": "CREATE_COMPLETE",
        "u": "CREATE_COMPLETE",
        "d": "CREATE_COMPLETE",
        "t": "CREATE_COMPLETE",
    }


def test_resources_a_failed_create_never_reached_are_previewed_by_their_definition(engine, store):
    """Heat's preview lists a resource a failed create never reached (INIT) as unchanged
    when its definition is the same, else updated; the update creates it either way."""
    template = """
    heat_template_version: "2021-04-16"
    parameters:
      p: {type: string, default: a}
    resources:
      bad: {type: OS::Heat::TestResource, properties: {value: x, fail: %s}}
      same: {type: OS::Heat::Value, properties: {value: {get_attr: [bad, output]}}}
      changed: {type: OS::Heat::Value, properties: {value: %s}, depends_on: bad}
      by_param: {type: OS::Heat::Value, properties: {value: {get_param: p}}, depends_on: bad}
    """
    stack = run(engine.create(create_request(template % ("true", "one"))))
    assert stack.status.value == "FAILED"
    after = update_request(template % ("false", "two"), {"p": "b"})
    plan = run(engine.preview_update("s", after))
    assert plan.changes()["unchanged"] == ["same"]
    assert sorted(plan.changes()["updated"]) == ["by_param", "changed"]
    assert plan.changes()["replaced"] == ["bad"] and plan.changes()["added"] == []
    assert plan.decisions["same"].reason.startswith("never created")
    result = run(engine.update("s", after))
    assert result.status.value == "COMPLETE", result.status_reason
    assert set(states(store, stack.id).values()) == {"CREATE_COMPLETE"}


def test_a_change_of_depends_on_or_deletion_policy_alone_updates_in_place(engine, store):
    template = """
    heat_template_version: "2021-04-16"
    resources:
      a: {type: OS::Heat::Value, properties: {value: A}}
      c: {type: OS::Heat::Value, properties: {value: C}}
      b: {type: OS::Heat::TestResource, properties: {value: b}, depends_on: %s}
      n: {type: OS::Heat::None, depends_on: %s}
      p: {type: OS::Heat::TestResource, properties: {value: p}, deletion_policy: %s}
    """
    stack = run(engine.create(create_request(template % ("a", "a", "Delete"))))
    after = template % ("[c]", "c", "Retain")
    plan = run(engine.preview_update("s", update_request(after)))
    assert plan.changes()["updated"] == ["b", "p"]
    assert plan.changes()["unchanged"] == ["a", "c", "n"]  # None never updates
    result = run(engine.update("s", update_request(after)))
    assert result.status.value == "COMPLETE", result.status_reason
    assert states(store, stack.id)["b"] == states(store, stack.id)["p"] == "UPDATE_COMPLETE"
    assert states(store, stack.id)["n"] == "CREATE_COMPLETE"
    same = run(engine.preview_update("s", update_request(template % ("c", "[c]", "Retain"))))
    assert same.changes()["updated"] == []  # a name and a list of that name are the same


def test_type_change_and_failed_resources_are_replaced(engine, store):
    before = """
    heat_template_version: "2021-04-16"
    resources:
      a: {type: OS::Heat::None}
      bad: {type: OS::Heat::TestResource, properties: {value: x, fail: true}}
    """
    after = """
    heat_template_version: "2021-04-16"
    resources:
      a: {type: OS::Heat::TestResource}
      bad: {type: OS::Heat::TestResource, properties: {value: x}}
    """
    stack = run(engine.create(create_request(before)))
    assert stack.status.value == "FAILED"
    plan = run(engine.preview_update("s", update_request(after)))
    assert {d.name: (d.change, d.reason) for d in plan.decisions.values()} == {
        "a": (Change.REPLACE, "type changed from OS::Heat::None to OS::Heat::TestResource"),
        "bad": (Change.REPLACE, "the resource is CREATE_FAILED"),
    }
    result = run(engine.update("s", update_request(after)))
    assert (result.action.value, result.status.value) == ("UPDATE", "COMPLETE")
    assert states(store, stack.id) == {"a": "CREATE_COMPLETE", "bad": "CREATE_COMPLETE"}


def test_immutable_parameter_is_refused_before_any_work(engine, store):
    text = """
    heat_template_version: "2021-04-16"
    parameters:
      p: {type: string, default: a, immutable: true}
    resources:
      a: {type: OS::Heat::Value, properties: {value: {get_param: p}}}
    """
    stack = run(engine.create(create_request(text)))
    with pytest.raises(OperationRefused, match="immutable and may not be updated: p"):
        run(engine.update("s", update_request(text, {"p": "b"})))
    again = store.get_stack(stack.id, stack.project)
    assert (again.action.value, again.status.value) == ("CREATE", "COMPLETE")
    assert store.previous_definition(stack.id) is None


@pytest.mark.parametrize(
    ("rule", "after_props", "message"),
    [
        ("update", "{value: y}", "update is restricted for resource."),
        ("replace", "{value: y, update_replace: true}", "replace is restricted for resource."),
    ],
)
def test_restricted_actions_fail_the_update(engine, store, events, rule, after_props, message):
    before = """
    heat_template_version: "2021-04-16"
    resources:
      a: {type: OS::Heat::TestResource, properties: {value: x}}
    """
    after = f"""
    heat_template_version: "2021-04-16"
    resources:
      a: {{type: OS::Heat::TestResource, properties: {after_props}}}
    """
    stack = run(engine.create(create_request(before)))
    old = physical(store, stack.id)["a"]
    env = {"resource_registry": {"resources": {"a": {"restricted_actions": rule}}}}
    mark = len(events)
    result = run(engine.update("s", update_request(after, env=env)))
    assert (result.action.value, result.status.value) == ("UPDATE", "FAILED")
    assert result.status_reason == (
        f"Resource UPDATE failed: ResourceActionRestricted: resources.a: {message}"
    )
    assert resource_events(events, mark) == [("a", "UPDATE_FAILED")]
    assert events[-2].reason == message
    assert states(store, stack.id) == {"a": "CREATE_COMPLETE"}
    assert physical(store, stack.id)["a"] == old


ROLLBACK_BEFORE = """
heat_template_version: "2021-04-16"
resources:
  a: {type: OS::Heat::RandomString, properties: {length: 8}}
  b: {type: OS::Heat::TestResource, properties: {value: x}, depends_on: a}
"""
ROLLBACK_AFTER = """
heat_template_version: "2021-04-16"
resources:
  a: {type: OS::Heat::RandomString, properties: {length: 9}}
  b: {type: OS::Heat::TestResource, properties: {value: y, fail: true}, depends_on: a}
  c: {type: OS::Heat::Value, properties: {value: added}}
"""


def test_failure_without_rollback_is_update_failed(engine, store):
    stack = run(engine.create(create_request(ROLLBACK_BEFORE)))
    result = run(engine.update("s", update_request(ROLLBACK_AFTER)))
    assert (result.action.value, result.status.value) == ("UPDATE", "FAILED")
    assert result.status_reason == (
        "Resource UPDATE failed: ValueError: resources.b: Test Resource failed b"
    )
    assert states(store, stack.id)["b"] == "UPDATE_FAILED"
    # the stack runs from the new definition; the previous one is kept
    assert store.get_stack(stack.id, stack.project).template["resources"]["c"]
    assert "c" not in store.previous_definition(stack.id).template["resources"]


def test_failure_rolls_back_and_swaps_the_old_resource_back(engine, store, events):
    stack = run(engine.create(create_request(ROLLBACK_BEFORE)))
    before = {r.name: r for r in store.resources(stack.id)}
    result = run(engine.update("s", update_request(ROLLBACK_AFTER, disable_rollback=False)))
    assert (result.action.value, result.status.value) == ("ROLLBACK", "COMPLETE")
    assert result.status_reason == "Stack ROLLBACK completed successfully"
    after = {r.name: r for r in store.resources(stack.id)}
    assert set(after) == {"a", "b"}  # c, added by the update, is gone again
    assert after["a"].physical_id == before["a"].physical_id  # swapped back, not re-created
    assert after["a"].data["value"] == before["a"].data["value"]
    assert after["b"].properties["value"] == "x"
    assert after["b"].status.value == "COMPLETE"
    current = store.get_stack(stack.id, stack.project)
    assert "c" not in current.template["resources"]
    stack_events = [e.reason for e in events if e.resource_type == "OS::Heat::Stack"]
    assert stack_events[-4:] == [
        "Stack UPDATE started",
        "Resource UPDATE failed: ValueError: resources.b: Test Resource failed b",
        "Stack ROLLBACK started",
        "Stack ROLLBACK completed successfully",
    ]


def test_a_replaced_resource_nothing_needed_is_gone_before_the_failure(engine, store):
    """As Heat's convergence engine (tests/fidelity/updates, basics/fail_rollback): the
    old RandomString, which nothing required before the update, is deleted as soon as its
    replacement exists; the rollback then makes a third one (a new value)."""
    before_text = ROLLBACK_BEFORE.replace(", depends_on: a}", "}")
    stack = run(engine.create(create_request(before_text)))
    before = {r.name: r for r in store.resources(stack.id)}
    result = run(engine.update("s", update_request(ROLLBACK_AFTER, disable_rollback=False)))
    assert (result.action.value, result.status.value) == ("ROLLBACK", "COMPLETE")
    after = {r.name: r for r in store.resources(stack.id)}
    assert after["a"].physical_id != before["a"].physical_id
    assert len(after["a"].data["value"]) == 8
    assert "stoker:replaced" not in after["a"].data


def test_update_of_an_update_failed_stack(engine, store):
    stack = run(engine.create(create_request(ROLLBACK_BEFORE)))
    run(engine.update("s", update_request(ROLLBACK_AFTER)))
    fixed = ROLLBACK_AFTER.replace("value: y, fail: true", "value: z")
    result = run(engine.update("s", update_request(fixed)))
    assert (result.action.value, result.status.value) == ("UPDATE", "COMPLETE")
    records = {r.name: r for r in store.resources(stack.id)}
    assert records["b"].properties["value"] == "z"
    assert all("stoker:replaced" not in r.data for r in records.values())
    assert len(records["a"].data["value"]) == 9


def test_updating_an_in_progress_or_missing_stack_is_refused(engine):
    with pytest.raises(Exception, match="could not be found"):
        run(engine.update("nothing", update_request(ROLLBACK_BEFORE)))


def test_test_resource_waits_its_update_seconds(store):
    """The engine's waits are recorded (the sleep it is handed), not timed."""
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        await asyncio.sleep(0)

    engine = StackEngine(store, default_registry(), EngineSettings(), sleep=sleep)
    before = """
    heat_template_version: "2021-04-16"
    resources:
      a: {type: OS::Heat::TestResource, properties: {value: x, action_wait_secs: {update: 30}}}
    """
    run(engine.create(create_request(before)))
    assert slept == []  # no wait given for a create
    result = run(engine.update("s", update_request(before.replace("value: x", "value: y"))))
    assert result.status.value == "COMPLETE"
    assert slept == [30]


NESTED = """
heat_template_version: "2021-04-16"
resources:
  inner:
    type: OS::Heat::Stack
    properties:
      parameters: {given: VALUE}
      template: |
        heat_template_version: 2021-04-16
        parameters:
          given: {type: string}
        resources:
          t: {type: OS::Heat::TestResource, properties: {value: {get_param: given}}}
        outputs:
          back: {value: {get_attr: [t, output]}}
outputs:
  back: {value: {get_attr: [inner, outputs, back]}}
"""


def test_nested_stacks_survive_updates_around_them_and_update_in_place(engine, store):
    stack = run(engine.create(create_request(NESTED.replace("VALUE", "one"))))
    child = store.resources(stack.id)[0].physical_id
    added = NESTED.replace("outputs:\n  back", "  extra: {type: OS::Heat::None}\noutputs:\n  back")
    result = run(engine.update("s", update_request(added.replace("VALUE", "one"))))
    assert result.status.value == "COMPLETE", result.status_reason
    assert {r.name: r.physical_id for r in store.resources(stack.id)}["inner"] == child
    outputs = {o["output_key"]: o.get("output_value") for o in engine.outputs(result)}
    assert outputs["back"] == "one"
    inner_before = store.resources(child)[0]
    changed = run(engine.update("s", update_request(added.replace("VALUE", "two"))))
    assert (changed.action.value, changed.status.value) == ("UPDATE", "COMPLETE")
    assert {r.name: r.physical_id for r in store.resources(stack.id)}["inner"] == child
    inner_after = store.resources(child)[0]
    # the child's own resource was updated in place (same physical resource, new value)
    assert inner_after.physical_id == inner_before.physical_id
    assert (inner_after.action.value, inner_after.status.value) == ("UPDATE", "COMPLETE")
    outputs = {o["output_key"]: o.get("output_value") for o in engine.outputs(changed)}
    assert outputs["back"] == "two"


def test_an_update_that_runs_out_of_time_fails(store, virtual_time):
    settings = EngineSettings(default_timeout_seconds=0.5)
    engine = StackEngine(
        store, default_registry(), settings, sleep=virtual_time.wait, clock=virtual_time
    )
    before = """
    heat_template_version: "2021-04-16"
    resources:
      a: {type: OS::Heat::TestResource, properties: {value: x}}
    """
    run(engine.create(create_request(before)))
    slow = before.replace("value: x", "value: y, action_wait_secs: {update: 30}")
    result = run(engine.update("s", update_request(slow)))
    assert (result.action.value, result.status.value, result.status_reason) == (
        "UPDATE",
        "FAILED",
        "Timed out",
    )
    assert states(store, result.id) == {"a": "UPDATE_FAILED"}


PSEUDO = """
heat_template_version: "2021-04-16"
parameters:
  word: {type: string, default: one}
resources:
  NAME: {type: OS::Heat::Value, properties: {value: {get_param: OS::stack_id}}}
outputs:
  id: {value: {get_param: OS::stack_id}}
  word: {value: {get_param: word}}
"""


def test_an_update_knows_the_stack_and_shows_what_it_stored(engine, store):
    """A resource the update adds resolves the stack's pseudo-parameters, and the stack's
    outputs after the update are those of the definition it stored, in this engine (which
    keeps the update's definition) as in a new one (which rebuilds it from the store)."""
    stack = run(engine.create(create_request(PSEUDO.replace("NAME", "a"))))
    new = update_request(PSEUDO.replace("NAME", "b"), parameters={"word": "two"})
    result = run(engine.update("s", new))
    assert (result.action.value, result.status.value) == ("UPDATE", "COMPLETE")
    records = {r.name: r for r in store.resources(stack.id)}
    assert set(records) == {"b"} and records["b"].properties["value"] == stack.id
    fresh = StackEngine(store, default_registry(), EngineSettings())
    for reader in (engine, fresh):
        outputs = {o["output_key"]: o["output_value"] for o in reader.outputs(result)}
        assert outputs == {"id": stack.id, "word": "two"}
        assert reader.definition_of(result).parameters["word"] == "two"


REMOVING_BEFORE = """
heat_template_version: "2021-04-16"
resources:
  gone: {type: OS::Heat::TestResource, properties: {value: g}}
  kept: {type: OS::Heat::TestResource, properties: {value: k}}
  k: {type: OS::Heat::TestResource, properties: {value: x}, depends_on: kept}
"""
REMOVING_AFTER = """
heat_template_version: "2021-04-16"
resources:
  k: {type: OS::Heat::TestResource, properties: {value: y, fail: true}}
"""


def test_a_failed_update_leaves_deleted_what_nothing_needed(engine, store):
    """As Heat's convergence engine (tests/fidelity/updates, failures/remove_and_add_*,
    removed_required_by_failing_*): a removed resource nothing stood on is deleted at once,
    one the failing resource stood on before the update is kept."""
    stack = run(engine.create(create_request(REMOVING_BEFORE)))
    result = run(engine.update("s", update_request(REMOVING_AFTER)))
    assert (result.action.value, result.status.value) == ("UPDATE", "FAILED")
    assert states(store, stack.id) == {"kept": "CREATE_COMPLETE", "k": "UPDATE_FAILED"}


def test_the_rollback_makes_again_what_the_failed_update_deleted(engine, store):
    stack = run(engine.create(create_request(REMOVING_BEFORE)))
    before = physical(store, stack.id)
    result = run(engine.update("s", update_request(REMOVING_AFTER, disable_rollback=False)))
    assert (result.action.value, result.status.value) == ("ROLLBACK", "COMPLETE")
    after = physical(store, stack.id)
    assert set(after) == {"gone", "kept", "k"}
    assert after["kept"] == before["kept"]  # never deleted
    assert after["gone"] != before["gone"]  # deleted by the update, made again
