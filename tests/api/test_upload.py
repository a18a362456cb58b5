"""``POST /stacks`` with a raw YAML template or a ZIP package, and the packages refused."""

from __future__ import annotations

import io
import json
import os
import stat
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from stoker.cli.main import cli

from .helpers import make_client, wait_for

HOT = """heat_template_version: 2018-08-31
parameters:
  q: {type: string, default: dflt}
resources:
  v:
    type: OS::Heat::Value
    properties:
      value: {get_param: q}
  f:
    type: OS::Heat::Value
    properties:
      value: {get_file: scripts/hello.sh}
outputs:
  o: {value: {get_attr: [v, value]}}
  f: {value: {get_attr: [f, value]}}
"""


def package(members: dict[str, str | bytes], *, symlink: str | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
        if symlink is not None:
            info = zipfile.ZipInfo(symlink)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, "/etc/passwd")
    return buffer.getvalue()


def outputs(client: TestClient, url: str) -> dict[str, str]:
    stack = wait_for(client, url)
    assert stack["stack_status"] == "CREATE_COMPLETE", stack["stack_status_reason"]
    return {o["output_key"]: o["output_value"] for o in stack["outputs"]}


def test_raw_yaml_upload(client: TestClient) -> None:
    template = HOT.replace("{get_file: scripts/hello.sh}", "plain")
    response = client.post(
        "/v1/admin/stacks?stack_name=raw&parameter=q=given",
        content=template.encode(),
        headers={"Content-Type": "application/x-yaml"},
    )
    assert response.status_code == 201, response.text
    assert outputs(client, response.headers["location"]) == {"o": "given", "f": "plain"}
    broken = client.post(
        "/v1/admin/stacks?stack_name=raw2",
        content=b"heat_template_version: 2018-08-31\nresources: [\n",
        headers={"Content-Type": "text/yaml"},
    )
    assert broken.status_code == 400
    assert "<template>:3:1:" in broken.json()["error"]["message"]  # line and column


def test_zip_upload_resolves_files_inside_the_archive(client: TestClient) -> None:
    data = package(
        {
            "heat.yaml": HOT,
            "scripts/hello.sh": "echo hello\n",
            "environment.yaml": "parameters:\n  q: from-env\n",
        }
    )
    response = client.post(
        "/v1/admin/stacks?stack_name=zipped",
        content=data,
        headers={"Content-Type": "application/zip"},
    )
    assert response.status_code == 201, response.text
    url = response.headers["location"]
    assert outputs(client, url) == {"o": "from-env", "f": "echo hello\n"}
    assert client.get(url + "/files").json()["scripts/hello.sh"] == "echo hello\n"


#: hostile or broken packages, and what the refusal says (the API's 400 and the CLI's
#: error alike)
BAD_PACKAGES = [
    ({"heat.yaml": HOT, "../evil.sh": "x"}, None, "leaves the package"),
    ({"heat.yaml": HOT, "/etc/evil.sh": "x"}, None, "absolute path"),
    ({"heat.yaml": HOT}, "scripts/hello.sh", "symbolic link"),
    ({"main.yaml": HOT}, None, "no heat.yaml"),
    ({"heat.yaml": HOT, "big.txt": "0" * 3_000_000}, None, "expands"),
    ({"heat.yaml": HOT, "big.txt": "x" * 600_000 + "y"}, None, "600,001 bytes"),
]


@pytest.mark.parametrize(("members", "symlink", "message"), BAD_PACKAGES)
def test_bad_packages_are_a_clear_400(
    client: TestClient, members: dict[str, str | bytes], symlink: str | None, message: str
) -> None:
    response = client.post(
        "/v1/admin/stacks?stack_name=bad",
        content=package(members, symlink=symlink),
        headers={"Content-Type": "application/zip"},
    )
    assert response.status_code == 400
    assert message in response.json()["error"]["message"]
    assert client.get("/v1/admin/stacks/bad").status_code == 404


def test_not_a_zip(client: TestClient) -> None:
    response = client.post(
        "/v1/admin/stacks?stack_name=bad",
        content=b"PK-not-really",
        headers={"Content-Type": "application/zip"},
    )
    assert response.status_code == 400
    assert "not a zip archive" in response.json()["error"]["message"]


def test_stack_create_from_a_package_on_the_command_line(tmp_path: Path) -> None:
    """``stoker stack create NAME -t package.zip``: the same package rules, locally."""
    archive = tmp_path / "package.zip"
    archive.write_bytes(
        package(
            {
                "heat.yaml": HOT,
                "scripts/hello.sh": "echo hi\n",
                "environment.yaml": "parameters: {q: e}\n",
            }
        )
    )
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    result = CliRunner().invoke(
        cli, ["--db", db, "stack", "create", "pkg", "-t", str(archive), "-f", "json"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["stack_status"] == "CREATE_COMPLETE"
    outputs = CliRunner().invoke(
        cli, ["--db", db, "stack", "output", "show", "pkg", "--all", "-f", "json"]
    )
    assert {o["output_key"]: o["output_value"] for o in json.loads(outputs.stdout)} == {
        "o": "e",
        "f": "echo hi\n",
    }


@pytest.mark.parametrize(("members", "symlink", "message"), BAD_PACKAGES)
def test_bad_packages_are_a_clear_error_on_the_command_line(
    tmp_path: Path, members: dict[str, str | bytes], symlink: str | None, message: str
) -> None:
    bad = tmp_path / "bad.zip"
    bad.write_bytes(package(members, symlink=symlink))
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    for args in (["stack", "create", "s", "-t", str(bad)], ["template", "validate", str(bad)]):
        refused = CliRunner().invoke(cli, ["--db", db, *args])
        assert refused.exit_code == 1, refused.output
        assert message in refused.output
        assert str(bad) in refused.output
        assert "Traceback" not in refused.output
        assert isinstance(refused.exception, SystemExit)
    listed = CliRunner().invoke(cli, ["--db", db, "stack", "list", "-f", "json"])
    assert json.loads(listed.stdout) == []


def test_bodies_are_read_no_further_than_the_limits(tmp_path: Path) -> None:
    """A declared or streamed (chunked) body over the limit is a 413, never read whole."""
    with make_client(
        f"sqlite:///{tmp_path / 'l.db'}", max_package_size=10_000, max_json_body_size=5_000
    ) as small:
        big = package({"heat.yaml": HOT, "noise.bin": os.urandom(20_000)})
        declared = small.post(
            "/v1/admin/stacks?stack_name=p",
            content=big,
            headers={"Content-Type": "application/zip"},
        )
        assert declared.status_code == 413
        assert declared.json()["error"]["type"] == "RequestLimitExceeded"

        def chunks() -> Iterator[bytes]:
            for _ in range(10):
                yield b" " * 1_000

        streamed = small.post(
            "/v1/admin/stacks", content=chunks(), headers={"Content-Type": "application/json"}
        )
        assert streamed.status_code == 413
        assert "5000 bytes" in streamed.json()["error"]["message"]
