"""Findings both document readers (YAML in `loader`, JSON in `json_reader`) report alike."""

from __future__ import annotations

from typing import Any

from stoker.codes import DUPLICATE_KEY
from stoker.diagnostics import Diagnostic, Severity, Span
from stoker.limits import LIMITS


def limit_name(field: str) -> str:
    """How the user raises a limit (option and environment variable), for messages."""
    return LIMITS[field].named()


def duplicate_key(key: Any, first: Span, second: Span | None) -> Diagnostic:
    """A key given twice: Heat's loader keeps the last value silently, so the document is
    accepted; half of what was written is lost, so it is a warning (an error in lint)."""
    return Diagnostic(
        DUPLICATE_KEY,
        f"duplicate key {str(key)!r} (first defined at line {first.line}, column "
        f"{first.column}); Heat keeps this last one and drops the first: remove one of them",
        span=second,
        severity=Severity.WARNING,
    )
