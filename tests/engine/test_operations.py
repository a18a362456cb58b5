"""Stack operations end to end on a real store (SQLite and PostgreSQL) and real types."""

from __future__ import annotations

import asyncio
import textwrap
from datetime import timedelta

import pytest

from stoker.definition.stack import StackDefinition, define_stack
from stoker.definition.template_parser import parse_template
from stoker.engine.leases import now_utc
from stoker.engine.settings import EngineSettings
from stoker.engine.stacks import CreateRequest, OperationRefused, StackEngine
from stoker.engine.state import Action, EventRecord, Status
from stoker.environment import merge_environments
from stoker.resources.registry import default_registry
from stoker.template.loader import load_document
from stoker.template.nodes import plain


def definition(text: str, name: str = "s", parameters: dict | None = None) -> StackDefinition:
    template = parse_template(load_document(textwrap.dedent(text), "t.yaml"))
    environment, found = merge_environments([], explicit_parameters=parameters or {})
    assert not [d for d in found if d.is_error]
    result = define_stack(template, environment, {}, require_all_parameters=True, stack_name=name)
    assert result.errors == [], [d.render() for d in result.errors]
    return result


def request(text: str, name: str = "s", **options) -> CreateRequest:
    found = definition(text, name, options.pop("parameters", None))
    return CreateRequest(
        name=name,
        definition=found,
        template=plain(found.template.document.data),
        environment=found.environment.to_data(),
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


def statuses(store, stack_id) -> dict[str, str]:
    return {r.name: f"{r.action.value}_{r.status.value}" for r in store.resources(stack_id)}


CHAIN = """
heat_template_version: wallaby
parameters:
  length: {type: number, default: 12}
resources:
  password:
    type: OS::Heat::RandomString
    properties: {length: {get_param: length}}
  value:
    type: OS::Heat::Value
    properties:
      value: {str_replace: {template: "pw=$P", params: {$P: {get_attr: [password, value]}}}}
  marker:
    type: OS::Heat::None
    depends_on: value
outputs:
  rendered: {value: {get_attr: [value, value]}}
  password_id: {value: {get_resource: password}}
  broken: {value: {get_attr: [value, value, nosuch]}}
  missing_attribute: {value: {get_attr: [marker, anything]}}
"""


def test_create_runs_in_dependency_order_and_resolves_outputs(engine, store, events):
    record = run(engine.create(request(CHAIN)))
    assert (record.action, record.status) == (Action.CREATE, Status.COMPLETE)
    assert record.status_reason == "Stack CREATE completed successfully"
    assert set(statuses(store, record.id).values()) == {"CREATE_COMPLETE"}
    # every resource starts only after what it needs has completed
    order = [(e.resource_name, e.status) for e in events if e.resource_type != "OS::Heat::Stack"]
    assert order.index(("password", Status.COMPLETE)) < order.index(("value", Status.IN_PROGRESS))
    assert order.index(("value", Status.COMPLETE)) < order.index(("marker", Status.IN_PROGRESS))
    outputs = {o["output_key"]: o for o in engine.outputs(record)}
    password = outputs["password_id"]["output_value"]
    assert len(password) == 12 and outputs["rendered"]["output_value"] == f"pw={password}"
    # a failed path lookup is null (an index into a string is a character, as in Heat)
    assert outputs["broken"]["output_value"] is None
    assert outputs["missing_attribute"]["output_value"] is None  # None has any attribute
    stored = store.events(record.id)
    assert [(e.resource_name, e.action, e.status) for e in stored][0] == (
        "s",
        Action.CREATE,
        Status.IN_PROGRESS,
    )
    assert stored[-1].reason == "Stack CREATE completed successfully"


FAILING = """
heat_template_version: wallaby
resources:
  ok: {type: OS::Heat::None}
  slow: {type: OS::Heat::TestResource, properties: {wait_secs: 0.3}}
  bad:
    type: OS::Heat::TestResource
    depends_on: ok
    properties: {fail: true}
  after_bad: {type: OS::Heat::None, depends_on: bad}
"""


def test_failure_stops_new_work_and_lets_running_work_finish(engine, store):
    record = run(engine.create(request(FAILING)))
    assert (record.action, record.status) == (Action.CREATE, Status.FAILED)
    assert record.status_reason.startswith("Resource CREATE failed: ")
    assert "resources.bad: Test Resource failed bad" in record.status_reason
    states = statuses(store, record.id)
    assert states["bad"] == "CREATE_FAILED"
    assert states["slow"] == "CREATE_COMPLETE"  # was running: allowed to finish
    assert states["after_bad"] == "INIT_COMPLETE"  # never started


def test_rollback_deletes_what_was_created(engine, store):
    record = run(engine.create(request(FAILING, disable_rollback=False)))
    assert (record.action, record.status) == (Action.ROLLBACK, Status.COMPLETE)
    states = statuses(store, record.id)
    assert states["ok"] == "DELETE_COMPLETE" and states["bad"] == "DELETE_COMPLETE"
    assert states["after_bad"] == "INIT_COMPLETE"


def test_timeout_fails_the_stack(store, events, virtual_time):
    engine = StackEngine(
        store,
        default_registry(),
        EngineSettings(default_timeout_seconds=0.3),
        listener=events.append,
        sleep=virtual_time.wait,
        clock=virtual_time,
    )
    text = """
    heat_template_version: wallaby
    resources:
      waits: {type: OS::Heat::TestResource, properties: {wait_secs: 5}}
      quick: {type: OS::Heat::None}
    """
    record = run(engine.create(request(text)))
    assert (record.status, record.status_reason) == (Status.FAILED, "Create timed out")
    states = statuses(store, record.id)
    assert states["waits"] == "CREATE_FAILED" and states["quick"] == "CREATE_COMPLETE"


def test_a_timeout_never_leaves_a_resource_in_progress(store, no_time):
    """Time up at once: a job stopped while its IN_PROGRESS is being committed records
    its failure on top of it, as one stopped in its handler does."""
    engine = StackEngine(
        store,
        default_registry(),
        EngineSettings(default_timeout_seconds=0.3),
        clock=no_time,
    )
    text = """
    heat_template_version: wallaby
    resources:
      waits: {type: OS::Heat::TestResource, properties: {wait_secs: 5}}
      quick: {type: OS::Heat::None}
    """
    record = run(engine.create(request(text)))
    assert (record.status, record.status_reason) == (Status.FAILED, "Create timed out")
    states = statuses(store, record.id)
    assert states["waits"] == "CREATE_FAILED"
    assert "IN_PROGRESS" not in "".join(states.values())


def test_a_walk_that_times_out_leaves_no_resource_in_progress(store, virtual_time):
    """A walk (here suspend) whose time is up while a resource's handler runs: the
    handler is cancelled, and the resource records its failure on top of its
    IN_PROGRESS, as a create's does (`test_timeout_fails_the_stack`)."""
    engine = StackEngine(
        store,
        default_registry(),
        EngineSettings(default_timeout_seconds=0.3),
        sleep=virtual_time.wait,
        clock=virtual_time,
    )
    text = """
    heat_template_version: wallaby
    resources:
      slow: {type: OS::Heat::Delay, properties: {min_wait: 5, actions: [SUSPEND]}}
      quick: {type: OS::Heat::None}
    """
    created = run(engine.create(request(text)))
    assert created.status is Status.COMPLETE
    record = run(engine.suspend("s"))
    assert (record.action, record.status) == (Action.SUSPEND, Status.FAILED)
    assert record.status_reason == "Suspend timed out"
    states = statuses(store, record.id)
    assert states["slow"] == "SUSPEND_FAILED"
    assert "IN_PROGRESS" not in "".join(states.values())


def test_delete_walks_in_reverse_and_frees_the_name(engine, store, events):
    created = run(engine.create(request(CHAIN)))
    events.clear()
    deleted = run(engine.delete("s"))
    assert (deleted.action, deleted.status) == (Action.DELETE, Status.COMPLETE)
    order = [
        e.resource_name
        for e in events
        if e.status is Status.COMPLETE and e.resource_type != "OS::Heat::Stack"
    ]
    assert order.index("marker") < order.index("value") < order.index("password")
    assert store.get_stack("s", "default") is None
    assert store.get_stack(created.id, "default").deleted_at is not None
    again = run(engine.create(request(CHAIN)))
    assert again.status is Status.COMPLETE and again.id != created.id


def test_same_name_twice_is_refused(engine):
    run(engine.create(request(CHAIN)))
    with pytest.raises(OperationRefused, match=r"The Stack \(s\) already exists."):
        run(engine.create(request(CHAIN)))


def test_invalid_stack_name_is_refused(engine):
    with pytest.raises(OperationRefused, match="must start with a letter"):
        run(engine.create(request(CHAIN, name="1abc")))


def test_second_operation_refused_while_a_lease_is_live(engine, store):
    record = run(engine.create(request(CHAIN)))
    other = "elsewhere:1:abcd"
    assert (
        store.acquire_lease(record.id, other, now_utc() + timedelta(seconds=60), now_utc()) is None
    )
    with pytest.raises(OperationRefused, match="already has an action"):
        run(engine.delete("s"))
    store.release_lease(record.id, other)
    assert run(engine.delete("s")).status is Status.COMPLETE


def test_limits_are_checked_before_anything_is_written(store):
    engine = StackEngine(store, default_registry(), EngineSettings(max_resources_per_stack=2))
    problems = engine.check(definition(CHAIN))
    assert any("more than the limit of 2" in d.message for d in problems)
    engine = StackEngine(store, default_registry(), EngineSettings(max_stacks_per_project=1))
    run(engine.create(request(CHAIN)))
    with pytest.raises(OperationRefused, match="maximum stacks per project"):
        run(engine.create(request(CHAIN, name="t")))


def test_unknown_types_and_known_bad_properties_are_reported_before_create(engine):
    text = """
    heat_template_version: wallaby
    resources:
      a: {type: OS::Nova::Server, properties: {flavor: m1.small}}
      b: {type: OS::Heat::RandomString, properties: {length: 0, colour: red}}
      c: {type: OS::Heat::RandomString, properties: {length: {get_attr: [d, value]}}}
      d: {type: OS::Heat::Value, properties: {value: 3}}
    """
    messages = [d.render() for d in engine.check(definition(text)) if d.is_error]
    assert any("OS::Nova::Server against an OpenStack cloud" in m for m in messages), messages
    assert any("resources.b.properties.length" in m for m in messages), messages
    assert any("colour" in m for m in messages), messages
    assert not any("resources.c" in m for m in messages), messages


def test_property_error_at_run_time_fails_the_resource(engine, store):
    text = """
    heat_template_version: wallaby
    resources:
      d: {type: OS::Heat::Value, properties: {value: 0}}
      c: {type: OS::Heat::RandomString, properties: {length: {get_attr: [d, value]}}}
    """
    record = run(engine.create(request(text)))
    assert record.status is Status.FAILED
    assert "resources.c.properties.length" in record.status_reason


def test_wait_condition_completes_when_signalled(engine, store):
    text = """
    heat_template_version: wallaby
    resources:
      handle: {type: OS::Heat::WaitConditionHandle}
      wait:
        type: OS::Heat::WaitCondition
        properties: {handle: {get_resource: handle}, timeout: 30, count: 2}
    outputs:
      data: {value: {get_attr: [wait, data]}}
    """

    async def scenario():
        creating = asyncio.create_task(engine.create(request(text)))
        for _ in range(200):
            await asyncio.sleep(0.05)
            stack = store.get_stack("s", "default")
            states = statuses(store, stack.id) if stack else {}
            if states.get("handle") == "CREATE_COMPLETE":
                break
        await engine.signal("s", "handle", {"status": "SUCCESS", "data": "one", "id": "1"})
        await engine.signal("s", "handle", {"data": "two", "id": "2"})
        return await creating

    record = run(scenario())
    assert record.status is Status.COMPLETE, record.status_reason
    (output,) = engine.outputs(record)
    assert '"1": "one"' in output["output_value"] and '"2": "two"' in output["output_value"]


def test_output_errors_are_reported_per_output(engine):
    text = """
    heat_template_version: wallaby
    resources:
      v: {type: OS::Heat::Value, properties: {value: "a,b"}}
    outputs:
      good: {value: {str_split: [',', {get_attr: [v, value]}, 0]}}
      bad: {value: {str_split: [',', {get_attr: [v, value]}, 9]}}
    """
    record = run(engine.create(request(text)))
    outputs = {o["output_key"]: o for o in engine.outputs(record)}
    assert outputs["good"]["output_value"] == "a" and "output_error" not in outputs["good"]
    assert outputs["bad"]["output_value"] is None
    assert "str_split" in outputs["bad"]["output_error"]


def test_get_azs_without_a_cloud_fails_where_heat_fails_without_nova(engine, store):
    """Heat asks Nova; without one Fn::GetAZs fails: an output's output_error, a
    property's resource at create. With no cloud chosen stoker fails the same way and
    says how to choose one; with a cloud it answers that cloud's zones."""
    from stoker.cloud.choice import HOW_TO_CHOOSE
    from stoker.definition.context import zones_from

    text = """
    heat_template_version: 2013-05-23
    resources:
      v: {type: OS::Heat::Value, properties: {value: {"Fn::GetAZs": ""}}}
    outputs:
      o: {value: {"Fn::GetAZs": ""}}
    """
    record = run(engine.create(request(text)))
    assert (record.action, record.status) == (Action.CREATE, Status.FAILED)
    assert statuses(store, record.id) == {"v": "CREATE_FAILED"}
    assert "no cloud is chosen" in record.status_reason
    (output,) = engine.outputs(record)
    assert output["output_value"] is None
    assert "no cloud is chosen" in output["output_error"]
    assert HOW_TO_CHOOSE in output["output_error"]
    with zones_from(lambda: ["az1", "az2"]):
        chosen = run(engine.create(request(text, name="chosen")))
        assert (chosen.action, chosen.status) == (Action.CREATE, Status.COMPLETE)
        assert engine.outputs(chosen)[0]["output_value"] == ["az1", "az2"]


def test_a_group_whose_child_is_refused_answers_a_null_per_member(engine, store):
    """Heat stores a group's nested stack that fails its own validation with its members
    never created: get_attr of the group is a null per member. stoker never stores that
    child, and answers the same from the group's recorded properties."""
    text = """
    heat_template_version: 2021-04-16
    resources:
      g:
        type: OS::Heat::ResourceGroup
        properties:
          count: 2
          resource_def: {type: OS::Heat::Value, properties: {value: x, type: nosuch}}
    outputs:
      refs: {value: {get_attr: [g, refs]}}
      values: {value: {get_attr: [g, value]}}
      refs_map: {value: {get_attr: [g, refs_map]}}
    """
    record = run(engine.create(request(text)))
    assert (record.action, record.status) == (Action.CREATE, Status.FAILED)
    nested = store.list_stacks(record.project, include_nested=True)
    assert [s for s in nested if s.parent_id == record.id] == []  # nothing half-made is stored
    outputs = {o["output_key"]: o["output_value"] for o in engine.outputs(record)}
    assert outputs == {
        "refs": [None, None],
        "values": [None, None],
        "refs_map": {"0": None, "1": None},
    }


def test_pseudo_parameters_are_known_to_resources_at_create(engine, store) -> None:
    """The stack's id and project reach resource properties (they were unresolved)."""
    text = """\
    heat_template_version: 2018-08-31
    resources:
      v:
        type: OS::Heat::Value
        properties:
          value:
            list_join: [",", [{get_param: OS::stack_id}, {get_param: OS::project_id}]]
    outputs:
      o: {value: {get_attr: [v, value]}}
    """
    stack = run(engine.create(request(text)))
    assert stack.status is Status.COMPLETE, stack.status_reason
    (output,) = engine.outputs(stack)
    assert output["output_value"] == f"{stack.id},{stack.project}"


def test_a_declared_pseudo_parameter_name_wins(engine, store) -> None:
    """Heat 24.1.2 (measured): a template declaring OS::stack_name reads its own value."""
    text = """\
    heat_template_version: 2018-08-31
    parameters:
      OS::stack_name: {type: string, default: x}
    outputs:
      o: {value: {get_param: OS::stack_name}}
    """
    stack = run(engine.create(request(text)))
    assert engine.outputs(stack)[0]["output_value"] == "x"


SHOWN = """
heat_template_version: wallaby
parameters:
  secret: {type: string, hidden: true, default: hunter2-shown}
  size: {type: number, default: 3}
resources:
  value:
    type: OS::Heat::Value
    properties:
      value: {list_join: ['-', [{get_param: secret}, {get_param: OS::stack_name}]]}
  plain:
    type: OS::Heat::Value
    properties: {value: {get_param: size}}
outputs:
  id: {value: {get_param: OS::stack_id}}
  name: {value: {get_param: OS::stack_name}}
  secret: {value: {get_attr: [value, value]}}
  size: {value: {get_attr: [plain, value]}}
  out_of_range: {value: {str_split: ['-', {get_attr: [value, value]}, 7]}}
"""


def test_the_stack_shown_after_create_is_the_one_its_stored_template_rebuilds(engine, store):
    """`stack create` shows the stack with the definition it created it from (not rebuilt
    from the store): what it shows must be what any later reader (`stack show`) sees."""
    from stoker.engine import stack_document

    record = run(engine.create(request(SHOWN, "shown")))
    assert (record.action, record.status) == (Action.CREATE, Status.COMPLETE)
    after_create = stack_document(engine, record)
    reader = StackEngine(store, default_registry(), EngineSettings())
    assert reader.definition_of(record) is not engine.definition_of(record)
    assert after_create == stack_document(reader, record)
    outputs = {o["output_key"]: o for o in after_create["outputs"]}
    assert outputs["id"]["output_value"] == record.id
    assert outputs["name"]["output_value"] == "shown"
    assert "output_error" in outputs["out_of_range"]
    assert after_create["parameters"]["secret"] == "******"
