"""The user data a server boots with, built for its ``user_data_format`` as Heat builds it.

- ``RAW``: the template's ``user_data`` as it is (or, when it is the id of a config
  resource of the stack, that config's text).
- ``SOFTWARE_CONFIG``: a multi-part MIME message: cloud-init's settings, a boot hook and a
  part handler, then the user data (each part of it, when it is a MIME message itself;
  a config resource's id gives that config's text).
- ``HEAT_CFNTOOLS`` (Heat's default): the same first three parts, the user data as a
  ``text/x-cfninitdata`` part named ``cfn-userdata`` (which heat-cfntools runs) and a
  script that runs it and logs its output.

What needs Heat's own services is left out: the ``cfn-metadata-server`` URL and the boto
settings of the CloudFormation-compatible API, and the metadata server's credentials a
SOFTWARE_CONFIG server's deployments poll with (stoker runs neither API), and the
resource's ``Metadata`` (``cfn-init-data``). The parts' texts are stoker's own, with the
roles Heat's have: cloud-init reads them the same way.
"""

from __future__ import annotations

import functools
import random
import sys
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText

from stoker.resources.base import ResourceContext
from stoker.resources.builtin.multipart_mime import message_parts
from stoker.resources.builtin.software_config import referenced_config

#: where heat-cfntools reads its parts (cfn-userdata ...)
CFN_DIRECTORY = "/var/lib/heat-cfntools"

CLOUD_CONFIG = """\
#cloud-config
# The settings a server of a Heat template boots with (written by stoker).
cloud_config_modules:
 - locale
 - set_hostname
 - ssh
 - timezone
 - update_etc_hosts
 - update_hostname
 - runcmd
output: {all: '| tee -a /var/log/cloud-init-output.log'}
"""

BOOT_HOOK = """\
#!/bin/sh
# heat-cfntools installed from a package may lack its /opt/aws/bin links (written by stoker)
if command -v cfn-create-aws-symlinks >/dev/null 2>&1; then
    cfn-create-aws-symlinks
fi
exit 0
"""

PART_HANDLER = f"""\
#part-handler
# Keeps the text/x-cfninitdata parts where heat-cfntools reads them (written by stoker).
import os

DIRECTORY = "{CFN_DIRECTORY}"


def list_types():
    return ["text/x-cfninitdata"]


def handle_part(data, ctype, filename, payload):
    if ctype in ("__begin__", "__end__"):
        return
    if not os.path.isdir(DIRECTORY):
        os.makedirs(DIRECTORY, 0o700)
    if isinstance(payload, str):
        payload = payload.encode("utf-8")
    with open(os.path.join(DIRECTORY, filename), "wb") as part:
        part.write(payload)
"""

RUN_USER_DATA = f"""\
#!/usr/bin/env python3
# Runs the template's user data (cfn-userdata) and logs what it prints (written by stoker).
import os
import stat
import subprocess
import sys

SCRIPT = "{CFN_DIRECTORY}/cfn-userdata"
LOG = "/var/log/heat-provision.log"

if not os.path.exists(SCRIPT):
    sys.exit(0)
os.chmod(SCRIPT, os.stat(SCRIPT).st_mode | stat.S_IXUSR)
with open(LOG, "ab") as log:
    sys.exit(subprocess.call([SCRIPT], stdout=log, stderr=subprocess.STDOUT))
"""


async def user_data(context: ResourceContext) -> str | None:
    """What Nova gets as the server's user data (before base64), None for none."""
    properties = context.properties
    content = str(properties.get("user_data") or "")
    form = str(properties.get("user_data_format") or "HEAT_CFNTOOLS")
    if form in ("RAW", "SOFTWARE_CONFIG"):
        found = await referenced_config(context, content)
        if isinstance(found, str):
            content = found
    if form == "RAW":
        return content or None
    return mime_user_data(content, form)


def mime_user_data(content: str, form: str) -> str:
    """The multi-part message of a SOFTWARE_CONFIG or HEAT_CFNTOOLS server.

    Rendering it through the email package is costly (five parts, their headers folded),
    on the event loop, for every server; a stack's servers mostly share their
    user data. The message is rendered once per content and form, and each server gets
    it with a boundary of its own, drawn as the email package draws one (the rendered
    text is otherwise the same: the boundary has a fixed width and appears nowhere but
    in its delimiter lines and the header)."""
    rendered, boundary = _rendered(content, form)
    fresh = boundary
    while fresh == boundary or fresh in rendered:
        fresh = _BOUNDARY % random.randrange(sys.maxsize)
    return rendered.replace(boundary, fresh)


#: the email package's boundary (``email.generator.Generator._make_boundary``)
_BOUNDARY = "=" * 15 + f"%0{len(repr(sys.maxsize - 1))}d" + "=="


@functools.lru_cache(maxsize=16)
def _rendered(content: str, form: str) -> tuple[str, str]:
    """The message as the email package renders it, and the boundary it drew."""
    parts = [
        _part(CLOUD_CONFIG, "cloud-config", "cloud-config"),
        _part(BOOT_HOOK, "boothook.sh", "cloud-boothook"),
        _part(PART_HANDLER, "part-handler.py", "part-handler"),
    ]
    if form == "HEAT_CFNTOOLS":
        parts.append(_part(content, "cfn-userdata", "x-cfninitdata"))
        parts.append(_part(RUN_USER_DATA, "loguserdata.py", "x-shellscript"))
    else:
        inner = message_parts(content) if content else None
        if inner is None:
            parts.append(_part(content, "", ""))
        for text, subtype, filename in inner or []:
            parts.append(_part(text, filename, subtype))
    message = MIMEMultipart(_subparts=parts)
    rendered = message.as_string()
    boundary = message.get_boundary()
    assert boundary is not None  # the generator drew one
    return rendered, boundary


def _part(content: str, filename: str, subtype: str) -> MIMEText:
    """One attachment: ``text/<subtype>`` (plain when none), ASCII when it can be."""
    charset = "us-ascii" if content.isascii() else "utf-8"
    part = MIMEText(content, subtype or "plain", charset)
    part.add_header("Content-Disposition", "attachment", filename=filename)
    return part
