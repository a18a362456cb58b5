"""yaql's logic for the native evaluator: ``and``, ``or``, comparisons, ``in``, unary
``-``/``+``, ``let(name => value) -> expression``, ``switch(condition => value, ...)`` and
``isDict``, as yaql 3 runs them.

TripleO's templates bind the input with ``let(root => $) -> ...`` to test keys with
``$[0] in $root.data.services``, and pick values with ``switch``. ``and``/``or`` give an
operand, not a boolean, and evaluate the right one only when needed; an operand whose truth
this evaluator cannot give as yaql does (an iterator is always true to Python, its drawn
list is not) is declined, as is a comparison of values yaql compares by another overload
(a boolean, a null, mixed types).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from stoker.functions import yaql_subset
from stoker.functions.yaql_values import Grown, Merged, Stream, View

if TYPE_CHECKING:
    from stoker.functions.yaql_queries import Evaluation, Scope
    from stoker.functions.yaql_syntax import Tree

_LAZY = (Stream, View, Grown)
_COMPARISONS = {
    "#operator_>": lambda a, b: a > b,
    "#operator_<": lambda a, b: a < b,
    "#operator_>=": lambda a, b: a >= b,
    "#operator_<=": lambda a, b: a <= b,
}
#: ``let``'s names: ones yaql's naming convention leaves as they are
_NAME_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")


def truth(value: Any) -> bool:
    """Python's truth of a value as yaql holds it; declined for what it holds otherwise."""
    if type(value) in _LAZY:
        raise yaql_subset.Unsupported
    return bool(value)


def operator(evaluation: Evaluation, tree: Tree, scope: Scope) -> Any:
    """The value of a binary operator of this module's."""
    name, left_tree, right_tree = tree[1], tree[2], tree[3]
    if name == "#operator_->":
        if left_tree[0] != "call" or left_tree[1] != "let":
            raise yaql_subset.Unsupported  # another context function
        return evaluation.evaluate(right_tree, bound(evaluation, left_tree[2], scope))
    left = evaluation.evaluate(left_tree, scope)
    if name == "#operator_and":
        return evaluation.evaluate(right_tree, scope) if truth(left) else left
    if name == "#operator_or":
        return left if truth(left) else evaluation.evaluate(right_tree, scope)
    right = evaluation.evaluate(right_tree, scope)
    if name == "#operator_in":
        return contains(evaluation, left, right)
    if name in _COMPARISONS:
        if not (_numbers(left, right) or (type(left) is str and type(right) is str)):
            raise yaql_subset.Unsupported
        return bool(_COMPARISONS[name](left, right))
    raise yaql_subset.Unsupported


def _numbers(*values: Any) -> bool:
    return all(type(value) is int or type(value) is float for value in values)


def contains(evaluation: Evaluation, value: Any, collection: Any) -> bool:
    """``value in collection``: a substring of a string, else an item of a collection
    (compared with ``==``, as Python's ``in`` over yaql's tuple does)."""
    if type(value) is str and type(collection) is str:
        return value in collection
    if type(value) in _LAZY or type(collection) is Grown:
        raise yaql_subset.Unsupported
    items = evaluation.iterable(collection)
    if any(type(item) in _LAZY or type(item) is Merged for item in items):
        raise yaql_subset.Unsupported  # a list, an iterator or a plain dict among them
    return value in items


def unary(evaluation: Evaluation, name: str, operand: Any) -> Any:
    """``-x`` and ``+x`` of a number."""
    if not _numbers(operand):
        raise yaql_subset.Unsupported
    return -operand if name == "#unary_operator_-" else operand


def bound(evaluation: Evaluation, arguments: tuple[Tree, ...], scope: Scope) -> Scope:
    """The scope ``let(name => value, ...)`` gives its ``->``: the caller's, with each
    name bound (``$`` unchanged)."""
    inner = dict(scope)
    for argument in arguments:
        if argument[0] != "rule" or argument[1][0] != "key":
            raise yaql_subset.Unsupported  # positional ones rebind ``$``
        name = argument[1][1]
        if not set(name) <= _NAME_CHARACTERS or name[0].isdigit():
            raise yaql_subset.Unsupported
        inner[f"${name}"] = evaluation.evaluate(argument[2], scope)
    return inner


def function(evaluation: Evaluation, name: str, arguments: tuple[Tree, ...], scope: Scope) -> Any:
    """``switch`` and ``isDict``; `yaql_subset.Unsupported` for any other."""
    if name == "switch" and arguments:
        for rule in arguments:
            if rule[0] != "rule" or rule[1][0] == "key":
                raise yaql_subset.Unsupported  # a name there is a keyword argument
        for rule in arguments:
            if truth(evaluation.evaluate(rule[1], scope)):
                return evaluation.evaluate(rule[2], scope)
        return None
    if name == "isDict" and len(arguments) == 1 and arguments[0][0] != "rule":
        value = evaluation.evaluate(arguments[0], scope)
        return type(value) is dict or type(value) is Merged
    raise yaql_subset.Unsupported
