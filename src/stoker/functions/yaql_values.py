"""The values of the native yaql evaluator that stand for yaql's own Python objects.

JSON lists stand for yaql's tuples and dicts for its ``FrozenDict``; the types here stand
for the rest, each keeping what yaql's checks and comparisons depend on (its size, whether
it can be read again). Code that meets one it does not model declines (checks use
``type(...) is``, so none passes for a tuple or a dict).
"""

from __future__ import annotations

from typing import Any


class Stream(list[Any]):
    """An iterator of yaql's (``filter``, ``map``, a generator), already drawn. yaql can
    read an iterator once: ``read`` marks that this one was (a second reader would see
    what the first left, so the evaluator declines it)."""

    __slots__ = ("read",)

    def __init__(self, items: Any = ()) -> None:
        super().__init__(items)
        self.read = False


class View(list[Any]):
    """A dict's ``keys()``, ``values()`` or ``items()`` view (items as pairs), drawn.
    Unlike an iterator it can be read again, and ``len`` takes a keys or items view (a
    set to yaql) but not a values view."""

    __slots__ = ("kind",)
    kind: str


class Grown(list[Any]):
    """A Python list yaql builds (``groupBy``'s groups): a sequence like a tuple, but
    charged at its own ``sys.getsizeof`` and never equal to a tuple, so comparisons,
    hashing and merging of it are yaql's to decide."""

    __slots__ = ()


class Merged(dict[Any, Any]):
    """A plain dict built by ``mergeWith``, with ``sys.getsizeof`` of yaql's own."""

    __slots__ = ("size",)
    size: int
