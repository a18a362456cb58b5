"""A native evaluator for the query chains of `stoker.functions.yaql_syntax`, as yaql 3 does.

TripleO's create evaluates dozens of chains like
``list(coalesce($.data.role_data, []).where($ != null).select($.get('firewall_rules'))
.where($ != null)).flatten()`` over half a megabyte of role data; yaql spends nearly all
of that time resolving overloads for every call on every item. The functions these chains
use are simple, so this module runs them directly over the JSON data:
``coalesce``, ``list``, ``where``, ``select``, ``get``, ``flatten``, ``distinct``,
``reduce``, ``mergeWith``, ``zip``, ``.name``, indexers, ``!=``/``=``, ``[...]`` and ``{}``,
and arithmetic: ``+ - * /`` over numbers, ``sum()``, ``max()``, ``min()`` and ``len()``.

**It never decides anything yaql would decide differently.** Values mirror yaql's own:
a JSON list stands for yaql's tuple (its input conversion and its ``#list``/``toList``
give tuples), a dict for its ``FrozenDict``, a `_Merged` dict for the plain dict
``mergeWith`` builds, and a `_Stream` for an iterator (``where``/``select``/... are lazy in
yaql; here they are materialized, which only matters where yaql would consume an iterator
twice or not at all, and those paths are declined). Each of yaql's checks is made where
yaql makes it: the iterator limit on every collection an ``Iterable`` parameter takes and
on every collection of the output, the memory quota on every call's result (a tuple's
size from its length, a string's and a plain dict's exactly, small objects bounded). Any
function, type, argument or edge it does not model exactly (an unknown name, a receiver
of another type, a missing key, an index out of range, an unhashable item, a lambda
yielding an iterator, a quota below `_MIN_QUOTA` ...) raises `yaql_subset.Unsupported`,
and the caller evaluates the expression with yaql, whose result or error is the answer.
Evaluation has no side effects. ``tests/functions/test_yaql_queries.py`` compares the two
on generated expressions and data, and on TripleO's own expressions.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from stoker.functions import yaql_subset
from stoker.functions.yaql_syntax import Tree
from stoker.limits import active_limits

#: an upper bound of ``sys.getsizeof`` of the small objects yaql makes (a ``FrozenDict``,
#: a ``filter``, ``map`` or ``zip`` object, a generator, a dict's items view)
_SMALL = 256
#: below this memory quota even those could fail yaql's check: yaql decides
_MIN_QUOTA = 16 * _SMALL
#: ``sys.getsizeof`` of an empty tuple, and what each item adds
_TUPLE = sys.getsizeof(())
_SLOT = 8
#: deeper nesting is left to yaql (its recursion, not this one's, must fail first)
_MAX_DEPTH = 64


class _Stream(list[Any]):
    """An iterator of yaql's (``filter``, ``map``, a generator), already drawn."""

    __slots__ = ()


class _Merged(dict[Any, Any]):
    """A plain dict built by ``mergeWith``, with ``sys.getsizeof`` of yaql's own."""

    __slots__ = ("size",)
    size: int


Scope = dict[str, Any]


