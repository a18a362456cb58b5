"""Values at the provider boundary, as Heat 24.1.2 gives them (issue 8 §4).

The expected values were recorded from real Heat 24.1.2 (the reference instance at
127.0.0.1:8004, project ``admin``) with the same templates; ids and random name suffixes
differ per run, so the tests check the form with the ids stoker recorded.
"""

from __future__ import annotations

import asyncio
import re
import textwrap
from pathlib import Path

import pytest

from stoker.definition.loading import LoadOptions, load_definition
from stoker.engine.settings import EngineSettings
from stoker.engine.stacks import CreateRequest, StackEngine
from stoker.engine.state import Status
from stoker.resolution import TreeCheck
from stoker.resources.registry import default_registry
from stoker.template.nodes import plain

NESTED = "heat_template_version: 2018-08-31\nresources:\n  x: {type: OS::Heat::None}\n"


def run(store, tmp_path: Path, template: str, files: dict[str, str], project: str = "default"):
    """Create ``template`` (with ``files`` beside it) and return its outputs."""
    for name, text in {"t.yaml": template, **files}.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    engine = StackEngine(store, default_registry(), EngineSettings(project=project))
    options = LoadOptions(require_all_parameters=True, stack_name="t")
    result = load_definition(str(tmp_path / "t.yaml"), [], {}, options)
    assert result.definition is not None, [d.render() for d in result.diagnostics]
    problems = [d for d in result.diagnostics if d.is_error]
    problems += [d for d in engine.check(result.definition, str(tmp_path)) if d.is_error]
    assert problems == [], [d.render() for d in problems]
    request = CreateRequest(
        name="t",
        definition=result.definition,
        template=plain(result.definition.template.document.data),
        environment=result.definition.environment.to_data(absolute_paths=True),
        template_file=str(tmp_path / "t.yaml"),
    )
    record = asyncio.run(engine.create(request))
    assert record.status is Status.COMPLETE, record.status_reason
    return {o["output_key"]: o.get("output_value") for o in engine.outputs(record)}, engine


def test_reference_of_each_nested_type_is_what_heat_gives(store, tmp_path):
    # Heat 24.1.2 (project admin), same template: n and group member refs are
    # arn:openstack:heat::admin:stacks/<parent>-n-<suffix>/<id>; g, c and s bare ids;
    # ns the OS::stack_id output ("custom").
    outputs, engine = run(
        store,
        tmp_path,
        """\
        heat_template_version: 2018-08-31
        resources:
          n: {type: nested.yaml}
          s:
            type: OS::Heat::Stack
            properties: {template: "heat_template_version: 2018-08-31\\n"}
          g:
            type: OS::Heat::ResourceGroup
            properties: {count: 1, resource_def: {type: OS::Heat::None}}
          gp:
            type: OS::Heat::ResourceGroup
            properties: {count: 1, resource_def: {type: nested.yaml}}
          c: {type: OS::Heat::ResourceChain, properties: {resources: [OS::Heat::None]}}
          ns: {type: nested2.yaml}
        outputs:
          n: {value: {get_resource: n}}
          s: {value: {get_resource: s}}
          g: {value: {get_resource: g}}
          gprefs: {value: {get_attr: [gp, refs]}}
          gp0: {value: {get_attr: [gp, resource.0]}}
          c: {value: {get_resource: c}}
          ns: {value: {get_resource: ns}}
        """,
        {
            "nested.yaml": NESTED,
            "nested2.yaml": (
                "heat_template_version: 2018-08-31\noutputs:\n  OS::stack_id: {value: custom}\n"
            ),
        },
        project="admin",
    )
    uuid = "[0-9a-f-]{36}"
    assert re.fullmatch(f"arn:openstack:heat::admin:stacks/t-n-[a-z0-9]+/{uuid}", outputs["n"])
    member = f"arn:openstack:heat::admin:stacks/t-gp-[a-z0-9]+-0-[a-z0-9]+/{uuid}"
    assert re.fullmatch(member, outputs["gp0"])
    assert outputs["gprefs"] == [outputs["gp0"]]
    for bare in ("s", "g", "c"):
        assert re.fullmatch(uuid, outputs[bare]), outputs[bare]
    assert outputs["ns"] == "custom"
    # the ARN names the child stack stoker recorded
    stacks = engine.store.list_stacks("admin", include_nested=True)
    child = next(s for s in stacks if s.parent_resource == "n")
    assert outputs["n"].endswith(f"/{child.name}/{child.id}")


