"""``yaql``: evaluate a YAQL expression over template data (heat-semantics §2, §0).

Heat runs whatever yaql is installed with its ``[yaql]`` configuration: ``limit_iterators``
200 and ``memory_quota`` 10000 by default (TripleO's undercloud sets 1000 and 100000, its
client's own Heat 9000 and 900000); the active `stoker.limits.Limits` carry them
(``--yaql-limit-iterators``, ``--yaql-memory-quota``). yaql 3 dropped the string
``format`` method as a security fix, yet real templates (TripleO) call
``"{0}".format($.data)``; a safe replacement that only substitutes positional and keyword
arguments is registered here.

yaql itself is imported on first use: importing it costs more than a whole ``template
validate`` of a template that does not use it. Every expression is parsed and evaluated by
yaql.
"""

from __future__ import annotations

import collections.abc  # noqa: F401 - yaql 3.2 needs it imported before itself
import json
import marshal
import re
import string
from collections.abc import Iterator, Mapping
from functools import cache, lru_cache
from typing import Any

from stoker.diagnostics import Diagnostic
from stoker.errors import FunctionError
from stoker.functions.base import Function, json_keys
from stoker.functions.strings import PureFunction
from stoker.limits import active_limits

#: the largest width or precision ``format`` accepts, so ``{0:>999999999}`` cannot be used
#: to exhaust memory
MAX_FORMAT_WIDTH = 10000


@cache
def _formatter() -> Any:
    """``str.format`` without attribute or index access into the arguments (made when a
    yaql expression first formats: `string` compiles a pattern when imported)."""

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


def _format(format_string: str, *args: Any, **kwargs: Any) -> str:
    """yaql 2's ``string.format(args…, name => value…)`` minus attribute/index access."""
    return str(_formatter().vformat(format_string, args, kwargs))


def _format_function() -> Any:
    """`_format` declared as yaql's ``format`` extension method (declared once: yaql's
    decorators add to the function's own declaration)."""
    from yaql.language import specs, yaqltypes

    declared = specs.name("format")(specs.extension_method(_format))
    return specs.parameter("format_string", yaqltypes.String())(declared)


def _finalize_function() -> Any:
    """yaql's ``#finalize`` (what turns an expression's result into plain data), as yaql's
    default one does it, without calling its ``#iter`` limiter through a function lookup
    for every container of every result.

    yaql's default finalizer (``yaql.create_context`` without ``finalizer``) passes a
    delegate of ``#iter`` to ``utils.convert_output_data``; ``#iter`` takes an
    ``yaqltypes.Iterable`` and returns it, so each call checks the value's memory
    (``utils.limit_memory_usage``, as every argument's conversion does), limits it
    (``utils.limit_iterable``, the conversion ``Iterable`` adds) and checks the memory of
    what it returns (as yaql's runner does after every call). ``limit`` below makes those
    three calls directly, in that order, so results and errors are the same (the tests
    compare both with yaql's own). A context made with this finalizer has no ``#iter``:
    only ``yaql_interface.YaqlInterface`` calls it, given to functions that declare a
    ``yaql_interface`` parameter, and none registered here does."""
    from yaql.language import specs, utils, yaqltypes

    def finalize(obj: Any, engine: Any) -> Any:
        if not engine.options.get("yaql.convertOutputData", True):
            return obj

        def limit(iterable: Any) -> Any:
            utils.limit_memory_usage(engine, (1, iterable))
            limited = utils.limit_iterable(iterable, engine)
            utils.limit_memory_usage(engine, (1, limited))
            return limited

        return utils.convert_output_data(obj, limit, engine)

    return specs.name("#finalize")(specs.inject("engine", yaqltypes.Engine())(finalize))


class _Engine:
    """The yaql parser for one pair of limits, and the root context."""

    def __init__(self, parse: Any, context: Any) -> None:
        self.parse = parse
        self.context = context


@cache
def _base() -> _Engine:
    """yaql's parser (building its tables is the costly part) and the root context with
    ``format``, made on first use."""
    import yaql

    context = yaql.create_context(finalizer=_finalize_function())
    context.register_function(_format_function())
    return _Engine(yaql.YaqlFactory().create(), context)


