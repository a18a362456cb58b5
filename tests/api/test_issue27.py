"""Issue 27: the answers Heat's own API tests check, compared with real Heat's
(`tests/fixtures/heat_api/issue27-heat-24.1.2.json`, recorded by
`tests/heat_api/record_issue27.py`), in process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from .helpers import TEMPLATE, create, wait_for

pytestmark = pytest.mark.heavy

HEAT = json.loads(
    (Path(__file__).parents[1] / "fixtures" / "heat_api" / "issue27-heat-24.1.2.json").read_text()
)


def _replay(client: TestClient, case: str) -> Any:
    request = HEAT[case]["request"]
    response = client.request(
        request["method"], "/v1/admin" + request["path"], json=request["body"]
    )
    assert response.status_code == HEAT[case]["status"], response.text
    return response.json()


@pytest.mark.parametrize(
    "case", ["validate_value", "validate_parameter_defaults", "validate_show_nested"]
)
def test_validate_answers_as_heat(client: TestClient, case: str) -> None:
    """Parameters (Label defaulting to the name, Value only as given and set, Default from
    parameter_defaults), NestedParameters with show_nested, the Environment echo with a
    provider template's self-registration and without stoker's own sections."""
    assert _replay(client, case) == HEAT[case]["body"]


def _shape(row: dict[str, Any]) -> dict[str, Any]:
    """A resource row without what differs between two servers (ids, times, URLs)."""
    kept = {
        k: v
        for k, v in row.items()
        if k in ("resource_name", "resource_type", "resource_status", "required_by")
    }
    kept["links"] = sorted(link["rel"] for link in row["links"])
    return kept


def test_resource_types_as_the_template_names_them_and_nested_links(client: TestClient) -> None:
    """A type the registry maps (``My::Thing``), a provider template and a group's member
    show the type the template names; those backed by a nested stack link to it."""
    created = client.post("/v1/admin/stacks", json=HEAT["typed_create"]["request"]["body"])
    assert created.status_code == 201, created.text
    url = str(created.headers["location"])
    wait_for(client, url)
    rows = client.get(url + "/resources").json()["resources"]
    expected = HEAT["typed_resources"]["body"]["resources"]
    assert sorted(map(_shape, rows), key=str) == sorted(map(_shape, expected), key=str)
    shown = client.get(url + "/resources/nested").json()["resource"]
    assert _shape(shown) == _shape(HEAT["typed_nested_resource"]["body"]["resource"])
    nested = next(link["href"] for link in shown["links"] if link["rel"] == "nested")
    assert nested.rsplit("/", 1)[1] == shown["physical_resource_id"]
    child = client.get(nested).json()["stack"]
    assert child["parent"] == url.rsplit("/", 1)[1]
    inner = client.get(nested + "/resources/r").json()["resource"]
    assert inner["parent_resource"] == "nested"  # Heat's show names the facade
    assert "parent_resource" not in shown
    deep = client.get(url + "/resources?nested_depth=1").json()["resources"]
    members = {(r.get("parent_resource"), r["resource_name"]): r["resource_type"] for r in deep}
    assert members[("group", "0")] == members[("nested", "r")] == "My::Thing"
    # an update that changes only the environment keeps the template's names
    updated = client.patch(
        url, json={"environment": {"resource_registry": {"My::Thing": "OS::Heat::TestResource"}}}
    )
    assert updated.status_code == 202, updated.text
    assert wait_for(client, url)["stack_status"] == "UPDATE_COMPLETE"
    types = {
        r["resource_name"]: r["resource_type"]
        for r in client.get(url + "/resources").json()["resources"]
    }
    assert types == {
        "thing": "My::Thing",
        "nested": "nested.yaml",
        "group": "OS::Heat::ResourceGroup",
    }


def test_a_plain_resource_has_no_nested_link(client: TestClient) -> None:
    url = create(client, "plain27")
    shown = client.get(url + "/resources/r").json()["resource"]
    assert [link["rel"] for link in shown["links"]] == ["self", "stack"]


def _previewed(entries: list[Any]) -> list[Any]:
    """A preview's resources without times: nested lists kept, as Heat nests them."""
    return [
        _previewed(e)
        if isinstance(e, list)
        else {k: v for k, v in e.items() if k not in ("creation_time",)}
        for e in sorted(
            entries, key=lambda e: str(e if isinstance(e, list) else e["resource_name"])
        )
    ]


