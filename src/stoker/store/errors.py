"""Errors of the store beyond `stoker.engine.state.StackExists`."""

from __future__ import annotations

from stoker.errors import StokerError


class UnknownStack(StokerError, LookupError):
    """A write named a stack the store does not have (a LookupError, so the engine can
    catch it without importing the store)."""

    code = "stack_not_found"

    def __init__(self, stack_id: str) -> None:
        self.stack_id = stack_id
        super().__init__(f"no stack with id {stack_id!r}")
