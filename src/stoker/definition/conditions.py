"""Evaluating the conditions section and ``condition:`` fields.

Conditions depend only on parameters (and other conditions), so they are known as soon as
parameter values are; a condition that needs a missing value stays unknown and validation
stays lenient about what it guards.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stoker.errors import FunctionError
from stoker.functions.base import Context, Function, resolve


class ConditionEvaluator:
    """Resolves named conditions once each, detecting loops and non-boolean definitions."""

    def __init__(self, definitions: Mapping[str, Any], section: str = "conditions") -> None:
        self.definitions = definitions
        self.section = section
        self.values: dict[str, bool] = {}
        self._evaluating: list[str] = []

    def value(self, name: str, context: Context) -> bool:
        if name in self.values:
            return self.values[name]
        if name not in self.definitions:
            raise FunctionError(
                f'Invalid condition "{name}": no such condition is defined in the '
                f"{self.section} section",
                (self.section,),
            )
        if name in self._evaluating:
            loop = " -> ".join([*self._evaluating[self._evaluating.index(name) :], name])
            raise FunctionError(
                f'Circular definition for condition "{name}" ({loop})', (self.section, name)
            )
        self._evaluating.append(name)
        try:
            result = self.evaluate(self.definitions[name], context, name)
        finally:
            self._evaluating.pop()
        self.values[name] = result
        return result

    def evaluate(self, expression: Any, context: Context, name: str | None = None) -> bool:
        """The value of a condition expression: a bool, a condition name or a function."""
        if isinstance(expression, bool):
            return expression
        if isinstance(expression, str):
            return self.value(str(expression), context)
        value = resolve(expression, context) if isinstance(expression, Function) else expression
        if isinstance(value, bool):
            return value
        where = f'condition "{name}"' if name else "condition"
        path = (self.section, name) if name else ()
        raise FunctionError(
            f"The definition of {where} is invalid: {value!r} is not a boolean", path
        )
