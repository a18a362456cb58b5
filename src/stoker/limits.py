"""The budget of one evaluation: bounds on what hostile or runaway input may make stoker do.

A template is small, but what it describes need not be: YAML aliases share one value in
many places, ``repeat`` multiplies, ``str_replace`` and ``list_join`` copy, a
``ResourceGroup`` fans out, a zip inflates. Every command that reads templates (``template
validate/resolve/convert``, ``lint``, ``stack create``) runs under one `Limits`; what
crosses one stops the whole evaluation with a `LimitExceeded` that names the file, line,
column and template path where the work was asked for, and the option that raises the
limit. The defaults let trees of TripleO's size through many times over.

The active limits live in a context variable rather than in every signature: a function
call deep in a template computes its value from its arguments alone (`Function.compute`),
and the engine's tasks inherit the variable from the command that started them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, NamedTuple

from stoker.codes import LIMIT
from stoker.diagnostics import Diagnostic, Path, Span
from stoker.errors import LimitExceeded

KIB = 1024
MIB = 1024 * KIB


class Limit(NamedTuple):
    """How one limit is named to the user: its option, its environment variable, its unit.
    Entries of one constant table: a named tuple, as a frozen, slotted dataclass is
    costlier to create at import (Python compiles its generated methods)."""

    option: str
    unit: str
    help: str

    @property
    def envvar(self) -> str:
        """The option's environment variable: ``--max-nodes`` is ``STOKER_MAX_NODES``."""
        return "STOKER_" + self.option.removeprefix("--").replace("-", "_").upper()

    def named(self) -> str:
        return f"{self.option} or ${self.envvar}"


@dataclass(slots=True, frozen=True)
class Limits:
    """Bounds of one evaluation (every field is settable by a CLI option and a variable).
    Immutable, compared and hashed by value."""

    #: bytes of one template or environment file (Heat's max_template_size)
    template_size: int = 512 * KIB
    #: nodes of one document (keys, values and items), YAML aliases counted where used
    nodes: int = 250_000
    #: characters of the text of one document, YAML aliases counted where used
    expanded_size: int = 16 * MIB
    #: levels of nesting, in a document and in any value a function builds
    depth: int = 100
    #: approximate bytes of one value a function builds (repeat, str_replace, yaql ...)
    value_size: int = 8 * MIB
    #: approximate bytes of all values the functions of one command build together
    total_value_size: int = 256 * MIB
    #: resources in a whole tree (nested stacks and group members included)
    resources: int = 20_000
    #: members of one zip package (lint)
    zip_members: int = 10_000
    #: bytes a zip package expands to (lint)
    zip_size: int = 256 * MIB
    #: how many times larger a zip member may be than its compressed form (lint)
    zip_ratio: int = 100
    #: Heat's ``[yaql] limit_iterators``: the most items a yaql expression may take or make
    yaql_iterators: int = 200
    #: Heat's ``[yaql] memory_quota``: the most bytes one value of a yaql expression may use
    yaql_memory: int = 10000


#: field name -> how it is set; the CLI builds its options from this table
LIMITS: dict[str, Limit] = {
    "template_size": Limit(
        "--max-template-size", "bytes", "Largest template or environment file, in bytes."
    ),
    "nodes": Limit(
        "--max-nodes",
        "nodes",
        "Most nodes (keys, values, items) in one document, YAML aliases counted where used.",
    ),
    "expanded_size": Limit(
        "--max-expanded-size",
        "characters",
        "Most text in one document, YAML aliases counted where used (a YAML bomb guard).",
    ),
    "depth": Limit(
        "--max-depth",
        "levels",
        "Deepest nesting of data, in a document or a value a function builds.",
    ),
    "value_size": Limit(
        "--max-value-size",
        "bytes",
        "Largest value one function call may build (repeat, str_replace, list_join, "
        "map_merge, list_concat, yaql ...), in approximate bytes.",
    ),
    "total_value_size": Limit(
        "--max-total-value-size",
        "bytes",
        "Most all function calls of one command may build together, in approximate bytes.",
    ),
    "resources": Limit(
        "--max-resources",
        "resources",
        "Most resources in a whole tree (nested stacks and group members included).",
    ),
    "zip_members": Limit("--max-zip-members", "members", "Most members of a zip package."),
    "zip_size": Limit("--max-zip-size", "bytes", "Most bytes a zip package may expand to."),
    "zip_ratio": Limit(
        "--max-zip-ratio", "times", "How many times a zip member may expand (a zip bomb guard)."
    ),
    "yaql_iterators": Limit(
        "--yaql-limit-iterators",
        "items",
        "Heat's [yaql] limit_iterators: the most items one yaql expression may iterate "
        "(TripleO's undercloud sets 1000).",
    ),
    "yaql_memory": Limit(
        "--yaql-memory-quota",
        "bytes",
        "Heat's [yaql] memory_quota: the most bytes one value of a yaql expression may "
        "use (TripleO's undercloud sets 100000).",
    ),
}

assert set(LIMITS) == set(Limits.__slots__)  # noqa: S101 - one table, kept whole

#: no practical bound: for rebuilding what a create already accepted under its own limits
#: (a stored stack is deleted or resumed even when it was created with limits raised)
UNBOUNDED = Limits(**dict.fromkeys(Limits.__slots__, 2**62))


