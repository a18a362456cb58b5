"""The arithmetic subset of the native yaql evaluator, and the signal that hands an
expression back to yaql.

Arithmetic (``+ - * /`` with yaql's precedence, number literals, ``sum()``, ``max()``,
``min()``, ``len()``) is read by `stoker.functions.yaql_syntax` and evaluated by
`stoker.functions.yaql_queries` like every other native query: one parser and one
evaluator. `parse` and `evaluate` answer for arithmetic over ``$.data`` paths alone (an
expression outside it is ``None``, a result other than a scalar is :class:`Unsupported`):
the yaql function does not keep such results, which are cheaper to compute again than to
keep, and ``tests/functions/test_yaql_subset.py`` compares them with yaql.
"""

from __future__ import annotations

from typing import Any

from stoker.functions import yaql_queries, yaql_syntax
from stoker.patterns import LazyPattern

#: the subset's characters: ASCII names, plain spaces, ``$`` only as the root of a path
_ALPHABET = LazyPattern(r"(?:[ 0-9A-Za-z_.()+*/-]|\$(?=\.))+")
_METHODS = frozenset({"sum", "max", "min", "len"})
_OPERATORS = frozenset({"#operator_+", "#operator_-", "#operator_*", "#operator_/"})


class Unsupported(Exception):
    """The expression or its data is outside the native subset: yaql must evaluate it."""


def _path(tree: yaql_syntax.Tree, last: bool) -> bool:
    """``$.name.name…``, the last step possibly one of `_METHODS` without arguments."""
    if tree[0] != "binop" or tree[1] != "#operator_.":
        return False
    step = tree[3]
    fits = step[0] == "key" or (last and step[0] == "call" and step[1] in _METHODS and not step[2])
    return fits and (tree[2] == ("get", "$") or _path(tree[2], False))


def _arithmetic(tree: yaql_syntax.Tree) -> bool:
    kind = tree[0]
    if kind == "const":
        return type(tree[1]) is int or type(tree[1]) is float
    if kind == "wrap":
        return _arithmetic(tree[1])
    if kind == "binop" and tree[1] in _OPERATORS:
        return _arithmetic(tree[2]) and _arithmetic(tree[3])
    return _path(tree, True)


def parse(expression: str) -> yaql_syntax.Tree | None:
    """`yaql_syntax`'s tree if ``expression`` is arithmetic over paths, else ``None``."""
    if not _ALPHABET.fullmatch(expression):
        return None
    tree = yaql_syntax.parse(expression)
    return tree if tree is not None and _arithmetic(tree) else None


def evaluate(tree: yaql_syntax.Tree, data: Any) -> Any:
    """The scalar yaql gives for ``tree`` over ``{'data': data}``; :class:`Unsupported`
    when only yaql can say, or when the value is a collection."""
    result = yaql_queries.evaluate(tree, data, arithmetic=True)
    if result is not None and not isinstance(result, int | float | str):
        raise Unsupported
    return result
