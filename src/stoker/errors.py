"""The exception tree: every error stoker raises on purpose is a `StokerError`.

    StokerError
    ├── TemplateError        a template, environment or parameter set was rejected
    │   │                    (carries every Diagnostic found, not only the first)
    │   ├── RegistryLoopError        resource_registry mappings go round in circles
    │   └── LimitExceeded            the evaluation crossed a limit of its budget
    │                                (stoker.limits); it stops at once, located
    ├── Rejected             a command refused its input after reporting why (the
    │                        diagnostics are already printed; the message sums up)
    ├── FunctionError        an intrinsic function failed to resolve at run time
    ├── UsageError           the caller asked for something impossible (bad flag value ...)
    ├── NotFound             a named thing does not exist
    │   ├── StackNotFound            no such stack (or output, or resource of a stack)
    │   ├── UnknownStack             a store write named a stack id it does not have
    │   └── ResourceTypeNotFound     a resource type neither stoker nor Heat knows
    ├── OperationRefused     an operation cannot start; nothing was changed
    ├── OperationFailed      an operation ran and ended FAILED (the stack says why)
    ├── OperationCancelled   a running operation saw ``stack cancel``'s request and stopped
    ├── StackExists          a stack of that name exists already (the store's answer)
    ├── LeaseHeld            another engine holds the stack
    ├── LeaseLost            another process took the stack over; this one stopped
    ├── SecretKeyError       the key for hidden values at rest is missing or wrong
    ├── DatabaseError        the database cannot be opened or used (one line, no SQL
    │                        parameters: they may hold hidden values)
    ├── ConfigError          a lint configuration file that cannot be used
    ├── ResourceFailure      a resource handler failed its resource, saying why
    │   └── ActionNotSupported       its type does not take the action (a signal)
    ├── PropertyError        resolved properties do not fit their type's schema
    ├── ValueProblem         a value that does not fit (also a ValueError):
    │   ├── ParameterValueError      not a value of the parameter's type (Heat's words)
    │   ├── DefinitionError          a malformed parameter constraint
    │   ├── DateError                a date Heat's parser rejects
    │   ├── RequirementUnmet         a blueprint requirement the cloud cannot meet
    │   └── MergeRejected            two environment values cannot be merged
    └── ProgrammingError     a bug in stoker or a plugin, raised at startup:
        ├── SchemaError              a resource schema Heat would refuse to load
        ├── RegistrationError        a plugin class that cannot be registered
        └── DuplicateRuleError       two lint rules with one id

Private control-flow signals (``Unresolved``, ``NotCheckable``, ``_Invalid`` ...) stay in
their modules: they never leave the function that catches them. So do the answers of the
two web edges, rendered where they are caught: the sandbox's ``ApiError`` family, and the
dashboard's ``LoginNeeded`` (the login page) and ``Refused`` (a 403 page).

Each class has a stable ``code``; `exit_status` is the one table from error to the CLI's
exit status (later the API maps the same codes to HTTP statuses).
"""

from __future__ import annotations

from typing import Any

from stoker.diagnostics import Diagnostic, Path, Span

#: exit statuses of the ``stoker`` command (Click's own usage errors exit 2 too)
EXIT_FAILURE = 1
EXIT_USAGE = 2


class StokerError(Exception):
    code = "stoker_error"


class TemplateError(StokerError):
    """Validation failed; ``diagnostics`` holds every problem found."""

    code = "template_invalid"

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = diagnostics
        super().__init__("\n".join(d.render() for d in diagnostics))


class RegistryLoopError(TemplateError):
    """Resolving a type went round in circles (or grew a name without end)."""

    def __init__(self, diagnostic: Diagnostic, cycle: tuple[str, ...]) -> None:
        super().__init__([diagnostic])
        self.cycle = cycle


class LimitExceeded(TemplateError):  # noqa: N818 - reads as a condition
    """A limit of the evaluation's budget was reached (``limit`` names it: a field of
    `stoker.limits.Limits`). Unlike other findings it stops the whole evaluation at once,
    so no more work is spent on input that asks for too much."""

    code = "limit_exceeded"

    def __init__(self, diagnostic: Diagnostic, limit: str) -> None:
        super().__init__([diagnostic])
        self.limit = limit


class Rejected(StokerError):
    """The command reported its findings and refuses to go on; ``str()`` sums up."""

    code = "rejected"


class PackageError(Rejected):
    """A stack package (a ZIP with ``heat.yaml``) that cannot be used: a member that would
    leave the archive, a link, an archive over the zip limits; the message says which."""

    code = "package"