class Budget:
    """The limits of the running command and what its function calls have built so far."""

    __slots__ = ("limits", "spent")

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.spent = 0


_ACTIVE: ContextVar[Budget | None] = ContextVar("stoker_budget", default=None)
_DEFAULT_LIMITS = Limits()


def current() -> Budget:
    """The budget in force (a fresh default one when no command set any)."""
    budget = _ACTIVE.get()
    if budget is None:
        budget = Budget(_DEFAULT_LIMITS)
        _ACTIVE.set(budget)
    return budget


def active_limits() -> Limits:
    return current().limits


@contextmanager
def applied(limits: Limits) -> Iterator[Budget]:
    """Run the enclosed evaluation under ``limits`` with nothing spent yet."""
    budget = Budget(limits)
    token = _ACTIVE.set(budget)
    try:
        yield budget
    finally:
        _ACTIVE.reset(token)


def exceeded(
    name: str,
    what: str,
    *,
    span: Span | None = None,
    path: Path = (),
) -> LimitExceeded:
    """The error for limit ``name``: ``what`` happened; it names the limit and its option."""
    return LimitExceeded(Diagnostic(LIMIT, over_limit(name, what), path, span), name)


def over_limit(name: str, what: str) -> str:
    """That ``what`` passed the active limit ``name``, and how to raise it."""
    limit = LIMITS[name]
    value = getattr(active_limits(), name)
    return f"{what}: over the limit of {value:,} {limit.unit} (raise it with {limit.named()})"


def value_size(value: Any, limit: int, depth_limit: int) -> int:
    """Approximate bytes of ``value``: characters of text, 8 per item, key or number,
    counted as if written out (a shared list counts every time it appears). The walk
    stops as soon as the count passes ``limit`` (returning more than it) or a value nests
    deeper than ``depth_limit`` (returning -1), so a value that would expand exponentially
    costs no more than the limit to measure."""
    if isinstance(value, str):
        return len(value) + 8
    total = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    pop, push = stack.pop, stack.append
    while stack:
        item, depth = pop()
        if isinstance(item, str):
            total += len(item)
        elif isinstance(item, dict):
            if depth >= depth_limit:
                return -1
            total += 8 + 16 * len(item)
            if total > limit:
                return total
            for key, entry in item.items():
                if isinstance(key, str):
                    total += len(key)
                push((entry, depth + 1))
        elif isinstance(item, list | tuple):
            if depth >= depth_limit:
                return -1
            total += 8 + 8 * len(item)
            if total > limit:
                return total
            for entry in item:
                push((entry, depth + 1))
        elif depth == 0:
            total += 8
        if total > limit:
            return total
    return total


#: how many texts `json_value` remembers as within the depth limit
SHALLOW_KEPT = 128
#: (text, depth limit) of the last texts found within it, oldest first
_shallow: dict[tuple[str | bytes, int], None] = {}


def json_value(text: str | bytes) -> Any:
    """``json.loads`` of text a user gave inside a document (a ``json`` parameter's
    value, a string a function reads as JSON), bounded as the document is: nesting past
    the active depth limit is a `ValueError`, as malformed JSON is, where the decoder
    (and every walk after it) would raise `RecursionError` on a thousand levels.

    The depth walk of a text already found within the limit is not made again: a
    ``json`` parameter inherited by every stack of a tree (TripleO's role data, in 238
    stacks) is coerced once per stack, and the walk costs more than the decoding."""
    limit = active_limits().depth
    try:
        value = json.loads(text)
    except RecursionError:
        value = None
    else:
        key = (text, limit)
        if key in _shallow:
            return value
        if value_size(value, 2**62, limit) >= 0:
            if len(_shallow) >= SHALLOW_KEPT:
                del _shallow[next(iter(_shallow))]
            _shallow[key] = None
            return value
    raise ValueError(f"nested more than {limit:,} levels deep")


def charge(value: Any, what: str, *, span: Span | None = None, path: Path = ()) -> None:
    """Count ``value``, just built by a function call, against the budget: it must fit
    the limit of one value, the depth limit, and what is left of the command's total."""
    budget = current()
    limits = budget.limits
    left = limits.total_value_size - budget.spent
    size = value_size(value, min(limits.value_size, left), limits.depth)
    if size < 0:
        raise exceeded("depth", f"{what} builds a value nested more deeply", span=span, path=path)
    _check(budget, size, f"{what} builds a value of more than", span, path)
    budget.spent += size


def reserve(size: int, what: str, *, span: Span | None = None, path: Path = ()) -> None:
    """Refuse, before building it, a value of ``size`` approximate bytes that would not fit."""
    _check(current(), size, f"{what} would build a value of about", span, path)


def _check(budget: Budget, size: int, what: str, span: Span | None, path: Path) -> None:
    limits = budget.limits
    if size > limits.value_size:
        raise exceeded("value_size", f"{what} {size:,} bytes", span=span, path=path)
    if size > limits.total_value_size - budget.spent:
        raise exceeded(
            "total_value_size",
            f"{what} {size:,} bytes, after {budget.spent:,} bytes built by the function "
            "calls before it",
            span=span,
            path=path,
        )