@pytest.mark.parametrize("project", ["default", "p:x"])
def test_the_arn_carries_the_project_quoted(store, tmp_path, project):
    outputs, _ = run(
        store,
        tmp_path,
        "heat_template_version: 2018-08-31\nresources:\n  n: {type: nested.yaml}\n"
        "outputs:\n  n: {value: {get_resource: n}}\n",
        {"nested.yaml": NESTED},
        project=project,
    )
    quoted = project.replace(":", "%3A")  # Heat URL-quotes the project in the ARN
    assert outputs["n"].startswith(f"arn:openstack:heat::{quoted}:stacks/t-n-")


TYPED = """\
heat_template_version: 2018-08-31
parameters:
  l: {type: comma_delimited_list, default: []}
  n: {type: number, default: 0}
  b: {type: boolean, default: false}
  j: {type: json, default: {}}
  s: {type: string, default: ""}
outputs:
  l: {value: {get_param: l}}
  n: {value: {get_param: n}}
  b: {value: {get_param: b}}
  j: {value: {get_param: j}}
  s: {value: {get_param: s}}
"""

# property given to a provider resource -> the nested parameter's value, each recorded
# from Heat 24.1.2 with the same nested template (TYPED) and property value.
HEAT_COERCIONS = [
    ("l", "[{a: 1, z: x}, {b: 2}]", [".member.0.a=1", ".member.0.z=x", ".member.1.b=2"]),
    (
        "l",
        "[{a: {x: 1}, b: [1, 2], c: true, d: null, e: 1.5, f: s}]",
        # Heat formats each value with Python's str() and the nested list splits on ","
        [
            ".member.0.a={'x': 1}",
            ".member.0.b=[1",
            " 2]",
            ".member.0.c=True",
            ".member.0.d=None",
            ".member.0.e=1.5",
            ".member.0.f=s",
        ],
    ),
    ("l", "[a, b]", ["a", "b"]),
    ("l", "[]", []),
    ("l", "'a, b,c'", ["a", " b", "c"]),
    ("l", "[a, null]", ["a", ""]),
    ("n", "'3'", 3),
    ("n", "'3.5'", 3.5),
    ("n", "2.5", 2.5),
    ("n", "7", 7),
    ("b", "'True'", True),
    ("b", "true", True),
    ("j", "{a: [1, {b: 2}]}", {"a": [1, {"b": 2}]}),
    ("j", "[1, {a: 2}]", [1, {"a": 2}]),
    ("j", """'{"a": 1}'""", {"a": 1}),
    ("s", "5", "5"),
    ("s", "true", "True"),
]


def test_provider_properties_reach_the_nested_parameters_as_in_heat(store, tmp_path):
    # one stack, one provider resource per case (a stack per case would be slow)
    resources = "".join(
        f"  r{i}: {{type: typed.yaml, properties: {{{name}: {given}}}}}\n"
        for i, (name, given, _) in enumerate(HEAT_COERCIONS)
    )
    outputs_section = "".join(
        f"  o{i}: {{value: {{get_attr: [r{i}, {name}]}}}}\n"
        for i, (name, _, _) in enumerate(HEAT_COERCIONS)
    )
    template = (
        f"heat_template_version: 2018-08-31\nresources:\n{resources}outputs:\n{outputs_section}"
    )
    outputs, _ = run(store, tmp_path, template, {"typed.yaml": TYPED})
    got = [outputs[f"o{i}"] for i in range(len(HEAT_COERCIONS))]
    assert got == [expected for _, _, expected in HEAT_COERCIONS]


@pytest.mark.parametrize(
    ("given", "message"),
    [
        # Heat 24.1.2: POST /validate 200, POST /stacks 400 with these (no stack made)
        ("[1, 2]", "sequence item 0: expected str instance, int found"),
        ("[x, {a: 1}]", "sequence item 1: expected str instance, dict found"),
        ("[{a: 1}, x]", "'str' object has no attribute 'items'"),
    ],
)
def test_lists_heat_cannot_hand_over_are_refused_at_create_not_validate(tmp_path, given, message):
    (tmp_path / "typed.yaml").write_text(TYPED)
    (tmp_path / "t.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n"
        f"  r: {{type: typed.yaml, properties: {{l: {given}}}}}\n"
    )
    for for_create in (False, True):  # template validate, then stack create
        options = LoadOptions(require_all_parameters=for_create, stack_name="t")
        result = load_definition(str(tmp_path / "t.yaml"), [], {}, options)
        assert result.definition is not None
        tree = TreeCheck(default_registry(), max_depth=5, require_types=for_create)
        found = [d for d in tree.check(result.definition, str(tmp_path)) if message in d.message]
        assert len(found) == 1
        assert found[0].is_error is for_create
