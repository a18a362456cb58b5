"""Value records without `dataclasses`: what a slotted dataclass gives, for records every
process that loads a template makes.

Creating a dataclass compiles its generated methods when its module is imported (~2.5 M
instructions for a mutable one, ~4 M for a frozen one), and importing `dataclasses`
imports `inspect` (with `ast`, `dis` and `tokenize`: ~45 M instructions). A one-shot
``stoker lint`` pays both before it reads a file, so the records on its path are plain
classes: each writes its ``__slots__`` (its fields, in order) and its ``__init__``, and
inherits from here equality, hashing and repr as a dataclass generates them, and
`replace` stands for `dataclasses.replace`.

`NamedRecord` is `typing.NamedTuple` (type checkers see it as that) made without
evaluating its annotations: under ``from __future__ import annotations`` typing compiles
each field's annotation string (``ForwardRef``), ~1.2 M instructions for a five-field
class against ~0.4 M for the named tuple itself.
"""

from __future__ import annotations

import collections
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, cast

__all__ = ["FrozenRecord", "NamedRecord", "Record", "replace", "set_field"]

_Record = TypeVar("_Record", bound="Record")
_set = object.__setattr__


class Record:
    """A mutable record: compared by value (same class, fields equal), unhashable, shown
    as ``Name(field=value, ...)``: a dataclass's ``eq=True`` methods. ``__slots__`` lists
    the fields in their order."""

    __slots__: tuple[str, ...] = ()  # a record's own: its fields, in order
    __hash__ = None  # type: ignore[assignment]  # compared by value and mutable
    #: fields equality, hashing and repr leave out (a dataclass's ``compare=False``,
    #: ``repr=False``): a cache, a note of something already reported
    _uncompared: ClassVar[frozenset[str]] = frozenset()
    _unshown: ClassVar[frozenset[str]] = frozenset()
    #: fields ``__init__`` sets itself, not arguments (a dataclass's ``init=False``)
    _derived: ClassVar[frozenset[str]] = frozenset()

    def _compared(self) -> tuple[Any, ...]:
        skip = self._uncompared
        return tuple(getattr(self, name) for name in self.__slots__ if name not in skip)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Record)
        return self._compared() == other._compared()

    def __repr__(self) -> str:
        skip = self._unshown
        shown = ", ".join(
            f"{name}={getattr(self, name)!r}" for name in self.__slots__ if name not in skip
        )
        return f"{type(self).__qualname__}({shown})"


class FrozenRecord(Record):
    """An immutable record (a dataclass's ``frozen=True``): hashed by its compared fields,
    and an assignment raises AttributeError. ``__init__`` sets each field with `set_field`."""

    __slots__ = ()

    def __hash__(self) -> int:  # type: ignore[override]  # Record's is None
        return hash(self._compared())

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")


#: ``set_field(record, name, value)``: how a frozen record's ``__init__`` sets its fields
set_field = _set


def replace(record: _Record, /, **changes: Any) -> _Record:
    """A copy of ``record`` with ``changes``, made by its ``__init__`` (as
    `dataclasses.replace` makes one): every field but the `_derived` ones is an argument."""
    derived = record._derived
    values = {name: getattr(record, name) for name in record.__slots__ if name not in derived}
    unknown = changes.keys() - values.keys()
    if unknown:
        raise TypeError(f"{type(record).__qualname__} has no field {sorted(unknown)[0]!r}")
    values.update(changes)
    return cast(_Record, cast(Any, type(record))(**values))


if TYPE_CHECKING:
    from typing import NamedTuple as NamedRecord
else:
    # typing.NamedTupleMeta (Python 3.11) without `typing._type_check` of each annotation
    _PROHIBITED = frozenset(
        {
            "__new__",
            "__init__",
            "__slots__",
            "__getnewargs__",
            "_fields",
            "_field_defaults",
            "_make",
            "_replace",
            "_asdict",
            "_source",
        }
    )
    _SPECIAL = frozenset({"__module__", "__name__", "__annotations__"})

    class _NamedRecordType(type):
        def __new__(cls, typename, bases, namespace):
            if namespace.get("_root", False):
                return super().__new__(cls, typename, bases, namespace)
            if bases != (NamedRecord,):
                raise TypeError("a NamedRecord inherits from NamedRecord alone")
            types = namespace.get("__annotations__", {})
            defaults = []
            for name in types:
                if name in namespace:
                    defaults.append(namespace[name])
                elif defaults:
                    raise TypeError(f"Non-default namedtuple field {name} cannot follow a default")
            record = collections.namedtuple(
                typename, list(types), defaults=defaults, module=namespace["__module__"]
            )
            record.__annotations__ = record.__new__.__annotations__ = dict(types)
            for key in namespace:
                if key in _PROHIBITED:
                    raise AttributeError("Cannot overwrite NamedTuple attribute " + key)
                if key not in _SPECIAL and key not in record._fields:
                    setattr(record, key, namespace[key])
            return record

    class NamedRecord(metaclass=_NamedRecordType):
        """Base of the named tuples: ``class Span(NamedRecord): file: str ...``."""

        _root = True
