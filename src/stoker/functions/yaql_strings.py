"""yaql's string functions for the native evaluator: ``str``, ``toLower``, ``replace``
(of a string or of a ``regex``), ``split``, ``join`` and the yaql function's safe
``format``, as yaql 3 (and the yaql function) run them.

They are Python's own string methods under yaql's parameter types: a ``String`` parameter
takes a string only (never null), so any other value is declined, as is ``str`` of a
collection (yaql prints the Python representation of its own tuple or frozen dict) and a
``format`` argument that is not a scalar. ``split`` gives a Python list (a `Grown`), as
yaql does.
"""

from __future__ import annotations

import re
import string
from functools import cache
from typing import TYPE_CHECKING, Any

from stoker.functions import yaql_subset
from stoker.functions.yaql_values import Grown

if TYPE_CHECKING:
    from stoker.functions.yaql_queries import Evaluation, Scope
    from stoker.functions.yaql_syntax import Tree

#: the largest width or precision ``format`` accepts, so ``{0:>999999999}`` cannot be used
#: to exhaust memory
MAX_FORMAT_WIDTH = 10000
#: the types whose ``str`` and ``format`` are Python's for yaql's value as for this one's
_SCALARS = (str, int, float, bool, type(None))
_PATTERN = type(re.compile(""))


@cache
def _formatter() -> Any:
    """``str.format`` without attribute or index access into the arguments (made when an
    expression first formats: `string` compiles a pattern when imported)."""

    class SafeFormatter(string.Formatter):
        def get_field(self, field_name: str, args: Any, kwargs: Any) -> Any:
            if "." in field_name or "[" in field_name:
                raise ValueError(
                    f"format field {{{field_name}}} is not allowed: only argument positions "
                    "and names can be used, not attribute or index access"
                )
            return super().get_field(field_name, args, kwargs)

        def format_field(self, value: Any, format_spec: str) -> Any:
            if any(int(number) > MAX_FORMAT_WIDTH for number in re.findall(r"\d+", format_spec)):
                raise ValueError(f"format width or precision above {MAX_FORMAT_WIDTH}")
            return super().format_field(value, format_spec)

    return SafeFormatter()


def safe_format(format_string: str, *args: Any, **kwargs: Any) -> str:
    """yaql 2's ``string.format(args…, name => value…)`` minus attribute/index access."""
    return str(_formatter().vformat(format_string, args, kwargs))


def to_string(value: Any) -> str:
    """yaql's ``str`` of a scalar: ``null``, ``true`` and ``false`` as yaql writes them."""
    if type(value) not in _SCALARS:
        raise yaql_subset.Unsupported  # the Python repr of yaql's own tuple or frozen dict
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    try:
        return str(value)
    except ValueError as exc:  # an int past Python's digit limit: yaql fails
        raise yaql_subset.Unsupported from exc


def function(evaluation: Evaluation, name: str, arguments: tuple[Tree, ...], scope: Scope) -> Any:
    """``str`` and ``regex``; `yaql_subset.Unsupported` for any other."""
    if any(argument[0] == "rule" for argument in arguments):
        raise yaql_subset.Unsupported
    values = [evaluation.evaluate(argument, scope) for argument in arguments]
    if name == "str" and len(values) == 1:
        return to_string(values[0])
    if name == "regex" and len(values) == 1 and type(values[0]) is str:
        try:
            return re.compile(values[0])
        except re.error as exc:
            raise yaql_subset.Unsupported from exc
    raise yaql_subset.Unsupported


def method(
    evaluation: Evaluation, name: str, receiver: Any, arguments: tuple[Tree, ...], scope: Scope
) -> Any:
    """The string methods of this module; `yaql_subset.Unsupported` for any other."""
    if any(argument[0] == "rule" for argument in arguments):
        raise yaql_subset.Unsupported
    values = [evaluation.evaluate(argument, scope) for argument in arguments]
    strings = all(type(value) is str for value in values)
    if name == "toLower" and not values and type(receiver) is str:
        return receiver.lower()
    if name == "replace" and len(values) == 2 and strings:
        if type(receiver) is str:
            return receiver.replace(values[0], values[1], -1)
        if type(receiver) is _PATTERN:
            try:
                return receiver.sub(values[1], values[0], 0)
            except (re.error, IndexError) as exc:  # a bad group reference in the template
                raise yaql_subset.Unsupported from exc
    if name == "split" and len(values) == 1 and strings and type(receiver) is str:
        if not values[0]:
            raise yaql_subset.Unsupported  # Python's ValueError: an empty separator
        return Grown(receiver.split(values[0], -1))
    if name == "join" and len(values) == 1 and strings and type(receiver) is not str:
        items = evaluation.iterable(receiver)
        return values[0].join(evaluation.charged(to_string(item)) for item in items)
    if name == "format" and type(receiver) is str:
        if any(type(value) not in _SCALARS for value in values):
            raise yaql_subset.Unsupported
        try:
            return safe_format(receiver, *values)
        except (ValueError, IndexError, KeyError) as exc:
            raise yaql_subset.Unsupported from exc
    raise yaql_subset.Unsupported
