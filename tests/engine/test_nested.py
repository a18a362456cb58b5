"""Nested stacks: provider templates, groups, chains, inline stacks; on both databases."""

from __future__ import annotations

import asyncio
import os
import textwrap
from pathlib import Path

import pytest

from stoker.definition.context import stack_arn
from stoker.definition.loading import LoadOptions, load_definition
from stoker.engine.settings import EngineSettings
from stoker.engine.stacks import CreateRequest, OperationRefused, StackEngine
from stoker.engine.state import Status
from stoker.resources.registry import default_registry
from stoker.template.nodes import plain

pytestmark = pytest.mark.heavy

TRIPLEO = Path(__file__).resolve().parents[1] / "fixtures" / "tripleo"


def children_of(store, parent):
    """The live stacks whose parent is ``parent``, oldest first."""
    nested = store.list_stacks(parent.project, include_nested=True)
    return [stack for stack in nested if stack.parent_id == parent.id]


def prepare(
    engine: StackEngine, template: Path, environments=(), parameters=None, name: str = "oc"
):
    """What `stoker stack create` does before creating: load, validate, check."""
    options = LoadOptions(require_all_parameters=True, stack_name=name)
    result = load_definition(
        str(template), [str(e) for e in environments], parameters or {}, options
    )
    assert result.definition is not None, [d.render() for d in result.diagnostics]
    problems = [d for d in result.diagnostics if d.is_error]
    problems += [d for d in engine.check(result.definition, str(template.parent)) if d.is_error]
    request = CreateRequest(
        name=name,
        definition=result.definition,
        template=plain(result.definition.template.document.data),
        environment=result.definition.environment.to_data(absolute_paths=True),
        template_file=os.path.abspath(template),
    )
    return request, problems


@pytest.fixture
def engine(store):
    return StackEngine(store, default_registry(), EngineSettings())


def create(engine, template, environments=(), **kwargs):
    request, problems = prepare(engine, template, environments, **kwargs)
    assert problems == [], [d.render() for d in problems]
    return asyncio.run(engine.create(request))


def test_tripleo_tree_creates_three_levels_and_reads_through_them(engine, store):
    record = create(engine, TRIPLEO / "overcloud.yaml", [TRIPLEO / "environments/default.yaml"])
    assert record.status is Status.COMPLETE, record.status_reason
    outputs = {o["output_key"]: o.get("output_value") for o in engine.outputs(record)}
    assert outputs["controller_hostnames"] == ["overcloud-controller-0"]
    assert outputs["first_compute"] == "overcloud-compute-0"
    assert outputs["hostnames_by_member"] == {
        "0": "overcloud-compute-0",
        "1": "overcloud-compute-1",
    }
    # parameter_defaults reach a template three levels down
    assert outputs["ntp_of_first_controller"] == "pool.ntp.org"
    # resource_facade: the facade's metadata, seen from inside its provider template
    assert outputs["controller_ntp_placement"] == {"placed_on": "controller"}
    assert outputs["endpoint"] == "https://overcloud.example.com:13000"
    # get_resource of a provider facade: its OS::stack_id output
    endpoint_child = [
        s
        for s in store.list_stacks("default", include_nested=True)
        if s.parent_resource == "EndpointMap"
    ][0]
    inner = {r.name: r for r in store.resources(endpoint_child.id)}
    assert outputs["endpoint_stack"] == inner["Endpoint"].physical_id
    # compute refs are the member stacks' ARNs (the role template has no OS::stack_id;
    # recorded from Heat 24.1.2: a provider member's ref is arn:openstack:heat::...)
    compute_group = [
        s
        for s in store.list_stacks("default", include_nested=True)
        if s.parent_resource == "Compute"
    ][0]
    members = {r.name: r for r in store.resources(compute_group.id)}
    arns = [
        stack_arn(
            "default",
            store.get_stack(members[m].physical_id, "default").name,
            members[m].physical_id,
        )
        for m in ("0", "1")
    ]
    assert outputs["compute_refs"] == arns
    # Telemetry is mapped to OS::Heat::None: any property accepted, not a nested stack
    top = {r.name: r for r in store.resources(record.id)}
    assert top["Telemetry"].type == "OS::Heat::None" and "child_id" not in top["Telemetry"].data


