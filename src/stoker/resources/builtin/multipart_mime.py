"""``OS::Heat::MultipartMime``: several configs joined into one multi-part MIME message.

cloud-init takes user data as a MIME message whose parts are scripts, cloud-config
documents and so on; this builds that message. A part's ``config`` is inline text or the
UUID of another config resource of the stack (whose stored config is used). A part of type
``multipart`` is itself a MIME message, and its parts are taken over one by one.
"""

from __future__ import annotations

import email
import json
import os
from email.message import Message
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from typing import Any

from stoker.resources.base import ResourceContext
from stoker.resources.builtin.software_config import UNGROUPED, ConfigPlugin, referenced_config
from stoker.resources.constraints import allowed_values
from stoker.resources.schema import PropertySchema, PropertyType, SupportStatus

PART_SCHEMA = PropertySchema(
    PropertyType.MAP,
    schema={
        "config": PropertySchema(
            PropertyType.STRING,
            "The part's content: inline text, or the id of another config resource.",
            required=True,
        ),
        "filename": PropertySchema(PropertyType.STRING, "A file name to attach the part as."),
        "type": PropertySchema(
            PropertyType.STRING,
            "text for one part; multipart to take over the parts of a MIME message.",
            default="text",
            constraints=(allowed_values("text", "multipart"),),
        ),
        "subtype": PropertySchema(
            PropertyType.STRING,
            "The MIME subtype (text/<subtype>); the file name's stem when unset.",
        ),
    },
)


class MultipartMime(ConfigPlugin):
    """A MIME message of configs; attribute ``config`` is the message text."""

    type_name = "OS::Heat::MultipartMime"
    properties_schema = {
        "parts": PropertySchema(
            PropertyType.LIST, "The parts of the message.", default=[], schema={"*": PART_SCHEMA}
        ),
        "group": PropertySchema(
            PropertyType.STRING,
            "The tool that applies the config.",
            default=UNGROUPED,
            support_status=SupportStatus(version="14.0.0"),
        ),
    }

    async def render(self, context: ResourceContext) -> str:
        parts: list[Message] = []
        for item in context.properties.get("parts") or []:
            content = await _content(context, item.get("config") or "")
            if item.get("type") == "multipart":
                taken_over = message_parts(content) or []
                parts.extend(text_part(*inner) for inner in taken_over)
            else:
                parts.append(
                    text_part(content, item.get("subtype") or "", item.get("filename") or "")
                )
        return MIMEMultipart(_subparts=parts).as_string()


async def _content(context: ResourceContext, config: str) -> str:
    """Inline text, or the stored config of the config resource a UUID names. A UUID that
    names no config resource of this stack is taken as text, as Heat does."""
    found = await referenced_config(context, config)
    if found is None:
        return config
    # A StructuredConfig stores a map; a MIME part needs text.
    return found if isinstance(found, str) else json.dumps(found)


def message_parts(message_text: str) -> list[tuple[str, str, str]] | None:
    """The text, subtype and file name of each part of a MIME message (None when the
    text is not a multi-part message)."""
    message = email.message_from_string(message_text)
    if not message.is_multipart():
        return None
    parts: list[tuple[str, str, str]] = []
    for part in message.get_payload():
        assert isinstance(part, Message)
        payload: Any = part.get_payload(decode=True)
        text = payload.decode(part.get_content_charset() or "utf-8") if payload else ""
        parts.append((text, part.get_content_subtype(), part.get_filename() or ""))
    return parts


def text_part(content: str, subtype: str, filename: str) -> MIMEText:
    """One text part: ASCII when the content allows, else UTF-8; the subtype defaults to
    the file name without its extension (``setup.sh`` gives ``text/setup``, as in Heat)."""
    if not subtype and filename:
        subtype = os.path.splitext(filename)[0]
    charset = "us-ascii" if content.isascii() else "utf-8"
    part = MIMEText(content, subtype or "plain", charset)
    if filename:
        part.add_header("Content-Disposition", "attachment", filename=filename)
    return part