class _Evaluation:
    """One evaluation under the active limits."""

    def __init__(self, arithmetic: bool) -> None:
        self.arithmetic = arithmetic
        limits = active_limits()
        self.limit = limits.yaql_iterators
        self.quota = limits.yaql_memory
        if self.quota < _MIN_QUOTA or self.limit < 0:
            raise yaql_subset.Unsupported

    # yaql's checks

    def charged(self, value: Any) -> Any:
        """``value`` if yaql's memory check on a call's result passes."""
        kind = type(value)
        if kind is _Stream or kind is dict:
            size = _SMALL
        elif kind is list:
            size = _TUPLE + _SLOT * len(value)
        elif kind is _Merged:
            size = value.size
        else:
            size = sys.getsizeof(value, 0)
        if size > self.quota:
            raise yaql_subset.Unsupported
        return value

    def iterable(self, value: Any) -> list[Any]:
        """``value`` as yaql's ``Iterable`` parameter takes it: a tuple or an iterator
        (not a string or a mapping), of at most the iterator limit's items."""
        if type(value) is not list and type(value) is not _Stream:
            raise yaql_subset.Unsupported
        if len(value) > self.limit:
            raise yaql_subset.Unsupported
        return value

    # the tree

    def evaluate(self, tree: Tree, scope: Scope) -> Any:
        kind = tree[0]
        if kind == "const":
            return tree[1]
        if kind == "wrap":
            return self.evaluate(tree[1], scope)
        if kind == "get":
            name = "$1" if tree[1] == "$" else tree[1]
            if name not in scope:
                raise yaql_subset.Unsupported  # yaql gives null, or a value of an outer context
            return self.charged(scope[name])
        if kind == "binop":
            return self.charged(self.operator(tree, scope))
        if kind == "call":
            return self.charged(self.function(tree[1], tree[2], scope))
        if kind == "index":
            return self.charged(self.index(tree, scope))
        if kind == "list":
            items = [self.evaluate(item, scope) for item in tree[1]]
            if sum(self.size_bound(item) for item in items) > self.quota:
                raise yaql_subset.Unsupported
            return self.charged(items)
        return self.charged({})  # ``{}``: an empty FrozenDict

    def size_bound(self, value: Any) -> int:
        try:
            self.charged(value)
        except yaql_subset.Unsupported:
            return self.quota + 1
        kind = type(value)
        if kind is list:
            return _TUPLE + _SLOT * len(value)
        if kind is _Merged:
            return int(value.size)
        if kind is _Stream or kind is dict:
            return _SMALL
        return sys.getsizeof(value, 0)

    def operator(self, tree: Tree, scope: Scope) -> Any:
        name, left_tree, right_tree = tree[1], tree[2], tree[3]
        left = self.evaluate(left_tree, scope)
        if name == "#operator_.":
            if right_tree[0] == "key":
                if type(left) is not dict and type(left) is not _Merged:
                    raise yaql_subset.Unsupported
                if right_tree[1] not in left:
                    raise yaql_subset.Unsupported  # yaql: KeyError
                return left[right_tree[1]]
            if right_tree[0] != "call":
                raise yaql_subset.Unsupported
            return self.method(right_tree[1], left, right_tree[2], scope)
        right = self.evaluate(right_tree, scope)
        if name in ("*equal", "*not_equal"):
            if _lazy(left) or _lazy(right):
                raise yaql_subset.Unsupported  # an iterator compares by identity
            return (left == right) if name == "*equal" else (left != right)
        if name not in _ARITHMETIC or not self.arithmetic:
            raise yaql_subset.Unsupported
        try:
            return _ARITHMETIC[name](_number(left), _number(right))
        except ArithmeticError as exc:  # division by zero, an int too large for a float
            raise yaql_subset.Unsupported from exc

    def index(self, tree: Tree, scope: Scope) -> Any:
        value = self.evaluate(tree[1], scope)
        if len(tree[2]) != 1 or type(value) is not list:
            raise yaql_subset.Unsupported
        position = self.evaluate(tree[2][0], scope)
        if type(position) is not int or not -len(value) <= position < len(value):
            raise yaql_subset.Unsupported
        return value[position]

    def lambda_(self, tree: Tree, scope: Scope) -> Callable[..., Any]:
        """A yaql lambda: its arguments are ``$1``, ``$2`` ... (``$`` is ``$1``) in a
        context below the caller's."""

        def call(*arguments: Any) -> Any:
            inner = dict(scope)
            for number, argument in enumerate(arguments, 1):
                inner[f"${number}"] = argument
            result = self.evaluate(tree, inner)
            if _lazy(result):
                raise yaql_subset.Unsupported  # an iterator inside a collection
            return result

        return call

    # functions and methods

    def function(self, name: str, arguments: tuple[Tree, ...], scope: Scope) -> Any:
        if name == "coalesce":
            for argument in arguments:
                value = self.evaluate(argument, scope)
                if value is not None:
                    return value
            return None
        if name == "list":
            values = [self.evaluate(argument, scope) for argument in arguments]
            items: list[Any] = []
            for value in values:
                if type(value) is _Stream:
                    items.extend(value)  # an iterator's items, not the iterator
                else:
                    items.append(value)
            if len(items) > self.limit:
                raise yaql_subset.Unsupported
            return items  # yaql's ``toList``: a tuple, charged by the caller
        raise yaql_subset.Unsupported

    def method(self, name: str, receiver: Any, arguments: tuple[Tree, ...], scope: Scope) -> Any:
        count = len(arguments)
        if name in ("where", "select") and count == 1:
            items = self.iterable(receiver)
            function = self.lambda_(arguments[0], scope)
            if name == "where":
                return _Stream(item for item in items if _truth(function(item)))
            return _Stream(function(item) for item in items)
        if name == "get" and count in (1, 2):
            if type(receiver) is not dict and type(receiver) is not _Merged:
                raise yaql_subset.Unsupported
            key = self.evaluate(arguments[0], scope)
            default = self.evaluate(arguments[1], scope) if count == 2 else None
            if type(key) not in (str, int, float, bool, type(None)):
                raise yaql_subset.Unsupported
            return receiver.get(key, default)
        if name == "flatten" and count == 0:
            flat = _Stream()
            _flatten(self.iterable(receiver), flat, 0)
            return flat
        if name == "distinct" and count == 0:
            return _Stream(self.distinct(self.iterable(receiver)))
        if name == "reduce" and count in (1, 2):
            items = self.iterable(receiver)
            function = self.lambda_(arguments[0], scope)
            if count == 1:
                if not items:
                    raise yaql_subset.Unsupported  # yaql: reduce of an empty sequence
                result, rest = items[0], items[1:]
            else:
                result, rest = self.evaluate(arguments[1], scope), items
            for item in rest:
                result = function(result, item)
            return result
        if name == "mergeWith" and count == 1:
            another = self.evaluate(arguments[0], scope)
            if not _mapping(receiver) or not _mapping(another):
                raise yaql_subset.Unsupported
            return self.merge(receiver, another, 0)
        if name in ("sum", "max", "min") and count == 0:
            return self.fold(name, receiver)
        if name == "len" and count == 0:
            if type(receiver) not in (list, dict, str):
                raise yaql_subset.Unsupported
            return len(receiver)
        if name == "zip" and count >= 1:
            others = [self.iterable(self.evaluate(argument, scope)) for argument in arguments]
            columns = [self.iterable(receiver), *others]
            return _Stream(list(row) for row in zip(*columns, strict=False))
        raise yaql_subset.Unsupported

    def fold(self, name: str, receiver: Any) -> Any:
        """yaql's ``sum``, ``max`` and ``min`` of a tuple of numbers: folded left to right
        (``sum`` with its ``+``, each partial sum charged; ``max(a, b)`` is ``b if b > a
        else a``, ``min(a, b)`` is ``a if b > a else b``). An empty one is yaql's to refuse."""
        if type(receiver) is not list or not receiver:
            raise yaql_subset.Unsupported
        items = [_number(item) for item in self.iterable(receiver)]
        result = items[0]
        try:
            for item in items[1:]:
                if name == "sum":
                    result = self.charged(result + item)
                elif name == "max":
                    result = item if item > result else result
                else:
                    result = result if item > result else item
        except ArithmeticError as exc:  # a sum too large for a float
            raise yaql_subset.Unsupported from exc
        return result

    def distinct(self, items: list[Any]) -> list[Any]:
        """yaql's ``distinct``: the first of equal items, in order; its set of seen items
        held to the memory quota (its size depends only on how many were added)."""
        seen: set[Any] = set()
        kept = []
        for item in items:
            key = _frozen(item, 0)
            if key not in seen:
                seen.add(key)
                kept.append(item)
        if sys.getsizeof(seen, 0) > self.quota:
            raise yaql_subset.Unsupported
        return kept

    def merge(self, first: Any, second: Any, depth: int) -> _Merged:
        """yaql's ``_merge_dicts`` with its default mergers: nested maps merged, lists
        joined without duplicates (``toList(distinct(a + b))``), other values replaced."""
        if depth > _MAX_DEPTH:
            raise yaql_subset.Unsupported
        result: dict[Any, Any] = {}
        for key, value1 in first.items():
            result[key] = value1
            if key in second:
                value2 = second[key]
                if _lazy(value1) or _lazy(value2):
                    raise yaql_subset.Unsupported
                if _mapping(value2):
                    if not _mapping(value1):
                        raise yaql_subset.Unsupported  # yaql: TypeError, cannot merge
                    result[key] = self.merge(value1, value2, depth + 1)
                elif type(value2) is list:
                    if type(value1) is not list:
                        raise yaql_subset.Unsupported
                    joined = self.iterable(self.distinct(value1 + value2))
                    result[key] = self.charged(joined)
                else:
                    result[key] = value2
        for key, value2 in second.items():
            if key not in result:
                result[key] = value2
        merged = _Merged(result)
        merged.size = sys.getsizeof(result, 0)
        return merged


