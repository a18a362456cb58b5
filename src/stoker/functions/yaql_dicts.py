"""yaql's dict building and grouping for the native evaluator: ``dict(...)``, ``keys()``,
``values()``, ``items()``, ``repeat``, ``selectMany`` and ``groupBy``, as yaql 3 runs them.

TripleO gathers its roles' ``container_puppet_tasks`` with
``dict(...select([$[0], dict($[0].keys().zip(dict(service_name=>$[1]).repeat(len($[0]
.keys())))))]).select($[0].mergeWith($[1])).selectMany($.items()).groupBy($[0], $[1]))``;
these are the functions such chains need beyond `stoker.functions.yaql_queries`'. Each
makes yaql's checks where yaql makes them: the iterator limit on what its ``Iterable``
parameters take, the memory quota on ``dict``'s and ``groupBy``'s growing dict after each
item (the same dict, built in the same order, so ``sys.getsizeof`` is yaql's) and on each
result (by the caller). What it does not model exactly (a pair that is not a tuple of two,
a key that is not a scalar, an aggregator, an endless ``repeat``) is declined.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from stoker.functions import yaql_subset
from stoker.functions.yaql_values import Grown, Merged, Stream, View

if TYPE_CHECKING:
    from stoker.functions.yaql_queries import Evaluation, Scope
    from stoker.functions.yaql_syntax import Tree

#: the types a key may have here: scalars hash and compare alike in yaql and in this code
_SCALARS = (str, int, float, bool, type(None))
#: the methods of this module
METHODS = frozenset({"keys", "values", "items", "repeat", "selectMany", "groupBy", "deleteAll"})
#: an upper bound of ``sys.getsizeof`` of yaql's ``MappingRule``
_RULE = 64


def build(evaluation: Evaluation, arguments: tuple[Tree, ...], scope: Scope) -> Any:
    """``dict(name => value, ...)`` (yaql's ``dict_``) or ``dict(pairs)`` (``dict__``)."""
    if all(argument[0] == "rule" for argument in arguments):
        if _RULE * len(arguments) > evaluation.quota:
            raise yaql_subset.Unsupported
        return {rule[1][1]: evaluation.evaluate(rule[2], scope) for rule in arguments}
    if len(arguments) != 1 or arguments[0][0] == "rule":
        raise yaql_subset.Unsupported
    result: dict[Any, Any] = {}
    for pair in evaluation.iterable(evaluation.evaluate(arguments[0], scope)):
        if type(pair) is not list or len(pair) < 2 or type(pair[0]) not in _SCALARS:
            raise yaql_subset.Unsupported  # yaql reads any iterable's first two items
        result[pair[0]] = pair[1]
        if sys.getsizeof(result, 0) > evaluation.quota:
            raise yaql_subset.Unsupported
    return result  # a FrozenDict


def method(
    evaluation: Evaluation, name: str, receiver: Any, arguments: tuple[Tree, ...], scope: Scope
) -> Any:
    """The methods of this module; `yaql_subset.Unsupported` for any other."""
    count = len(arguments)
    if name in ("keys", "values", "items") and count == 0:
        if type(receiver) is not dict and type(receiver) is not Merged:
            raise yaql_subset.Unsupported
        view = View(
            receiver.keys()
            if name == "keys"
            else receiver.values()
            if name == "values"
            else ([key, value] for key, value in receiver.items())
        )
        view.kind = name
        return view
    if name == "repeat" and count == 1:
        times = evaluation.evaluate(arguments[0], scope)
        if type(times) is not int or not 0 <= times <= evaluation.limit:
            raise yaql_subset.Unsupported  # an endless one, or one no Iterable could take
        if type(receiver) in (Stream, View, Grown):
            raise yaql_subset.Unsupported
        return Stream([receiver] * times)
    if name == "selectMany" and count == 1:
        items = evaluation.iterable(receiver)
        selector = evaluation.lambda_(arguments[0], scope, lazy=True)
        flat = Stream()
        for item in items:
            inner = selector(item)
            if type(inner) in (list, Stream, View, Grown):
                evaluation.draw(inner)
                flat.extend(inner)
            elif type(inner) in _SCALARS or type(inner) is dict or type(inner) is Merged:
                flat.append(inner)  # not iterable to yaql: a string or a mapping
            else:
                raise yaql_subset.Unsupported
        return flat
    if name == "deleteAll" and count == 1 and type(receiver) is dict:
        keys = evaluation.iterable(evaluation.evaluate(arguments[0], scope))
        if any(type(key) not in _SCALARS for key in keys):
            raise yaql_subset.Unsupported
        copy: dict[Any, Any] = {}
        for key, value in receiver.items():  # ``dict()`` of a FrozenDict: one at a time
            copy[key] = value
        for key in keys:
            copy.pop(key, None)
        merged = Merged(copy)  # a plain dict, of the copy's size
        merged.size = sys.getsizeof(copy, 0)
        return merged
    if name == "groupBy" and count in (1, 2):
        return _group(evaluation, receiver, arguments, scope)
    raise yaql_subset.Unsupported


def _group(evaluation: Evaluation, receiver: Any, arguments: tuple[Tree, ...], scope: Scope) -> Any:
    """yaql's ``groupBy`` without an aggregator: ``[key, [values...]]`` pairs in the order
    each key first appears, the groups' dict held to the quota after each item."""
    items = evaluation.iterable(receiver)
    key_of = evaluation.lambda_(arguments[0], scope)
    value_of = evaluation.lambda_(arguments[1], scope) if len(arguments) == 2 else None
    groups: dict[Any, Grown] = {}
    for item in items:
        value = item if value_of is None else value_of(item)
        key = key_of(item)
        if type(key) not in _SCALARS:
            raise yaql_subset.Unsupported  # a tuple or FrozenDict key: hashed as yaql's
        groups.setdefault(key, Grown()).append(value)
        if sys.getsizeof(groups, 0) > evaluation.quota:
            raise yaql_subset.Unsupported
    return Stream([key, group] for key, group in groups.items())