def test_create_preview_as_heat(client: TestClient) -> None:
    """``parent`` null, each resource's identities, properties with the type's defaults,
    attributes unknown, and a provider template's resources as a nested list naming
    their ``parent_resource``, in a stack named ``{stack}-{resource}``."""
    stack = _replay(client, "preview")["stack"]
    heat = HEAT["preview"]["body"]["stack"]
    for key in ("id", "parent", "parameters", "outputs", "disable_rollback", "description"):
        assert stack[key] == heat[key], key
    assert _previewed(stack["resources"]) == _previewed(heat["resources"])


def _changes(answer: dict[str, Any]) -> dict[str, list[tuple[str, Any]]]:
    return {
        kind: sorted((e["resource_name"], e.get("parent_resource")) for e in entries)
        for kind, entries in answer["resource_changes"].items()
    }


def test_update_preview_show_nested_as_heat(client: TestClient) -> None:
    """With ``show_nested`` a resource backed by a nested stack is updated even when it
    keeps its definition, its stack's resources join the lists; replacing it lists every
    resource of its tree as deleted."""
    created = client.post("/v1/admin/stacks", json=HEAT["tree_create"]["request"]["body"])
    assert created.status_code == 201, created.text
    url = str(created.headers["location"])
    wait_for(client, url)
    for case in ("tree_preview_same", "tree_preview_replace"):
        request = HEAT[case]["request"]
        query = request["path"].rsplit("/preview", 1)[1]
        answer = client.put(url + "/preview" + query, json=request["body"])
        assert answer.status_code == 200, answer.text
        assert _changes(answer.json()) == _changes(HEAT[case]["body"]), case


PROVIDED: dict[str, Any] = {
    "heat_template_version": "2013-05-23",
    "resources": {"test1": {"type": "My::TestResource"}},
}
PROVIDER = {
    "heat_template_version": "2013-05-23",
    "resources": {"test1": {"type": "OS::Heat::TestResource", "properties": {"value": "x"}}},
}


def test_a_template_resource_renamed_to_another_template_type_is_updated_in_place(
    client: TestClient,
) -> None:
    """``My::TestResource`` to ``My::TestResource2``, both the same provider template:
    Heat updates it in place (both are template resources), its nested stack kept."""
    body = {
        "files": {"provider.template": json.dumps(PROVIDER)},
        "environment": {
            "resource_registry": {
                "My::TestResource": "provider.template",
                "My::TestResource2": "provider.template",
            }
        },
    }
    url = create(client, "retyped27", PROVIDED, **body)
    before = client.get(url + "/resources/test1").json()["resource"]
    retyped = json.loads(json.dumps(PROVIDED))
    retyped["resources"]["test1"]["type"] = "My::TestResource2"
    updated = client.put(url, json={"template": retyped, **body})
    assert updated.status_code == 202, updated.text
    assert wait_for(client, url)["stack_status"] == "UPDATE_COMPLETE"
    after = client.get(url + "/resources/test1").json()["resource"]
    assert after["resource_type"] == "My::TestResource2"
    assert after["physical_resource_id"] == before["physical_resource_id"]


FACADE_ENV = {
    "resource_registry": {
        "OS::Thingy": "facade.yaml",
        "resources": {"thisone": {"OS::Thingy": "concrete.yaml"}},
    }
}
FACADE = (
    "heat_template_version: 2015-04-30\n"
    "parameters: {one: {type: string}, two: {type: string}}\n"
    "outputs: {here-it-is: {value: noop}}\n"
)
FACADE_USER = {
    "heat_template_version": "2015-10-15",
    "resources": {"thisone": {"type": "OS::Thingy", "properties": {"one": "pre"}}},
}


@pytest.mark.parametrize(
    ("concrete", "message"),
    [
        (
            "heat_template_version: 2015-04-30\nparameters: {one: {type: string}}\n"
            "outputs: {here-it-is: {value: x}}\n",
            "Required property two for facade OS::Thingy missing in provider",
        ),
        (
            "heat_template_version: 2015-04-30\n"
            "parameters: {one: {type: string}, two: {type: string, default: x}}\n",
            "Attribute here-it-is for facade OS::Thingy missing in provider",
        ),
    ],
)
def test_a_provider_template_is_checked_against_its_facade(
    client: TestClient, concrete: str, message: str
) -> None:
    """A ``resources:`` mapping's template lacking what the type's general mapping (its
    facade) declares fails the resource with Heat's message (Heat refuses the create with
    it; its functional test accepts either)."""
    files = {"facade.yaml": FACADE, "concrete.yaml": concrete}
    name = "facade27" + str(len(message))
    url = create(client, name, FACADE_USER, files=files, environment=FACADE_ENV)
    stack = wait_for(client, url)
    assert stack["stack_status"] == "CREATE_FAILED"
    row = client.get(url + "/resources/thisone").json()["resource"]
    assert message in row["resource_status_reason"]


