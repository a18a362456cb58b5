"""Failure text: why a resource's action failed, in the words Heat records.

One function, used by every action (create, delete, update, replacement, the walks), so
a failure reads the same whichever action met it.
"""

from __future__ import annotations

import asyncio

from stoker.engine.state import Action


def failure_reason(name: str, error: BaseException) -> str:
    """Heat's ``<ExceptionClass>: resources.<name>: <message>``."""
    if isinstance(error, asyncio.CancelledError):
        return f"resources.{name}: cancelled"
    message = getattr(error, "message", None) or str(error) or type(error).__name__
    if getattr(error, "bare", False):  # a message that already names its class and path
        return f"resources.{name}: {message}"
    # the class Heat's own type raises, where it is not stoker's (TestResource's ValueError)
    kind = getattr(error, "heat_class", None) or type(error).__name__
    return f"{kind}: resources.{name}: {message}"


def timed_out(action: Action) -> str:
    """Heat's reason for a resource whose action was stopped when the operation's time
    was up (``Create timed out``)."""
    return f"{action.value.capitalize()} timed out"
