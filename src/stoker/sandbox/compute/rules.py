"""Nova's rules that are data or small checks: which status allows which action, and
what a user_data, a tag or a name filter may be."""

from __future__ import annotations

import base64
import re
from typing import Any

from stoker.sandbox.http_errors import BadRequest

#: status -> (vm_state, power_state) once settled
STATES = {
    "ACTIVE": ("active", 1),
    "ERROR": ("error", 0),
    "SHUTOFF": ("stopped", 4),
    "SUSPENDED": ("suspended", 7),
    "PAUSED": ("paused", 3),
    "VERIFY_RESIZE": ("resized", 1),
}

#: action -> the statuses it is allowed from (Nova answers 409 otherwise)
ALLOWED = {
    "resize": ("ACTIVE", "SHUTOFF"),
    "confirmResize": ("VERIFY_RESIZE",),
    "revertResize": ("VERIFY_RESIZE",),
    "reboot": ("ACTIVE", "SHUTOFF", "ERROR", "PAUSED", "SUSPENDED"),
    "rebuild": ("ACTIVE", "SHUTOFF", "ERROR"),
    "os-stop": ("ACTIVE", "ERROR"),
    "os-start": ("SHUTOFF",),
    "suspend": ("ACTIVE", "SHUTOFF"),
    "resume": ("SUSPENDED",),
    "pause": ("ACTIVE",),
    "unpause": ("PAUSED",),
    "lock": None,
    "unlock": None,
    "createImage": ("ACTIVE", "SHUTOFF", "PAUSED", "SUSPENDED"),
}


def check_user_data(value: Any) -> None:
    """Nova takes user data base64-encoded, 65535 bytes at most."""
    try:
        valid = isinstance(value, str) and len(value) <= 65535
        if valid:
            base64.b64decode(value, validate=True)
    except ValueError:
        valid = False
    if not valid:
        raise BadRequest(
            "Invalid input for field/attribute user_data. Value: user data is not "
            "base64-encoded text of at most 65535 characters"
        )


def tag_ok(tag: Any) -> bool:
    return isinstance(tag, str) and 0 < len(tag) <= 60 and "/" not in tag and "," not in tag


def name_filter(pattern: str) -> re.Pattern[str]:
    """Nova filters server names by regular expression (a bad one matches literally)."""
    try:
        return re.compile(pattern)
    except re.error:
        return re.compile(re.escape(pattern))