def test_tags_cleared_by_a_put_without_them_and_kept_by_a_patch(client: TestClient) -> None:
    """Heat's update_stack keeps the current tags only for a PATCH (``existing``)."""
    url = create(client, "tags27", tags="foo,bar")
    patched = client.patch(url, json={"parameters": {"q": "next"}})
    assert patched.status_code == 202, patched.text
    assert wait_for(client, url)["tags"] == ["foo", "bar"]
    put = client.put(url, json={"template": TEMPLATE})
    assert put.status_code == 202, put.text
    assert not wait_for(client, url)["tags"]


SECRET = {
    "heat_template_version": "2013-05-23",
    "resources": {"secret1": {"type": "OS::Heat::RandomString"}},
    "outputs": {"secret-out": {"value": {"get_attr": ["secret1", "value"]}}},
}
SECRET_NESTED = (
    "heat_template_version: 2013-05-23\n"
    "resources:\n  secret2: {type: OS::Heat::RandomString}\n"
    "outputs:\n  value: {value: {get_attr: [secret2, value]}}\n"
)


def test_a_template_standing_in_for_a_built_in_type_answers_its_attributes(
    client: TestClient,
) -> None:
    """``OS::Heat::RandomString: nested.yaml``: the resource is the template's, its
    ``value`` the nested output (the built-in plugin answered, with null); a new template
    path in an update is followed."""
    env = {"resource_registry": {"OS::Heat::RandomString": "nested.yaml"}}
    url = create(client, "standin27", SECRET, files={"nested.yaml": SECRET_NESTED}, environment=env)
    first = wait_for(client, url)["outputs"][0]["output_value"]
    assert isinstance(first, str) and len(first) == 32
    fixed = SECRET_NESTED.replace("{get_attr: [secret2, value]}", "freddy")
    updated = client.put(
        url,
        json={
            "template": SECRET,
            "files": {"new/nested.yaml": fixed},
            "environment": {"resource_registry": {"OS::Heat::RandomString": "new/nested.yaml"}},
        },
    )
    assert updated.status_code == 202, updated.text
    assert wait_for(client, url)["outputs"][0]["output_value"] == "freddy"


def test_a_rolling_update_to_a_new_member_template_path(client: TestClient) -> None:
    """A group's members move from ``/opt/provider.yaml`` to ``/opt1/provider.yaml`` in
    batches; the request names only the new file, the members not yet replaced keep the
    old one (their nested stack's files)."""
    member = "heat_template_version: '2013-05-23'\nresources:\n  oops: {type: OS::Heat::None}\n"

    def group(path: str) -> dict[str, Any]:
        return {
            "heat_template_version": "2015-04-30",
            "resources": {
                "random_group": {
                    "type": "OS::Heat::ResourceGroup",
                    "update_policy": {"rolling_update": {"min_in_service": 1, "max_batch_size": 3}},
                    "properties": {"count": 5, "resource_def": {"type": path}},
                }
            },
        }

    url = create(
        client, "rolling27", group("/opt/provider.yaml"), files={"/opt/provider.yaml": member}
    )
    updated = client.put(
        url,
        json={"template": group("/opt1/provider.yaml"), "files": {"/opt1/provider.yaml": member}},
    )
    assert updated.status_code == 202, updated.text
    stack = wait_for(client, url)
    assert stack["stack_status"] == "UPDATE_COMPLETE", stack["stack_status_reason"]


