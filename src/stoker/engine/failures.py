"""Failure text: why a resource's action failed, in the words Heat records.

One function, used by every action (create, delete, update, replacement, the walks), so
a failure reads the same whichever action met it.
"""

from __future__ import annotations

import asyncio

from stoker.engine.state import Action


def failure_reason(name: str, error: BaseException) -> str:
    """Heat's ``<ExceptionClass>: resources.<name>: <message>``."""
    path = resource_path(name)
    if isinstance(error, asyncio.CancelledError):
        return f"{path}: cancelled"
    message = getattr(error, "message", None) or str(error) or type(error).__name__
    if getattr(error, "bare", False):  # a message that already names its class and path
        return f"{path}: {message}"
    # the class Heat's own type raises, where it is not stoker's (TestResource's ValueError)
    kind = getattr(error, "heat_class", None) or type(error).__name__
    return f"{kind}: {path}: {message}"


def resource_path(name: str) -> str:
    """A resource as Heat's reasons name it: ``resources.web``, and a group's member (a
    number) ``resources[1]``."""
    return f"resources[{name}]" if name.isdigit() else f"resources.{name}"


def aborted(
    action: str, class_name: str, name: str, physical_id: str | None, stack: tuple[str, str]
) -> str:
    """Heat's reason (its convergence engine) for a resource whose action the operation's
    timeout stopped: the aborted task, naming the resource (with its physical id once it
    has one) and its stack as Heat names them."""
    resource = f'{class_name} "{name}"' + (f" [{physical_id}]" if physical_id else "")
    stack_name, stack_id = stack
    task = f'Task {action.lower()} from {resource} Stack "{stack_name}" [{stack_id}]'
    return f"{action} aborted ({task} Timed out)"


def timed_out(action: Action) -> str:
    """The reason of a resource whose action a stack-wide walk (suspend, check...) was
    running when the operation's time was up (``Suspend timed out``); a create, update or
    delete says Heat's `aborted`."""
    return f"{action.value.capitalize()} timed out"