@lru_cache(maxsize=4)
def engine(limit_iterators: int, memory_quota: int) -> _Engine:
    """The parser under these limits (Heat's ``[yaql]``), sharing the one built."""
    base = _base()
    options = {"yaql.limitIterators": limit_iterators, "yaql.memoryQuota": memory_quota}
    return _Engine(base.parse.copy(options), base.context)


def active_engine() -> _Engine:
    """The engine of the limits in force (`stoker.limits.active_limits`)."""
    limits = active_limits()
    return engine(limits.yaql_iterators, limits.yaql_memory)


@lru_cache(maxsize=512)
def _parsed(expression: str, limit_iterators: int, memory_quota: int) -> Any:
    return engine(limit_iterators, memory_quota).parse(expression)


def parse_expression(expression: str) -> Any:
    """The parsed expression (bound to the engine of the limits in force); yaql's
    ``YaqlException`` if it does not parse."""
    limits = active_limits()
    return _parsed(expression, limits.yaql_iterators, limits.yaql_memory)


#: how many evaluations `_results` keeps
RESULTS_KEPT = 512

#: yaql's results by expression, data (as `_shape` writes it) and limits: an expression
#: is a pure function of its data, and a tree such as TripleO's evaluates the same one
#: over the same data many times (a template used by several resources, checked before
#: the create and again as its stack is created). Only results of data JSON can write are
#: kept, never errors (their message names the template they come from); the oldest goes
#: first.
_results: dict[tuple[str, bytes, int, int], Any] = {}
_NOT_KEPT = object()

#: how many inputs `_input` keeps, converted
INPUTS_KEPT = 16
#: yaql's input (``{"data": ...}`` as yaql converts it) by the data's `_shape`, newest last
_inputs: dict[bytes, Any] = {}


def _shape(data: Any) -> bytes | None:
    """The data as `marshal` writes it, the key of its results and of its converted input;
    None when marshal refuses it (then nothing is kept).

    A key must tell apart whatever yaql could tell apart, and be cheap: the data is written
    on every call, most calls find their result kept, and TripleO hands data of 585 KB to
    a dozen expressions each. marshal writes only the exact built-in types (a subclass of
    one is refused), each with its own code (``1``, ``1.0`` and ``true`` differ) and a
    dict's keys in their order, as yaql sees them; the text is read back as one value only,
    so equal texts are equal data, of the same types. Version 2 writes no back-references,
    which would depend on reference counts. Its one merger, of a bytes-like value with
    bytes, never reaches a kept entry: only data JSON can write is kept (`_input`). JSON's
    text, the key before, costs more to write (each string is escaped) and merges what
    Heat's engine merges (``{1: x}`` with ``{"1": x}``), which is harmless but not needed."""
    try:
        return marshal.dumps(data, 2)
    except ValueError:  # a type marshal does not write, or nesting too deep for it
        return None


def _input(shape: bytes | None, data: Any) -> tuple[Any, bool]:
    """What yaql's evaluation puts in ``$`` for ``data`` (its own conversion of the input,
    ``convert_input_data``: frozen dicts and tuples, which no expression can change), and
    whether its results may be kept (`_results`): the data has a `_shape` and JSON can
    write it, as Heat's engine got it. The input is made once per data rather than once per
    expression: TripleO evaluates a dozen expressions over each of its largest data."""
    if shape is not None:
        converted = _inputs.pop(shape, None)
        if converted is not None:
            _inputs[shape] = converted  # the newest again
            return converted, True
    from yaql.language.utils import convert_input_data

    text, heat_data = _json_data(data)
    converted = convert_input_data({"data": heat_data})
    if shape is None or text is None:
        return converted, False
    _keep(_inputs, shape, converted, INPUTS_KEPT)
    return converted, True


def _keep(kept: dict[Any, Any], key: Any, value: Any, most: int) -> None:
    """``kept[key] = value``, the oldest entry dropped first when ``kept`` has ``most``."""
    if len(kept) >= most:
        del kept[next(iter(kept))]
    kept[key] = value


