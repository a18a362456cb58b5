"""Positions, template paths and findings: the one shape every error and warning takes.

Every stage reports problems as `Diagnostic` values so validation can collect all of them
at once and every front end (CLI, API, linter) renders them the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

PathElement = str | int
Path = tuple[PathElement, ...]


class Span(NamedTuple):
    """Where a node starts in its source file (1-based line and column).

    A named tuple rather than a frozen dataclass: the loader makes one for every key and
    value, and tuple construction is several times cheaper.
    """

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


def render_path(path: Path) -> str:
    """Render a template path the way Heat prints it: ``resources.web.properties.flavor``."""
    return ".".join(str(part) for part in path)


@dataclass(slots=True, frozen=True)
class Diagnostic:
    """One finding: a stable code, a severity, a message, and where it points. Immutable,
    compared and hashed by value."""

    code: str
    message: str
    path: Path = ()
    span: Span | None = None
    severity: Severity = Severity.ERROR
    notes: tuple[str, ...] = ()

    def render(self) -> str:
        """``file:line:column: path: message`` (parts that are unknown are left out)."""
        parts: list[str] = []
        if self.span is not None:
            parts.append(str(self.span))
        if self.path:
            parts.append(render_path(self.path))
        prefix = "" if self.severity is Severity.ERROR else f"{self.severity.value}: "
        parts.append(prefix + self.message)
        return ": ".join(parts)

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR
