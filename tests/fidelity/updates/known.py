"""Where stoker differs from the followed engine's recording on purpose, or where Heat
has a bug stoker does not copy: case id → (fields not compared, the reason). Each
deliberate difference is also listed in docs/heat-differences.md."""

from __future__ import annotations

KNOWN: dict[str, tuple[frozenset[str], str]] = {}