def test_a_property_the_provider_template_dropped_replaces_nothing(client: TestClient) -> None:
    """The facade and its template both lose ``two``: Heat compares only the new schema's
    properties, so the nested stack is updated in place, not replaced."""
    one = "heat_template_version: 2013-05-23\nparameters: {one: {type: string}}\n"
    both = one.replace("}}", "}, two: {type: string}}")
    main: dict[str, Any] = {
        "heat_template_version": "2013-05-23",
        "resources": {"the_nested": {"type": "the.yaml", "properties": {"one": "a", "two": "b"}}},
    }
    url = create(client, "dropped27", main, files={"the.yaml": both})
    before = client.get(url + "/resources/the_nested").json()["resource"]["physical_resource_id"]
    del main["resources"]["the_nested"]["properties"]["two"]
    updated = client.put(url, json={"template": main, "files": {"the.yaml": one}})
    assert updated.status_code == 202, updated.text
    assert wait_for(client, url)["stack_status"] == "UPDATE_COMPLETE"
    after = client.get(url + "/resources/the_nested").json()["resource"]["physical_resource_id"]
    assert after == before


def test_adopt_reads_provider_templates_from_the_request_files(client: TestClient) -> None:
    """Heat's adopt takes a provider template from the request's ``files``; the nested
    stack's resources are adopted from the document, not created."""
    nested = (
        "heat_template_version: 2013-05-23\n"
        "resources:\n  RealRandom: {type: OS::Heat::RandomString}\n"
        "outputs:\n  value: {value: {get_attr: [RealRandom, value]}}\n"
    )
    main = {
        "heat_template_version": "2013-05-23",
        "resources": {"the_nested": {"type": "the.yaml"}},
        "outputs": {"value": {"value": {"get_attr": ["the_nested", "value"]}}},
    }
    data = {
        "resources": {
            "the_nested": {
                "type": "the.yaml",
                "resources": {
                    "RealRandom": {
                        "type": "OS::Heat::RandomString",
                        "resource_data": {"value": "goopie"},
                        "resource_id": "froggy",
                    }
                },
            }
        },
        "environment": {"parameters": {}},
        "template": main,
    }
    adopted = client.post(
        "/v1/admin/stacks",
        json={
            "stack_name": "adopt27",
            "adopt_stack_data": json.dumps(data),
            "files": {"the.yaml": nested},
        },
    )
    assert adopted.status_code == 201, adopted.text
    stack = wait_for(client, str(adopted.headers["location"]))
    assert stack["stack_status"] == "ADOPT_COMPLETE", stack["stack_status_reason"]
    assert stack["outputs"][0]["output_value"] == "goopie"


def test_external_id_adopts_a_resource_and_refuses_a_changed_reference(
    client: TestClient,
) -> None:
    """``external_id``: nothing is created, the physical id is the reference (what
    ``get_resource`` gives), an update keeping it changes nothing, one that sets it on a
    resource made by the stack is refused (Heat's NotSupported), and a delete releases it."""
    with_ref: dict[str, Any] = {
        "heat_template_version": "2016-10-14",
        "resources": {"test1": {"type": "OS::Heat::TestResource", "external_id": "foobar"}},
        "outputs": {"str": {"value": {"get_resource": "test1"}}},
    }
    url = create(client, "external27", with_ref)
    stack = wait_for(client, url)
    assert stack["stack_status"] == "CREATE_COMPLETE"
    assert stack["outputs"][0]["output_value"] == "foobar"
    row = client.get(url + "/resources/test1").json()["resource"]
    assert row["physical_resource_id"] == "foobar"
    assert client.put(url, json={"template": with_ref}).status_code == 202
    assert wait_for(client, url)["stack_status"] == "UPDATE_COMPLETE"
    plain = {
        "heat_template_version": "2016-10-14",
        "resources": {"test1": {"type": "OS::Heat::TestResource"}},
    }
    other = create(client, "internal27", plain)
    assert client.put(other, json={"template": with_ref}).status_code == 202
    failed = wait_for(client, other)
    assert failed["stack_status"] == "UPDATE_FAILED"
    assert "Update to property external_id of test1" in failed["stack_status_reason"]
    assert client.delete(url).status_code == 204
    assert wait_for(client, url)["stack_status"] == "DELETE_COMPLETE"


def test_a_nested_failure_reads_as_heat(client: TestClient) -> None:
    """The innermost failure, its class and path from the top: Heat's reason."""
    nested = (
        "heat_template_version: 2013-05-23\n"
        "resources:\n  oops: {type: OS::Heat::TestResource, properties: {fail: true}}\n"
    )
    main = {"heat_template_version": "2013-05-23", "resources": {"victim": {"type": "n.yaml"}}}
    url = create(client, "victim27", main, files={"n.yaml": nested})
    stack = wait_for(client, url)
    assert stack["stack_status_reason"] == (
        "Resource CREATE failed: ValueError: resources.victim.resources.oops: "
        "Test Resource failed oops"
    )