def _number(value: Any) -> int | float:
    if type(value) is not int and type(value) is not float:
        raise yaql_subset.Unsupported  # yaql's Number excludes bool; other types: other overloads
    return value


def _divide(left: int | float, right: int | float) -> int | float:
    if type(left) is int and type(right) is int:
        return left // right
    return left / right


_ARITHMETIC: dict[str, Callable[[Any, Any], Any]] = {
    "#operator_+": lambda a, b: a + b,
    "#operator_-": lambda a, b: a - b,
    "#operator_*": lambda a, b: a * b,
    "#operator_/": _divide,
}


def _lazy(value: Any) -> bool:
    return type(value) is _Stream


def _mapping(value: Any) -> bool:
    return type(value) is dict or type(value) is _Merged


def _truth(value: Any) -> bool:
    if _lazy(value):
        raise yaql_subset.Unsupported
    return bool(value)


def _flatten(items: list[Any], into: list[Any], depth: int) -> None:
    """yaql's ``flatten``: every item that is a collection but not a string or a mapping
    is replaced by its own items, recursively."""
    if depth > _MAX_DEPTH:
        raise yaql_subset.Unsupported
    for item in items:
        if type(item) is list:
            _flatten(item, into, depth + 1)
        else:
            into.append(item)


def _frozen(value: Any, depth: int) -> Any:
    """A hashable key equal to another exactly when yaql's converted values are equal
    (a tuple for a tuple, a frozen set of items for a ``FrozenDict``)."""
    if depth > _MAX_DEPTH:
        raise yaql_subset.Unsupported
    kind = type(value)
    if kind is list:
        return tuple(_frozen(item, depth + 1) for item in value)
    if kind is dict:
        return frozenset((key, _frozen(item, depth + 1)) for key, item in value.items())
    if kind is _Merged or kind is _Stream:
        raise yaql_subset.Unsupported  # a plain dict is unhashable; an iterator hashes by id
    return value


