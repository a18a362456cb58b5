"""The user data a server boots with, per ``user_data_format``, as the sandbox's Nova
received it (``OS-EXT-SRV-ATTR:user_data``, base64, shown to an admin)."""

from __future__ import annotations

import asyncio
import base64
import email
import json
from email.message import Message
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from stoker.cli.main import cli
from stoker.resources.base import ResourceContext, ResourceView
from stoker.resources.openstack.userdata import _rendered, mime_user_data, user_data

TEMPLATE = """\
heat_template_version: wallaby
resources:
  config:
    type: OS::Heat::SoftwareConfig
    properties: {config: "#!/bin/sh\\necho from a config\\n"}
  raw:
    type: OS::Nova::Server
    properties:
      image: cirros-0.6.2-x86_64-disk
      flavor: m1.tiny
      networks: [{allocate_network: none}]
      user_data_format: RAW
      user_data: "#!/bin/sh\\necho raw\\n"
  software:
    type: OS::Nova::Server
    properties:
      image: cirros-0.6.2-x86_64-disk
      flavor: m1.tiny
      networks: [{allocate_network: none}]
      user_data_format: SOFTWARE_CONFIG
      user_data: {get_resource: config}
  cfn:
    type: OS::Nova::Server
    properties:
      image: cirros-0.6.2-x86_64-disk
      flavor: m1.tiny
      networks: [{allocate_network: none}]
      user_data: "#!/bin/sh\\necho cfn\\n"
"""


def _parts(text: str) -> list[tuple[str, str, str]]:
    message = email.message_from_string(text)
    assert message.is_multipart()
    parts = []
    for part in message.get_payload():
        assert isinstance(part, Message)
        payload = part.get_payload(decode=True)
        assert isinstance(payload, bytes)
        parts.append((part.get_content_type(), part.get_filename() or "", payload.decode()))
    return parts


def _built(properties: dict[str, Any], configs: dict[str, str] | None = None) -> str | None:
    async def lookup(ref: str) -> ResourceView | None:
        if configs is None or ref not in configs:
            return None
        data = {"config": {"config": configs[ref]}}
        return ResourceView("c", "OS::Heat::SoftwareConfig", ref, {}, data, "CREATE", "COMPLETE")

    context = ResourceContext("s", "s1", "p", "server", "s-server-x", properties, lookup=lookup)
    return asyncio.run(user_data(context))


def test_user_data_by_format_in_process() -> None:
    config_id = "8f2a4a7e-8f37-4d1b-9d5e-3a1c5f3e0b1a"
    assert _built({"user_data_format": "RAW", "user_data": "x"}) == "x"
    assert _built({"user_data_format": "RAW", "user_data": ""}) is None
    raw_config = _built({"user_data_format": "RAW", "user_data": config_id}, {config_id: "cfg"})
    assert raw_config == "cfg"
    unknown = _built({"user_data_format": "RAW", "user_data": config_id}, {})
    assert unknown == config_id  # no config of the stack: the text itself, as Heat does
    inner = "\n".join(
        [
            'Content-Type: multipart/mixed; boundary="b"',
            "MIME-Version: 1.0",
            "",
            "--b",
            'Content-Type: text/x-shellscript; charset="us-ascii"',
            'Content-Disposition: attachment; filename="one.sh"',
            "",
            "echo one",
            "--b--",
            "",
        ]
    )
    software = _built({"user_data_format": "SOFTWARE_CONFIG", "user_data": inner})
    assert software is not None
    assert _parts(software)[3] == ("text/x-shellscript", "one.sh", "echo one")
    empty = _built({"user_data_format": "HEAT_CFNTOOLS"})  # Heat sends its parts even so
    assert empty is not None and [p[1] for p in _parts(empty)][3:] == [
        "cfn-userdata",
        "loguserdata.py",
    ]


@pytest.mark.parametrize(
    ("content", "form"),
    [("", "HEAT_CFNTOOLS"), ("#!/bin/sh\necho é\n", "HEAT_CFNTOOLS"), ("x", "SOFTWARE_CONFIG")],
)
def test_each_server_gets_the_email_packages_message_with_a_boundary_of_its_own(
    content: str, form: str
) -> None:
    """The message is rendered once and given a fresh boundary per server: each is what
    the email package renders, boundary aside, and no two servers share a boundary."""
    first, second = mime_user_data(content, form), mime_user_data(content, form)
    ours = [email.message_from_string(text).get_boundary() for text in (first, second)]
    assert ours[0] and ours[1] and ours[0] != ours[1]
    assert first.replace(ours[0], ours[1]) == second
    rendered, boundary = _rendered.__wrapped__(content, form)  # the email package, uncached
    assert boundary != ours[0] and len(boundary) == len(ours[0])
    assert first.replace(ours[0], boundary) == rendered
    assert _parts(first) == _parts(rendered)


@pytest.mark.slow  # three servers through the CLI: ~1.5 s
def test_each_user_data_format_reaches_nova_as_heat_builds_it(
    db_url: str, cloud_env: dict[str, str], admin: Any, tmp_path: Path
) -> None:
    template = tmp_path / "user-data.yaml"
    template.write_text(TEMPLATE)
    runner = CliRunner()
    created = runner.invoke(cli, ["--db", db_url, "stack", "create", "ud", "-t", str(template)])
    assert created.exit_code == 0, created.output
    listed = runner.invoke(cli, ["--db", db_url, "stack", "resource", "list", "ud", "-f", "json"])
    ids = {r["resource_name"]: r["physical_resource_id"] for r in json.loads(listed.stdout)}

    def received(resource: str) -> str:
        shown = admin.compute.get(f"/servers/{ids[resource]}", microversion="2.3").json()
        return base64.b64decode(shown["server"]["OS-EXT-SRV-ATTR:user_data"]).decode()

    assert received("raw") == "#!/bin/sh\necho raw\n"

    software = _parts(received("software"))
    assert [(kind, name) for kind, name, _ in software] == [
        ("text/cloud-config", "cloud-config"),
        ("text/cloud-boothook", "boothook.sh"),
        ("text/part-handler", "part-handler.py"),
        ("text/plain", ""),
    ]
    assert software[0][2].startswith("#cloud-config\n")
    assert software[3][2] == "#!/bin/sh\necho from a config\n"  # the config's text, not its id

    cfn = _parts(received("cfn"))  # HEAT_CFNTOOLS, Heat's default
    assert [(kind, name) for kind, name, _ in cfn] == [
        ("text/cloud-config", "cloud-config"),
        ("text/cloud-boothook", "boothook.sh"),
        ("text/part-handler", "part-handler.py"),
        ("text/x-cfninitdata", "cfn-userdata"),
        ("text/x-shellscript", "loguserdata.py"),
    ]
    assert cfn[3][2] == "#!/bin/sh\necho cfn\n"
    assert runner.invoke(cli, ["--db", db_url, "stack", "delete", "ud", "--yes"]).exit_code == 0
