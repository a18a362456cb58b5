"""The store's JSON encoding: `dumps` is the one encoder of the store, strict (no NaN, no
non-JSON values) so that what goes in is exactly what comes back on either backend. The
engine (`stoker.store.connection`) gives it to SQLAlchemy's JSON columns; the bulk rows
(`stoker.store.rows`) and the sealed values (`stoker.store.secrets`) use it directly."""

from __future__ import annotations

import json
from typing import Any

_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def dumps(value: Any) -> str:
    """Encode JSON-native data; anything else (a datetime, a set, NaN) is an error."""
    if not value:  # most attribute and data maps, and requires lists, cheaply
        if type(value) is dict:
            return "{}"
        if type(value) is list:
            return "[]"
    return _ENCODER.encode(value)


def loads(text: str | bytes) -> Any:
    return json.loads(text)


_DECODER = json.JSONDecoder()


def loads_text(text: str) -> Any:
    """Decode JSON text the store wrote (no surrounding whitespace: straight to the
    scanner, which is measurably faster on the bulk read path)."""
    return _DECODER.raw_decode(text)[0]