def _output(value: Any, evaluation: _Evaluation, depth: int) -> Any:
    """yaql's output conversion: tuples and iterators become lists and mappings dicts, each
    held to the iterator limit (and a tuple's size to the quota, as its ``#iter`` does)."""
    if depth > _MAX_DEPTH:
        raise yaql_subset.Unsupported
    kind = type(value)
    if kind is list or kind is _Stream:
        evaluation.iterable(value)
        if kind is list:
            evaluation.charged(value)
        return list(_output(item, evaluation, depth + 1) for item in value)
    if kind is dict or kind is _Merged:
        if len(value) > evaluation.limit:
            raise yaql_subset.Unsupported
        result = {}
        for key, item in value.items():
            result[key] = _output(item, evaluation, depth + 1)
        return result
    return value


def evaluate(tree: Tree, data: Any, *, arithmetic: bool = False) -> Any:
    """The value yaql gives for ``tree`` over ``{'data': data}`` (JSON data, keys strings),
    as Heat hands it on (lists and dicts, new containers); `yaql_subset.Unsupported` when
    only yaql can say. ``data`` is not changed. Arithmetic operators are evaluated only with
    ``arithmetic`` (the yaql function's way; the query tests pin that they are declined
    without it)."""
    evaluation = _Evaluation(arithmetic)
    value = evaluation.evaluate(tree, {"$1": {"data": data}})
    result = _output(value, evaluation, 0)
    if sys.getsizeof(result, 0) > evaluation.quota:  # yaql's check of ``#finalize``
        raise yaql_subset.Unsupported
    return result