def test_nested_stacks_are_stacks_with_their_parent_and_go_with_it(engine, store):
    record = create(engine, TRIPLEO / "overcloud.yaml", [TRIPLEO / "environments/default.yaml"])
    nested = [s for s in store.list_stacks("default", include_nested=True) if s.parent_id]
    # 2 groups, 3 role stacks, 3 ntp stacks, 1 endpoint map
    assert len(nested) == 9
    assert store.list_stacks("default") == [store.get_stack(record.id, "default")]
    assert all(s.disable_rollback for s in nested)
    deleted = asyncio.run(engine.delete("oc"))
    assert deleted.status is Status.COMPLETE
    everything = store.list_stacks("default", include_nested=True, include_deleted=True)
    assert len(everything) == 10 and all(s.deleted_at is not None for s in everything)


def write(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    return tmp_path


def test_a_failure_inside_names_the_nested_resource_path(engine, store, tmp_path):
    write(
        tmp_path,
        {
            "parent.yaml": """
            heat_template_version: rocky
            resources:
              web:
                type: OS::Heat::ResourceGroup
                properties:
                  count: 2
                  resource_def: {type: member.yaml, properties: {index: "%index%"}}
        """,
            "member.yaml": """
            heat_template_version: rocky
            parameters:
              index: {type: string}
            conditions:
              breaks: {equals: [{get_param: index}, "1"]}
            resources:
              ok: {type: OS::Heat::None}
              port:
                type: OS::Heat::TestResource
                depends_on: ok
                properties: {fail: {if: [breaks, true, false]}}
        """,
        },
    )
    record = create(engine, tmp_path / "parent.yaml", name="parent")
    assert record.status is Status.FAILED
    # Heat's form: the innermost failure under its path, a group's member as resources[1]
    assert record.status_reason == (
        "Resource CREATE failed: ValueError: resources.web.resources[1].resources.port: "
        "Test Resource failed port"
    )


def test_facade_properties_must_fit_the_provider_template(engine, tmp_path):
    write(
        tmp_path,
        {
            "parent.yaml": """
            heat_template_version: rocky
            resources:
              a: {type: role.yaml, properties: {name: x, colour: blue}}
              b: {type: role.yaml, properties: {colour: red}}
        """,
            "role.yaml": """
            heat_template_version: rocky
            parameters:
              name: {type: string}
            resources:
              r: {type: OS::Heat::None}
        """,
        },
    )
    _, problems = prepare(engine, tmp_path / "parent.yaml")
    rendered = [d.render() + " | " + "; ".join(d.notes) for d in problems]
    assert any(
        "resources.a.properties" in r and "colour" in r and "role.yaml" in r for r in rendered
    ), rendered
    assert any(
        "resources.b.properties" in r and "name" in r and "role.yaml" in r for r in rendered
    ), rendered


def test_templates_that_include_themselves_and_trees_too_deep(engine, tmp_path):
    write(
        tmp_path,
        {
            "a.yaml": "heat_template_version: rocky\nresources:\n  x: {type: b.yaml}\n",
            "b.yaml": "heat_template_version: rocky\nresources:\n  y: {type: a.yaml}\n",
            "deep.yaml": "heat_template_version: rocky\nresources:\n  l1: {type: l1.yaml}\n",
            **{
                f"l{i}.yaml": "heat_template_version: rocky\nresources:\n"
                f"  n: {{type: l{i + 1}.yaml}}\n"
                for i in range(1, 7)
            },
            "l7.yaml": "heat_template_version: rocky\nresources:\n  leaf: {type: OS::Heat::None}\n",
        },
    )
    _, problems = prepare(engine, tmp_path / "a.yaml")
    assert any("includes itself: a.yaml -> b.yaml -> a.yaml" in d.message for d in problems), [
        d.render() for d in problems
    ]
    _, problems = prepare(engine, tmp_path / "deep.yaml")
    assert any("Recursion depth exceeds 5" in d.message for d in problems), [
        d.render() for d in problems
    ]
    deeper = StackEngine(engine.store, default_registry(), EngineSettings(max_nested_depth=8))
    record = create(deeper, tmp_path / "deep.yaml")
    assert record.status is Status.COMPLETE, record.status_reason


def test_environment_parameters_apply_to_the_top_template_only(engine, tmp_path):
    write(
        tmp_path,
        {
            "env.yaml": "parameters:\n  NtpServer: ntp.example.com\n",
        },
    )
    _, problems = prepare(
        engine,
        TRIPLEO / "overcloud.yaml",
        [TRIPLEO / "environments/default.yaml", tmp_path / "env.yaml"],
    )
    assert any(
        "The Parameter (NtpServer) was not defined in template." in d.message for d in problems
    ), [d.render() for d in problems]


def test_chain_and_inline_stack(engine, store, tmp_path):
    write(
        tmp_path,
        {
            "t.yaml": """
            heat_template_version: rocky
            resources:
              chain:
                type: OS::Heat::ResourceChain
                properties:
                  resources: [OS::Heat::RandomString, OS::Heat::RandomString]
                  resource_properties: {length: 8}
              inline:
                type: OS::Heat::Stack
                properties:
                  template: |
                    heat_template_version: rocky
                    parameters:
                      who: {type: string}
                    resources:
                      v: {type: OS::Heat::Value, properties: {value: {get_param: who}}}
                    outputs:
                      greeting:
                        value:
                          str_replace: {template: hi W, params: {W: {get_attr: [v, value]}}}
                  parameters: {who: {get_attr: [chain, resource.1]}}
            outputs:
              refs: {value: {get_attr: [chain, refs]}}
              inline: {value: {get_attr: [inline, outputs, greeting]}}
              lengths: {value: {get_attr: [chain, attributes, value]}}
        """,
        },
    )
    record = create(engine, tmp_path / "t.yaml", name="t")
    assert record.status is Status.COMPLETE, record.status_reason
    outputs = {o["output_key"]: o.get("output_value") for o in engine.outputs(record)}
    first, second = outputs["refs"]
    assert len(first) == 8 and len(second) == 8
    assert outputs["inline"] == f"hi {second}"
    assert outputs["lengths"] == {"0": first, "1": second}
    chain = [
        s for s in store.list_stacks("default", include_nested=True) if s.parent_resource == "chain"
    ][0]
    members = {r.name: r.requires for r in store.resources(chain.id)}
    assert members == {"0": (), "1": ("0",)}  # not concurrent: each after the previous


def test_group_index_and_removal_policies(engine, store, tmp_path):
    write(
        tmp_path,
        {
            "t.yaml": """
            heat_template_version: rocky
            resources:
              group:
                type: OS::Heat::ResourceGroup
                properties:
                  count: 3
                  index_var: "{{i}}"
                  removal_policies: [{resource_list: ["1"]}]
                  resource_def:
                    type: OS::Heat::Value
                    properties: {value: {name: "node-{{i}}", keep: "{{i}} stays in values only"}}
            outputs:
              values: {value: {get_attr: [group, value]}}
              removed: {value: {get_attr: [group, removed_rsrc_list]}}
              missing: {value: {get_attr: [group, resource.9]}}
        """,
        },
    )
    record = create(engine, tmp_path / "t.yaml", name="g")
    outputs = {o["output_key"]: o for o in engine.outputs(record)}
    assert outputs["values"]["output_value"] == [
        {"name": "node-0", "keep": "0 stays in values only"},
        {"name": "node-2", "keep": "2 stays in values only"},
        {"name": "node-3", "keep": "3 stays in values only"},
    ]
    assert outputs["removed"]["output_value"] == ["1"]
    assert "Member '9' not found in group resource 'group'." in outputs["missing"]["output_error"]


def test_capabilities_choose_the_implementation(engine, tmp_path):
    default = TRIPLEO / "environments" / "default.yaml"
    puppet = create(engine, TRIPLEO / "overcloud.yaml", [default], name="puppet")
    outputs = {o["output_key"]: o.get("output_value") for o in engine.outputs(puppet)}
    assert outputs["controller_ntp_implementation"] == "puppet"
    docker = create(
        engine,
        TRIPLEO / "overcloud.yaml",
        [default, TRIPLEO / "environments" / "docker.yaml"],
        name="docker",
    )
    outputs = {o["output_key"]: o.get("output_value") for o in engine.outputs(docker)}
    assert outputs["controller_ntp_implementation"] == "docker"
    (tmp_path / "none.yaml").write_text("requires:\n  deployment: ansible\n")
    _, problems = prepare(
        engine, TRIPLEO / "overcloud.yaml", [default, tmp_path / "none.yaml"], name="nothing"
    )
    messages = [d.render() for d in problems]
    assert any("OS::TripleO::Services::Ntp" in m and "ansible" in m for m in messages), messages


FAILING_GROUP = {
    "top.yaml": """
        heat_template_version: rocky
        resources:
          web:
            type: OS::Heat::ResourceGroup
            properties:
              count: 3
              resource_def: {type: member.yaml, properties: {index: "%index%"}}
    """,
    "member.yaml": """
        heat_template_version: rocky
        parameters:
          index: {type: string}
        conditions:
          breaks: {equals: [{get_param: index}, "2"]}
        resources:
          ok: {type: OS::Heat::None}
          port:
            type: OS::Heat::TestResource
            depends_on: ok
            properties: {fail: {if: [breaks, true, false]}}
    """,
}


def test_rollback_and_delete_of_a_failed_tree_remove_every_nested_stack(engine, store, tmp_path):
    write(tmp_path, FAILING_GROUP)
    request, _ = prepare(engine, tmp_path / "top.yaml", name="rb")
    request.disable_rollback = False
    rolled = asyncio.run(engine.create(request))
    assert rolled.status is Status.COMPLETE and rolled.action.value == "ROLLBACK"
    children = [
        s
        for s in store.list_stacks("default", include_nested=True, include_deleted=True)
        if s.parent_id
    ]
    assert len(children) == 4 and all(s.deleted_at is not None for s in children)
    failed = asyncio.run(engine.create(prepare(engine, tmp_path / "top.yaml", name="f")[0]))
    assert failed.status is Status.FAILED
    assert asyncio.run(engine.delete(failed.id)).status is Status.COMPLETE
    live = [s.name for s in store.list_stacks("default", include_nested=True)]
    assert live == ["rb"]  # the rolled-back stack stays (ROLLBACK_COMPLETE), as in Heat


def test_a_timeout_fails_the_nested_stacks_it_interrupts(store, tmp_path):
    write(
        tmp_path,
        {
            "t.yaml": """
        heat_template_version: rocky
        resources:
          web:
            type: OS::Heat::ResourceGroup
            properties:
              count: 2
              resource_def: {type: OS::Heat::TestResource, properties: {wait_secs: 10}}
    """
        },
    )
    engine = StackEngine(store, default_registry(), EngineSettings(default_timeout_seconds=0.5))
    record = create(engine, tmp_path / "t.yaml", name="slow")
    assert (record.status, record.status_reason) == (Status.FAILED, "Create timed out")
    (child,) = [s for s in store.list_stacks("default", include_nested=True) if s.parent_id]
    assert child.status is Status.FAILED, child.status_reason
    assert asyncio.run(engine.delete("slow")).status is Status.COMPLETE


def test_a_nested_stack_is_not_deleted_or_resumed_from_outside_its_parent(engine, store, tmp_path):
    write(
        tmp_path,
        {
            "t.yaml": """
            heat_template_version: rocky
            resources:
              inner:
                type: OS::Heat::Stack
                properties:
                  template: |
                    heat_template_version: rocky
                    resources:
                      v: {type: OS::Heat::Value, properties: {value: hello}}
                    outputs:
                      said: {value: {get_attr: [v, value]}}
            outputs:
              said: {value: {get_attr: [inner, outputs, said]}}
        """,
        },
    )
    record = create(engine, tmp_path / "t.yaml", name="top")
    assert record.status is Status.COMPLETE, record.status_reason
    (child,) = children_of(store, record)
    for operation in (engine.resume, engine.recover):
        for name_or_id in (child.name, child.id):
            with pytest.raises(OperationRefused) as refused:
                asyncio.run(operation(name_or_id))
            message = str(refused.value)
            assert "owned by resource inner of stack top" in message, message
    # Nothing changed: the child is live and the parent's output still reads through it.
    assert store.get_stack(child.id, "default").deleted_at is None
    outputs = {o["output_key"]: o.get("output_value") for o in engine.outputs(record)}
    assert outputs == {"said": "hello"}
    # Deleting the parent deletes the child with it.
    assert asyncio.run(engine.delete("top")).status is Status.COMPLETE
    assert store.get_stack(child.id, "default").deleted_at is not None


def test_a_nested_stack_deleted_alone_then_its_parent(engine, store, tmp_path):
    """Heat lets a user delete a nested stack; its parent's delete then finds it gone
    (heat_integrationtests' test_nested_stack_delete_then_delete_parent_stack)."""
    write(
        tmp_path,
        {
            "t.yaml": """
            heat_template_version: rocky
            resources:
              inner: {type: n.yaml}
        """,
            "n.yaml": """
            heat_template_version: rocky
            resources:
              v: {type: OS::Heat::Value, properties: {value: hello}}
        """,
        },
    )
    record = create(engine, tmp_path / "t.yaml", name="top")
    assert record.status is Status.COMPLETE, record.status_reason
    (child,) = children_of(store, record)
    assert asyncio.run(engine.delete(child.id)).status is Status.COMPLETE
    assert asyncio.run(engine.delete("top")).status is Status.COMPLETE