class ApiError(StokerError):
    """A request ``stoker serve`` refuses, with Heat's HTTP status and error ``type``
    (``kind``); the API's handlers turn every other `StokerError` into one of these."""

    code = "api"

    def __init__(self, status: int, kind: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind
        self.message = message


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


class PolicyError(UsageError):
    """A ``--policy-file`` stoker cannot read: not a mapping of rule names to check
    strings, a check string that does not parse, or a check kind outside the subset
    `stoker.api.policy` evaluates."""


class NotFound(StokerError):
    code = "not_found"


class StackNotFound(NotFound):
    code = "not_found"


class UnknownStack(NotFound, LookupError):
    """A write named a stack the store does not have (a LookupError, so the engine can
    catch it without importing the store)."""

    code = "stack_not_found"

    def __init__(self, stack_id: str) -> None:
        self.stack_id = stack_id
        super().__init__(f"no stack with id {stack_id!r}")


class ResourceTypeNotFound(NotFound):
    code = "resource_type_not_found"


class OperationRefused(StokerError):
    """The operation cannot start (a name is taken, a limit is reached, another operation
    holds the stack); nothing was changed."""

    code = "refused"


class OperationFailed(StokerError):
    """The operation ran and ended FAILED; the stack's status reason says why."""

    code = "operation_failed"


class OperationCancelled(StokerError):
    """Raised inside a running operation that saw a cancel request (``stack cancel``): it
    starts nothing more; ``with_rollback`` says whether the user asked for a rollback."""

    code = "cancelled"

    def __init__(self, with_rollback: bool = False) -> None:
        self.with_rollback = with_rollback
        super().__init__("Operation cancelled")


class StackExists(StokerError):  # noqa: N818 - reads as a condition
    code = "stack_exists"


class StackLimitReached(StokerError):  # noqa: N818 - reads as a condition
    """A new top-level stack would pass the stacks-per-project limit (Heat's
    ``max_stacks_per_tenant``), with Heat's message."""

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"You have reached the maximum stacks per project, {limit}. Please delete some stacks."
        )
        self.limit = limit


class LeaseHeld(StokerError):  # noqa: N818 - reads as a condition
    """Another engine holds the stack; ``lease`` is its live lease."""

    code = "lease_held"

    def __init__(self, lease: Any) -> None:
        self.lease = lease
        super().__init__(getattr(lease, "engine_id", str(lease)))


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
    """The database cannot be opened or used; the message names the URL (password masked)
    and says what to do, and never repeats SQL or its parameters."""

    code = "database"


class ConfigError(StokerError, ValueError):
    """A config file that cannot be used; the message names the file and position."""

    code = "config_invalid"


class ResourceFailure(StokerError):  # noqa: N818 - the resource failed; the message says why
    """A handler's way to fail its resource with a reason a user can act on."""

    code = "resource_failed"


class ActionNotSupported(ResourceFailure):  # noqa: N818 - reads as a condition
    """The resource's type does not take the action asked of it (a signal to a type that
    takes none): Heat's ``ResourceActionNotSupported``, a request to refuse (400), not a
    resource that failed."""

    code = "action_not_supported"


class CloudError(ResourceFailure):
    """A call to the cloud failed: the message names the call and quotes the cloud."""

    code = "cloud_error"

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        #: the HTTP status the cloud answered, when it answered
        self.status = status


class NoCloud(StokerError):  # noqa: N818 - reads as a condition
    """A stack needs an OpenStack cloud and none is chosen (or the chosen one cannot be
    opened); the message says how to choose one."""

    code = "no_cloud"


class PropertyError(StokerError):
    """A resource's resolved properties do not fit its type's schema."""

    code = "property_invalid"


class ValueProblem(StokerError, ValueError):
    """A value that does not fit; a ValueError too, as the code that raises it expects."""

    code = "value_invalid"


class ParameterValueError(ValueProblem):
    """A value that cannot be read as the parameter's type; the message is Heat's wording."""


class DefinitionError(ValueProblem):
    """A malformed constraint definition; ``key`` names the part at fault (for its span)."""

    def __init__(self, message: str, key: str | int | None = None) -> None:
        super().__init__(message)
        self.key = key


class DateError(ValueProblem):
    """A date Heat's parser rejects; the reason never repeats the (possibly secret) value."""


class RequirementUnmet(ValueProblem):
    """A blueprint requirement the cloud cannot meet (no flavor that big, no image of that
    os_distro); ``rejected`` holds each candidate looked at and why it did not do."""

    def __init__(self, message: str, rejected: Any = ()) -> None:
        super().__init__(message)
        self.rejected = list(rejected)


class MergeRejected(ValueProblem):
    """The two values cannot be combined under the strategy; ``str()`` says why."""


class ProgrammingError(StokerError, ValueError):
    """A bug in stoker or in a plugin, found when the registries are built."""

    code = "internal"


class SchemaError(ProgrammingError):
    """A schema declaration Heat would refuse to load (a plugin bug, not a user error)."""


class RegistrationError(ProgrammingError):
    """A plugin class that cannot be registered (a programming error, raised at startup)."""


class DuplicateRuleError(ProgrammingError):
    """Two rules with one id (a programming error, raised when the registry is built)."""


#: error class → exit status of the ``stoker`` command; the most specific class wins
EXIT_STATUS: dict[type[BaseException], int] = {
    StokerError: EXIT_FAILURE,
    UsageError: EXIT_USAGE,
    ConfigError: EXIT_USAGE,
}


def exit_status(error: BaseException) -> int:
    """The exit status for ``error``: its nearest class in `EXIT_STATUS`."""
    for kind in type(error).__mro__:
        if kind in EXIT_STATUS:
            return EXIT_STATUS[kind]
    return EXIT_FAILURE
