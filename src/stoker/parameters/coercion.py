"""Reading a raw input value as a parameter's type, the way Heat does (heat-semantics §3).

Heat is lenient in some places (any value is a string; numbers accept whitespace) and strict
in others (booleans take only a fixed word list), and its error wording is what users see,
so both the rules and the messages follow Heat. A hidden parameter's value never appears in
a message: every message is built from a "shown" form that is the mask for hidden values.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from stoker.errors import ParameterValueError as ParameterValueError
from stoker.limits import json_value
from stoker.parameters.model import MASK
from stoker.parameters.types import ParameterType
from stoker.template.nodes import plain

if TYPE_CHECKING:
    from stoker.parameters.model import Parameter

TRUE_WORDS = ("1", "t", "true", "on", "y", "yes")
FALSE_WORDS = ("0", "f", "false", "off", "n", "no")
_ACCEPTABLE = ", ".join(f"'{word}'" for word in sorted(TRUE_WORDS + FALSE_WORDS))


def coerce(parameter: Parameter, raw: Any) -> Any:
    """The typed value of ``raw`` for ``parameter``; `ParameterValueError` when it has none."""
    return coerce_to(parameter.type, raw, hidden=parameter.hidden)


def coerce_to(kind: ParameterType, raw: Any, *, hidden: bool = False) -> Any:
    """The typed value of ``raw`` for a parameter of type ``kind``.

    | type                 | accepts                 | gives                                |
    |----------------------|-------------------------|--------------------------------------|
    | string               | anything                | ``str(v)``                           |
    | number               | number, numeric string  | ``int(v)``, else ``float(v)``        |
    | comma_delimited_list | string, list            | split on ``,`` untrimmed, '' -> []   |
    | json                 | map, list, JSON string  | parsed; '' stays ''                  |
    | boolean              | bool, word              | strict word list, case-insensitive   |
    """
    if kind is ParameterType.JSON:
        # json.dumps writes a loaded document's nodes (dict, list and str subclasses) as
        # it writes plain data, and the decoded value is new: no plain copy first (a json
        # parameter's value, TripleO's role data, is coerced in every stack of a tree)
        return to_json(raw)
    value = plain(raw)
    shown = MASK if hidden else None
    if kind is ParameterType.STRING:
        return str(value)
    if kind is ParameterType.NUMBER:
        return to_number(value, shown)
    if kind is ParameterType.COMMA_DELIMITED_LIST:
        return to_list(value)
    return to_bool(value, shown)


def to_number(value: Any, shown: str | None = None) -> int | float:
    """Heat's ``str_to_num``: numbers (and booleans) pass, strings try int then float."""
    if isinstance(value, int | float):
        return value
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            pass
        try:
            return float(value)
        except ValueError:
            text = value if shown is None else shown
            raise ParameterValueError(f"could not convert string to float: {text!r}") from None
    raise ParameterValueError(
        "int() argument must be a string, a bytes-like object or a real number, "
        f"not '{type(value).__name__}'"
    )


def to_list(value: Any) -> list[str]:
    """Heat's comma-delimited list: no trimming (``"a, b"`` is ``["a", " b"]``)."""
    if isinstance(value, list):
        return [str(item) for item in value]
    if isinstance(value, str):
        return [] if value == "" else value.split(",")
    raise ParameterValueError(
        "Value must be a comma-delimited list string: "
        f"'{type(value).__name__}' object has no attribute 'split'"
    )


def to_json(value: Any) -> Any:
    """Parsed JSON: strings are decoded, other data round-trips through JSON; '' stays ''."""
    if isinstance(value, str):
        if value == "":
            return ""
        text = value
    else:
        try:
            text = json.dumps(value)
        except (TypeError, ValueError) as error:
            raise ParameterValueError(f"Value must be valid JSON: {error}") from None
    try:
        return json_value(text)
    except ValueError as error:
        raise ParameterValueError(f"Value must be valid JSON: {error}") from None


def to_bool(value: Any, shown: str | None = None) -> bool:
    """oslo's strict ``bool_from_string``: a fixed word list, case-insensitive."""
    if isinstance(value, bool):
        return value
    text = str(value)
    word = text.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ParameterValueError(
        f"Unrecognized value '{text if shown is None else shown}', "
        f"acceptable values are: {_ACCEPTABLE}"
    )
