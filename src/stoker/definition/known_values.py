"""Values known before anything runs: a call whose arguments need no running resource is
resolved at validation, so a bad index or a wrong type shows before create.

Only subtrees that reference no resource are resolved; a call that does is looked into
(just the branch an ``if`` takes), so no work is spent on values that cannot be known
before create. `stoker.definition.stack` decides where the findings go (validation,
create, outputs).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from stoker import codes
from stoker.definition.context import StaticContext
from stoker.definition.sensitive import reads_hidden, withhold_call
from stoker.diagnostics import Diagnostic
from stoker.errors import FunctionError
from stoker.functions.base import SCALAR_TYPES, Function, Scope, Unresolved

_LIVE_FUNCTIONS = frozenset({"resource_facade", "Fn::ResourceFacade", "Fn::GetAZs"})


def _any_item(items: Iterable[Any]) -> bool:
    """Whether ``items`` yields anything (``any(True for _ in items)``, without a
    generator expression)."""
    for _ in items:
        return True
    return False


class KnownValues:
    """Resolves the calls of a tree that need no running resource (nor a nested stack's
    facade), and keeps what failing ones raise (``found``)."""

    def __init__(self, context: StaticContext, scope: Scope, hidden: set[str]) -> None:
        self.context = context
        self.scope = scope
        self.hidden = hidden
        self.live: dict[int, bool] = {}
        self.found: list[Diagnostic] = []

    def is_live(self, value: Any) -> bool:
        """Does ``value`` need a running resource (or a nested stack's facade)?"""
        if type(value) in SCALAR_TYPES:
            return False
        if isinstance(value, Function):
            key = id(value)
            live = self.live.get(key)
            if live is None:
                live = value.name in _LIVE_FUNCTIONS or _any_item(value.dependencies(self.scope))
                if not live:
                    for child in value.children(self.scope):
                        if self.is_live(child):
                            live = True
                            break
                self.live[key] = live
            return live
        if isinstance(value, dict):
            value = value.values()
        elif not isinstance(value, list):
            return False
        for item in value:  # noqa: SIM110 - a loop: no generator per mapping walked
            if type(item) not in SCALAR_TYPES and self.is_live(item):
                return True
        return False

    def check(self, value: Any) -> None:
        if type(value) in SCALAR_TYPES:
            return
        if isinstance(value, Function):
            if self.is_live(value):
                for child in value.children(self.scope):
                    self.check(child)
                return
            try:
                value.resolve(self.context)
            except Unresolved:
                pass
            except FunctionError as error:
                diagnostic = Diagnostic(
                    codes.FUNCTION_FAILED,
                    error.message,
                    error.path or value.path,
                    error.span or value.span,
                )
                if reads_hidden(value, self.hidden):
                    diagnostic = withhold_call(diagnostic, value)
                self.found.append(diagnostic)
        elif isinstance(value, dict):
            for item in value.values():
                self.check(item)
        elif isinstance(value, list):
            for item in value:
                self.check(item)
