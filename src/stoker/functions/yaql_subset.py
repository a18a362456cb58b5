"""A native evaluator for a small subset of YAQL, with yaql itself as the fallback.

yaql is slow for what templates mostly ask of it: ``$.data.sizes.sum() + $.data.extra``
spends nearly all its time in yaql's overload resolution (twelve calls, each weighing
every overload of its name against the argument types), and the first use pays much
more to import yaql and build its parser tables. Arithmetic over data paths needs none of
that, so this module evaluates that subset directly:

* ``$`` followed by ``.name`` steps into dictionaries (``$.data.a.b``), optionally ending
  in one of the methods ``sum()``, ``max()``, ``min()`` or ``len()``;
* integer and decimal literals;
* the binary operators ``+ - * /`` with yaql's precedence, and parentheses.

**It never decides anything yaql would decide differently.** The parser accepts only
expressions yaql parses to the same tree; everything else is ``None`` and goes to yaql.
The evaluator takes only the happy path it can prove identical to yaql 3 under Heat's
options (``limitIterators`` 200, ``memoryQuota`` 10000): a missing key, a receiver that is
not a dictionary, a boolean or non-number operand (yaql's ``Number`` excludes ``bool``), an
empty or over-long collection, a division by zero, a value over the memory quota or a
result that is not a scalar all raise :class:`Unsupported`, and the caller evaluates the
same expression with yaql, whose result or error is then the answer. Evaluation has no side
effects, so evaluating again with yaql is safe. ``tests/functions/test_yaql_subset.py``
compares the two on generated expressions and data (hypothesis).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from stoker.limits import active_limits
from stoker.patterns import LazyPattern

#: words yaql's lexer reads as constants or operators, never as a key name
_RESERVED = frozenset({"true", "false", "null", "and", "or", "not", "in", "mod"})
_METHODS = frozenset({"sum", "max", "min", "len"})

# One token each: spaces (only between operands and operators), a path, a number, an
# operator or a parenthesis. Names are ASCII: yaql's lexer also takes Unicode letters,
# which this subset leaves to it.
_TOKEN = LazyPattern(
    r"(?P<space> +)"
    r"|(?P<path>\$(?:\.[A-Za-z_][A-Za-z0-9_]*)+(?:\(\))?)"
    r"|(?P<number>[0-9]+(?:\.[0-9]+)?)"
    r"|(?P<op>[-+*/])"
    r"|(?P<paren>[()])"
)
#: what may follow a path or a number: yaql's lexer ends both at a word boundary
_AFTER_OPERAND = frozenset(" +-*/)")

Tree = tuple[Any, ...]
_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2}


class Unsupported(Exception):
    """The expression or its data is outside the subset: yaql must evaluate it."""


def _tokens(expression: str) -> list[tuple[str, str]] | None:
    tokens: list[tuple[str, str]] = []
    position = 0
    while position < len(expression):
        match = _TOKEN.match(expression, position)
        if match is None:
            return None
        kind = match.lastgroup
        assert kind is not None
        position = match.end()
        following = expression[position : position + 1]
        if kind in ("path", "number") and following and following not in _AFTER_OPERAND:
            return None
        if kind != "space":
            tokens.append((kind, match.group()))
    return tokens


def _path(text: str) -> Tree | None:
    method = None
    if text.endswith("()"):
        text = text[:-2]
        method = text.rsplit(".", 1)[1]
        if method not in _METHODS:
            return None
        text = text.rsplit(".", 1)[0]
    names = tuple(text.split(".")[1:])
    if any(name in _RESERVED or name.startswith("__") for name in names):
        return None
    return ("path", names, method)


class _Parser:
    """Precedence climbing over the tokens; any deviation from the grammar is ``None``."""

    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens = tokens
        self.index = 0

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.index] if self.index < len(self.tokens) else None

    def operand(self) -> Tree | None:
        token = self.peek()
        if token is None:
            return None
        self.index += 1
        kind, text = token
        if kind == "number":
            return ("const", float(text) if "." in text else int(text))
        if kind == "path":
            return _path(text)
        if text == "(":
            inner = self.expression(1)
            if inner is None or self.peek() != ("paren", ")"):
                return None
            self.index += 1
            return inner
        return None

    def expression(self, minimum: int) -> Tree | None:
        left = self.operand()
        while left is not None:
            token = self.peek()
            if token is None or token[0] != "op" or _PRECEDENCE[token[1]] < minimum:
                break
            self.index += 1
            right = self.expression(_PRECEDENCE[token[1]] + 1)  # left-associative
            if right is None:
                return None
            left = ("op", token[1], left, right)
        return left


@lru_cache(maxsize=512)
def parse(expression: str) -> Tree | None:
    """The expression's tree if it lies in the subset, else ``None`` (yaql's to parse)."""
    tokens = _tokens(expression)
    if not tokens:
        return None
    parser = _Parser(tokens)
    tree = parser.expression(1)
    if tree is None or parser.index != len(tokens):
        return None
    return tree


_SMALL = 1 << 62


def _charged(value: Any) -> Any:
    """``value`` if yaql's memory check on a call's result passes, as yaql measures it: a
    list is a tuple to yaql (its input conversion), a dictionary a ``FrozenDict`` whose
    own size is small and fixed."""
    kind = type(value)
    if kind is float or (kind is int and -_SMALL < value < _SMALL) or isinstance(value, dict):
        return value  # a float's or a machine-sized int's size is a few dozen bytes
    measured = tuple(value) if isinstance(value, list) else value
    if sys.getsizeof(measured, 0) > active_limits().yaql_memory:
        raise Unsupported
    return value


def _number(value: Any) -> int | float:
    if type(value) is not int and type(value) is not float:
        raise Unsupported  # yaql's Number excludes bool; other types pick other overloads
    return value


def _divide(left: int | float, right: int | float) -> int | float:
    if isinstance(left, int) and isinstance(right, int):
        return left // right
    return left / right


_OPERATORS: dict[str, Callable[[Any, Any], Any]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": _divide,
}


def _numbers(collection: Any) -> list[int | float]:
    """A collection for yaql's ``Iterable`` parameter: a list (a tuple to yaql) of at most
    yaql's ``limitIterators`` numbers (the active limits'), not empty (yaql's reduce
    would fail)."""
    if not isinstance(collection, list) or not 0 < len(collection) <= (
        active_limits().yaql_iterators
    ):
        raise Unsupported
    return [_number(item) for item in collection]


def _method(name: str, receiver: Any) -> Any:
    if name == "len":
        if not isinstance(receiver, list | dict | str):
            raise Unsupported
        return len(receiver)
    items = _numbers(receiver)
    result = items[0]
    for item in items[1:]:
        if name == "sum":  # yaql folds with its ``+`` operator, left to right
            result = _charged(result + item)
        elif name == "max":  # yaql's max(a, b): b if b > a else a
            result = item if item > result else result
        else:  # yaql's min(a, b): a if b > a else b
            result = result if item > result else item
    return result


def _evaluate(tree: Tree, root: dict[str, Any]) -> Any:
    kind = tree[0]
    if kind == "const":
        return tree[1]
    if kind == "path":
        value: Any = root
        for name in tree[1]:
            if not isinstance(value, dict) or name not in value:
                raise Unsupported
            value = _charged(value[name])
        if tree[2] is not None:
            try:
                value = _charged(_method(tree[2], value))
            except ArithmeticError as exc:  # a sum too large for a float
                raise Unsupported from exc
        return value
    left = _number(_evaluate(tree[2], root))
    right = _number(_evaluate(tree[3], root))
    try:
        return _charged(_OPERATORS[tree[1]](left, right))
    except ArithmeticError as exc:  # division by zero, a float overflow
        raise Unsupported from exc


def evaluate(tree: Tree, data: Any) -> Any:
    """The value yaql gives for ``tree`` over ``{'data': data}``; :class:`Unsupported` when
    only yaql can say."""
    result = _evaluate(tree, {"data": data})
    if result is not None and not isinstance(result, int | float | str):
        raise Unsupported  # collections go through yaql's output conversion and limits
    return _charged(result)
