"""The contract of an offline custom-constraint check, shared by every built-in check.

A check is a plain function ``check(value, shown) -> str | None``: None when the value is
valid, else the reason ("" when Heat gives none). ``shown`` renders a value for a message
and returns the mask for hidden parameters, so a reason never leaks a secret. A check that
cannot decide on this machine raises `NotCheckable` instead of guessing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Shown = Callable[[object], str]
CustomCheck = Callable[[Any, Shown], "str | None"]


class NotCheckable(Exception):  # noqa: N818 - a signal, not an error
    """The check needs something this machine lacks (a cloud, a database); says what."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)
