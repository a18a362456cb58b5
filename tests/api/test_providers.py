"""Provider templates that come with the request (Heat's ``files`` map, or inside a
package): the server reads them, their ``get_file`` and their own providers from there,
never from its disk."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from stoker.cli.main import cli

from .helpers import wait_for
from .test_upload import package

pytestmark = pytest.mark.heavy

PROVIDER = """heat_template_version: 2018-08-31
parameters:
  word: {type: string}
resources:
  inner:
    type: file:///tmp/lib/leaf.yaml
    properties:
      text: {list_join: ['-', [{get_param: word}, {get_file: file:///tmp/lib/suffix.txt}]]}
outputs:
  said: {value: {get_attr: [inner, said]}}
"""

LEAF = """heat_template_version: 2018-08-31
parameters:
  text: {type: string}
resources:
  v:
    type: OS::Heat::Value
    properties:
      value: {get_param: text}
outputs:
  said: {value: {get_attr: [v, value]}}
"""

TOP: dict[str, Any] = {
    "heat_template_version": "2018-08-31",
    "parameters": {"word": {"type": "string", "default": "hello"}},
    "resources": {"p": {"type": "My::Provider", "properties": {"word": {"get_param": "word"}}}},
    "outputs": {"out": {"value": {"get_attr": ["p", "said"]}}},
}


def _outputs(client: TestClient, url: str) -> dict[str, Any]:
    stack = wait_for(client, url)
    assert stack["stack_status"] == "CREATE_COMPLETE", stack["stack_status_reason"]
    return {o["output_key"]: o["output_value"] for o in stack["outputs"]}


def test_provider_templates_from_the_files_map(client: TestClient) -> None:
    """As python-heatclient sends them: every file keyed by its absolute URL, the
    registry pointing there; the provider names a nested provider and a get_file."""
    files = {
        "file:///tmp/lib/provider.yaml": PROVIDER,
        "file:///tmp/lib/leaf.yaml": LEAF,
        "file:///tmp/lib/suffix.txt": "world",
    }
    environment = {"resource_registry": {"My::Provider": "file:///tmp/lib/provider.yaml"}}
    response = client.post(
        "/v1/admin/stacks",
        json={
            "stack_name": "prov-map",
            "template": TOP,
            "files": files,
            "environment": environment,
        },
    )
    assert response.status_code == 201, response.text
    url = response.headers["location"]
    assert _outputs(client, url) == {"out": "hello-world"}
    resources = client.get(url + "/resources?nested_depth=2").json()["resources"]
    types = {r["resource_name"]: r["resource_type"] for r in resources}
    assert types == {
        "p": "My::Provider",
        "inner": "file:///tmp/lib/leaf.yaml",
        "v": "OS::Heat::Value",
    }
    # a PATCH keeps the stored files: the providers are found there again
    patched = client.patch(url, json={"parameters": {"word": "again"}})
    assert patched.status_code == 202, patched.text
    stack = wait_for(client, url)
    assert stack["stack_status"] == "UPDATE_COMPLETE", stack["stack_status_reason"]
    assert stack["outputs"][0]["output_value"] == "again-world"


def provider_package() -> bytes:
    """A package whose ``environment.yaml`` maps a type to a provider inside it, the
    provider with a ``get_file`` beside it and a nested provider, and a type naming a
    member directly."""
    top = (
        "heat_template_version: 2018-08-31\n"
        "resources:\n  p: {type: My::Provider, properties: {word: zipped}}\n"
        "  d: {type: lib/leaf.yaml, properties: {text: direct}}\n"
        "outputs:\n  out: {value: {get_attr: [p, said]}}\n"
        "  direct: {value: {get_attr: [d, said]}}\n"
    )
    provider = PROVIDER.replace("file:///tmp/lib/leaf.yaml", "lib/leaf.yaml").replace(
        "file:///tmp/lib/suffix.txt",
        "suffix.txt",  # beside the provider, in lib/
    )
    return package(
        {
            "heat.yaml": top,
            "environment.yaml": "resource_registry:\n  My::Provider: lib/provider.yaml\n",
            "lib/provider.yaml": provider,
            "lib/leaf.yaml": LEAF,
            "lib/suffix.txt": "inside",
        }
    )


def test_provider_and_registry_inside_a_package(client: TestClient) -> None:
    response = client.post(
        "/v1/admin/stacks?stack_name=prov-zip",
        content=provider_package(),
        headers={"Content-Type": "application/zip"},
    )
    assert response.status_code == 201, response.text
    outputs = _outputs(client, response.headers["location"])
    assert outputs == {"out": "zipped-inside", "direct": "direct"}


def test_the_same_package_on_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``stoker stack create -t package.zip`` reads providers and their get_file from the
    archive as the API does, with none of those files on disk (the working directory
    and the package's are empty); a later update (``-t`` again, or ``--existing``)
    finds them in the stored files."""
    archive = tmp_path / "pkg" / "package.zip"
    archive.parent.mkdir()
    archive.write_bytes(provider_package())
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    db = ["--db", f"sqlite:///{tmp_path / 'cli.db'}", "stack"]

    def run(*args: str) -> dict[str, Any]:
        result = CliRunner().invoke(cli, [*db, *args, "-f", "json"])
        assert result.exit_code == 0, result.output
        shown: dict[str, Any] = json.loads(result.stdout)
        return shown

    def said(shown: dict[str, Any]) -> dict[str, str]:
        return {o["output_key"]: o["output_value"] for o in shown["outputs"]}

    created = run("create", "pkg", "-t", str(archive))
    assert created["stack_status"] == "CREATE_COMPLETE"
    assert said(run("show", "pkg")) == {"out": "zipped-inside", "direct": "direct"}
    again = run("update", "pkg", "-t", str(archive), "--existing")
    assert again["stack_status"] == "UPDATE_COMPLETE"
    kept = run("update", "pkg", "--existing")
    assert kept["stack_status"] == "UPDATE_COMPLETE"
    assert said(run("show", "pkg")) == {"out": "zipped-inside", "direct": "direct"}
    valid = CliRunner().invoke(cli, ["template", "validate", str(archive)])
    assert valid.exit_code == 0, valid.output
    assert os.listdir(elsewhere) == [] and os.listdir(archive.parent) == ["package.zip"]


def test_a_provider_not_in_the_files_is_heats_400(client: TestClient) -> None:
    """Never read from the server's disk; Heat 24.1.2 answers the same for both (the
    registry's ``file:`` URL and a type naming a path), recorded below."""
    for template, environment, heat_says in (
        (
            {"heat_template_version": "2018-08-31", "resources": {"r": {"type": "missing.yaml"}}},
            None,
            'Could not fetch remote template "missing.yaml": Invalid URL scheme ',
        ),
        (
            {"heat_template_version": "2018-08-31", "resources": {"r": {"type": "My::T"}}},
            {"resource_registry": {"My::T": "file:///etc/hosts.yaml"}},
            'Could not fetch remote template "file:///etc/hosts.yaml": Invalid URL scheme file',
        ),
    ):
        response = client.post(
            "/v1/admin/stacks",
            json={"stack_name": "prov-missing", "template": template, "environment": environment},
        )
        assert response.status_code == 400, response.text
        error = response.json()["error"]
        assert error["type"] == "StackValidationFailed"
        assert heat_says in error["message"]
    assert client.get("/v1/admin/stacks/prov-missing").status_code == 404


def test_validate_reads_providers_from_the_files_map(client: TestClient) -> None:
    """Heat 24.1.2's validate: a provider from ``files`` whose own get_file the map lacks
    is accepted (its create fails there); one not in ``files`` is a 400."""
    template = {"heat_template_version": "2018-08-31", "resources": {"r": {"type": "p.yaml"}}}
    provider = (
        "heat_template_version: 2018-08-31\nresources:\n  v:\n    type: OS::Heat::Value\n"
        "    properties:\n      value: {get_file: nothere.txt}\n"
    )
    given = client.post(
        "/v1/admin/validate", json={"template": template, "files": {"p.yaml": provider}}
    )
    assert given.status_code == 200, given.text
    missing = client.post("/v1/admin/validate", json={"template": template})
    assert missing.status_code == 400
    assert 'Could not fetch remote template "p.yaml"' in missing.json()["error"]["message"]
