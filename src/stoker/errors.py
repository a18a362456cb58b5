"""The exception tree; each error has a stable code.

    StokerError
    ├── TemplateError        a template, environment or parameter set was rejected
    │                        (carries every Diagnostic found, not only the first)
    ├── FunctionError        an intrinsic function failed to resolve at run time
    ├── UsageError           the caller asked for something impossible (bad flag value ...)
    ├── LeaseLost            another process took the stack over; this one stopped
    ├── SecretKeyError       the key for hidden values at rest is missing or wrong
    └── DatabaseError        the database failed a statement (one line, no parameters)

The CLI maps codes to exit statuses in one table; later the API maps them to HTTP statuses.
"""

from __future__ import annotations

from stoker.diagnostics import Diagnostic, Path, Span


class StokerError(Exception):
    code = "stoker_error"


class TemplateError(StokerError):
    """Validation failed; ``diagnostics`` holds every problem found."""

    code = "template_invalid"

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = diagnostics
        super().__init__("\n".join(d.render() for d in diagnostics))


class FunctionError(StokerError):
    """An intrinsic function could not produce a value; ``path`` says which one."""

    code = "function_failed"

    def __init__(self, message: str, path: Path = (), span: Span | None = None) -> None:
        self.message = message
        self.path = path
        self.span = span
        super().__init__(message)

    def to_diagnostic(self, code: str = "E1000") -> Diagnostic:
        return Diagnostic(code, self.message, self.path, self.span)


class UsageError(StokerError):
    code = "usage"


class LeaseLost(StokerError):
    """This process no longer holds the claim on a stack (another took it over after the
    claim expired, or the claim could not be renewed in time): it stopped, and wrote
    nothing more, so the two never both change the stack."""

    code = "lease_lost"


class SecretKeyError(StokerError):
    """The key that encrypts hidden values at rest is missing, malformed or not the one
    the database was written with."""

    code = "secret_key"


class DatabaseError(StokerError):
    """A database statement failed. The message is one line naming the failure; it never
    carries the statement's parameters (they may hold hidden values)."""

    code = "database"
