"""Condition functions (``equals``, ``not``, ``and``, ``or`` and their CFN names) and ``if``.

A condition argument is a boolean, the name of a condition from the ``conditions`` section,
or an inline condition function; Heat treats ``null`` as "no condition", i.e. true. See
heat-semantics §1.4 (notes 11-12), §1.6 and §2.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from stoker import codes
from stoker.diagnostics import Diagnostic, Path
from stoker.functions.base import (
    OMIT,
    Context,
    Function,
    Parser,
    Scope,
    resolve,
)
from stoker.template.nodes import SequenceNode


def condition_value(function: Function, value: Any, context: Context) -> bool:
    """Heat's ``Conditions.is_enabled`` on an already resolved condition argument."""
    if value is None:
        return True
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return bool(context.condition(value))
    raise function.error(f'Invalid condition "{value}"')


def check_condition(function: Function, value: Any, scope: Scope) -> Iterator[Diagnostic]:
    """Static checks of one condition argument (nested calls are validated by the walker)."""
    if isinstance(value, Function | bool) or value is None:
        return
    if isinstance(value, str):
        if value not in scope.conditions:
            section = "Conditions" if function.name.startswith("Fn::") else "conditions"
            yield function.invalid(
                f'Invalid condition "{value}": no condition of that name is defined in the '
                f"{section} section",
                codes.CONDITION,
            )
        return
    yield function.invalid(
        f'Invalid condition "{value}": a condition is a boolean, a condition name or a '
        "condition function"
    )


class Equals(Function):
    """True if two values are equal: ``equals: [{get_param: env}, prod]``.

    Python equality, as in Heat: ``1`` equals ``1.0`` and ``true`` equals ``1``.
    """

    def _shape_ok(self) -> bool:
        return isinstance(self.args, list) and len(self.args) == 2

    def validate(self, scope: Scope) -> Iterable[Diagnostic]:
        if not self._shape_ok():
            yield self.invalid(
                f'Arguments to "{self.name}" must be of the form: [value_1, value_2]'
            )

    def resolve(self, context: Context) -> Any:
        if not self._shape_ok():
            raise self.error(f'Arguments to "{self.name}" must be of the form: [value_1, value_2]')
        first, second = self.args
        return resolve(first, context) == resolve(second, context)


class Not(Function):
    """Negate a condition: ``not: {equals: [{get_param: env}, prod]}``.

    CFN's ``Fn::Not`` (``cfn=True``) takes a one-item list instead.
    """

    def __init__(self, name: str, args: Any, *, cfn: bool = False, **kwargs: Any) -> None:
        super().__init__(name, args, **kwargs)
        self.cfn = cfn

    def _operand(self) -> tuple[Any, str | None]:
        """The condition argument, or a message saying why there is none."""
        if self.cfn:
            if not isinstance(self.args, list) or len(self.args) != 1:
                return None, f'Arguments to "{self.name}" must be of the form: [condition]'
            return self.args[0], None
        if self.args is None:
            return None, f'Argument to "{self.name}" must be a condition'
        return self.args, None

    def validate(self, scope: Scope) -> Iterable[Diagnostic]:
        operand, problem = self._operand()
        if problem:
            yield self.invalid(problem)
            return
        yield from check_condition(self, operand, scope)

    def resolve(self, context: Context) -> Any:
        operand, problem = self._operand()
        if problem:
            raise self.error(problem)
        return not condition_value(self, resolve(operand, context), context)


class _Combination(Function):
    """``and`` / ``or``: a list of at least two conditions."""

    def _problem(self) -> str | None:
        if not isinstance(self.args, list):
            return f'Arguments to "{self.name}" must be a list of conditions'
        if len(self.args) < 2:
            return f'The minimum number of condition arguments to "{self.name}" is 2.'
        return None

    def validate(self, scope: Scope) -> Iterable[Diagnostic]:
        problem = self._problem()
        if problem:
            yield self.invalid(problem)
            return
        for item in self.args:
            yield from check_condition(self, item, scope)

    def _values(self, context: Context) -> Iterator[bool]:
        problem = self._problem()
        if problem:
            raise self.error(problem)
        # Heat resolves every inline condition first, then looks names up lazily, so
        # `and`/`or` stop at the first deciding item.
        items = resolve(self.args, context)
        return (condition_value(self, item, context) for item in items)


class And(_Combination):
    """True if every condition is: ``and: [is_prod, {equals: [{get_param: zone}, a]}]``."""

    def resolve(self, context: Context) -> Any:
        return all(self._values(context))


class Or(_Combination):
    """True if any condition is: ``or: [is_prod, {equals: [{get_param: zone}, a]}]``."""

    def resolve(self, context: Context) -> Any:
        return any(self._values(context))


class If(Function):
    """Choose a value by a condition: ``if: [is_prod, m1.large, m1.small]``.

    With ``two_arguments`` (2021-04-16) the false value may be left out; the call then
    removes the enclosing list item or map entry (`OMIT`). Heat parses only the branch the
    condition selects, so `children` returns just that one when the condition is known:
    an invalid reference in the other branch is not an error.
    """

    def __init__(
        self, name: str, args: Any, *, two_arguments: bool = False, cfn: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(name, args, **kwargs)
        self.two_arguments = two_arguments
        self.cfn = cfn

    @classmethod
    def parse_arguments(cls, parser: Parser, args: Any, path: Path) -> Any:
        """The condition is parsed with the condition-function table, the branches normally."""
        if not isinstance(args, list) or not args:
            return parser.parse(args, path)
        parsed: list[Any] = []
        if type(args) is SequenceNode:  # the loader's list: its positions, shared
            parsed = SequenceNode(args.span)
            parsed.item_spans = args.item_spans
        parsed.append(parser.parse_condition(args[0], (*path, 0)))
        for index, branch in enumerate(args[1:], start=1):
            parsed.append(parser.parse(branch, (*path, index)))
        return parsed

    def _problem(self) -> str | None:
        counts = (2, 3) if self.two_arguments else (3,)
        if isinstance(self.args, list) and len(self.args) in counts:
            return None
        if self.two_arguments:
            return (
                f'Arguments to "{self.name}" must be of the form: [condition_name, '
                "value_if_true, value_if_false] or [condition_name, value_if_true]"
            )
        return (
            f'Arguments to "{self.name}" must be of the form: [condition_name, value_if_true, '
            "value_if_false]"
        )

    def validate(self, scope: Scope) -> Iterable[Diagnostic]:
        problem = self._problem()
        if problem:
            yield self.invalid(problem)
            return
        yield from check_condition(self, self.args[0], scope)

    def children(self, scope: Scope | None) -> Iterable[Any]:
        if scope is None or self._problem():
            return (self.args,)
        value = scope.condition_value(self.args[0])
        if value is None:
            return (self.args,)
        if value:
            return (self.args[0], self.args[1])
        return (self.args[0], self.args[2]) if len(self.args) > 2 else (self.args[0],)

    def branch(self, context: Context) -> Any:
        """The unresolved branch the condition selects (`OMIT` for a missing false value).

        For callers that resolve partially (showing what still needs a live resource): only
        this subtree matters, the other branch must not be evaluated at all.
        """
        problem = self._problem()
        if problem:
            raise self.error(problem)
        if condition_value(self, resolve(self.args[0], context), context):
            return self.args[1]
        return self.args[2] if len(self.args) == 3 else OMIT

    def resolve(self, context: Context) -> Any:
        return resolve(self.branch(context), context)
