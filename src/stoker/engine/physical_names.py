"""Physical names: the name a resource is given in the cloud, as Heat makes it.

``<stack>-<resource>-<12 random>``: unique without a lookup, and the stack and resource
still readable in the cloud's listings.
"""

from __future__ import annotations

import random
import string

#: byte values 0-215 (six times the 36 characters) to a character; 216-255 are dropped,
#: so each character is uniform over the 36
_SUFFIX_CHARACTERS = bytes.maketrans(
    bytes(range(216)), ((string.ascii_lowercase + string.digits) * 6).encode()
)
_SUFFIX_UNUSED = bytes(range(216, 256))


def _suffix() -> str:
    """12 random lowercase letters or digits (a quarter of the time of
    ``random.choices``: one is made for each resource an operation acts on)."""
    while True:
        raw = random.randbytes(16).translate(None, _SUFFIX_UNUSED)
        if len(raw) >= 12:
            return raw[:12].translate(_SUFFIX_CHARACTERS).decode()


def physical_name(stack_name: str, resource_name: str) -> str:
    """Heat's ``<stack>-<resource>-<12 random>``, shortened to 255 characters."""
    name = f"{stack_name}-{resource_name}-{_suffix()}"
    return name if len(name) <= 255 else f"{name[:2]}-{name[-(255 - 3) :]}"