def _data_key(data: Any) -> str | None:
    """The data as JSON text (keys in their order: yaql sees it), None when it is not
    JSON."""
    try:
        return json.dumps(data, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        return None


def _json_data(data: Any) -> tuple[str | None, Any]:
    """The data's JSON text (None when it is not JSON) and the data as Heat's engine hands
    it to yaql (`json_keys`).

    JSON's encoder writes every map key as `json_keys` makes it (``1`` -> ``"1"``,
    ``true`` -> ``"true"``, null -> ``"null"``, a float as its ``repr``) and refuses any
    other key, so when the data as given encodes, decoding its text gives `json_keys` of
    it, the copy made by C code. Data the encoder refuses (a key of another type, a
    non-finite float, a map that is not a dict, nesting too deep for it) is converted by
    `json_keys` instead."""
    try:
        text = json.dumps(data, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        converted = json_keys(data)
        return _data_key(converted), converted
    return text, json.loads(text)


class Yaql(PureFunction):
    """Evaluate a YAQL expression: ``yaql: {expression: $.data.ports.max(), data: {ports: [1]}}``.

    The expression sees the resolved ``data`` as ``$.data``; the result may be any type.
    """

    checked_when_parsed = True

    def _syntax_error(self) -> str:
        return (
            f'"{self.name}" syntax should be {self.name}: {{expression: $.data.var1.sum(), '
            "data: {var1: [3, 2, 1]}}"
        )

    def _shape_problem(self, args: Any) -> str | None:
        if type(args) is not dict and not isinstance(args, Mapping):  # no ABC check for a dict
            return f'Arguments to "{self.name}" must be a map.'
        if "expression" not in args or set(args) - {"expression", "data"}:
            return self._syntax_error()
        return None

    def _parse(self, expression: Any) -> Any:
        """yaql's statement for ``expression``, or the function's error."""
        if not isinstance(expression, str):
            raise self.error(f'The "expression" argument to {self.name} must contain a string.')
        from yaql.language.exceptions import YaqlException

        try:
            return parse_expression(expression)
        except YaqlException as exc:
            raise self.error(f"Bad expression {exc}.") from exc

    def check_arguments(self) -> Iterator[Diagnostic]:
        problem = self._shape_problem(self.args)
        if problem:
            yield self.invalid(problem)
            return
        expression = self.args["expression"]
        if not isinstance(expression, Function):
            try:
                self._parse(expression)
            except FunctionError as exc:
                yield self.invalid(exc.message)

    def compute(self, args: Any) -> Any:
        problem = self._shape_problem(args)
        if problem:
            raise self.error(problem)
        expression = args["expression"]
        data = args.get("data", {})
        statement = self._parse(expression)
        limits = active_limits()
        shape = _shape(data)
        key = (
            None
            if shape is None
            else (expression, shape, limits.yaql_iterators, limits.yaql_memory)
        )
        if key is not None:
            kept = _results.get(key, _NOT_KEPT)
            if kept is not _NOT_KEPT:
                return _primitive(kept)  # new containers: a caller may change its value
        context = active_engine().context.create_child_context()
        try:
            # the same as yaql's own conversion of the data (JSON keys), made once per data
            context["$"], keep = _input(shape, data)
            result = statement.evaluate(context=context)
        except Exception as exc:  # noqa: BLE001 - any failure of the expression is the user's
            detail = str(exc) or type(exc).__name__
            raise self.error(
                f"Error evaluating {self.name} expression {expression!r}: "
                f"{type(exc).__name__}: {detail}"
            ) from exc
        if key is not None and keep:
            # yaql's own result is kept and never handed out: `_primitive` makes each
            # caller new containers from it, so it is walked once per call
            _keep(_results, key, result, RESULTS_KEPT)
        return _primitive(result)


#: the containers `_primitive` makes lists of
_SEQUENCES = (list, tuple, set, frozenset)


def _primitive(value: Any) -> Any:
    """A yaql result as Heat hands it on (oslo's ``to_primitive``): sets and tuples (``keys()``
    gives a set) become lists, so the value is JSON like any other; its containers are
    new ones."""
    if isinstance(value, dict):
        return {k: _primitive(v) for k, v in value.items()}
    if isinstance(value, _SEQUENCES):
        return [_primitive(v) for v in value]
    return value
