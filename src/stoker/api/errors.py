"""Heat's error bodies: ``{"explanation", "code", "title", "error": {"message", "type",
"traceback": null}}``, the HTTP status and the ``type`` chosen from stoker's one
exception tree (`stoker.errors`), as Heat's fault middleware chooses them from its own."""

from __future__ import annotations

from typing import Any

from stoker import errors
from stoker.errors import ApiError as ApiError

#: status -> (title, explanation), Heat's (webob's) wording
STATUS_TEXT: dict[int, tuple[str, str]] = {
    400: (
        "Bad Request",
        "The server could not comply with the request since it is either malformed or "
        "otherwise incorrect.",
    ),
    403: ("Forbidden", "Access was denied to this resource."),
    404: ("Not Found", "The resource could not be found."),
    405: ("Method Not Allowed", "The method specified is not allowed for this resource."),
    409: ("Conflict", "There was a conflict when trying to complete your request."),
    413: (
        "Request Entity Too Large",
        "The server could not handle the request because it is too large.",
    ),
    415: (
        "Unsupported Media Type",
        "The request media type is not supported by this server.",
    ),
    500: (
        "Internal Server Error",
        "The server has either erred or is incapable of performing the requested operation.",
    ),
}


def not_found(message: str, kind: str = "EntityNotFound") -> ApiError:
    return ApiError(404, kind, message)


def bad_request(message: str, kind: str = "HTTPBadRequest") -> ApiError:
    return ApiError(400, kind, message)


def error_body(status: int, kind: str, message: str) -> dict[str, Any]:
    title, explanation = STATUS_TEXT.get(status, STATUS_TEXT[500])
    return {
        "explanation": explanation,
        "code": status,
        "title": title,
        "error": {"message": message, "type": kind, "traceback": None},
    }


def from_stoker(error: errors.StokerError) -> ApiError:
    """The status and type Heat answers with for the same refusal. An `OperationRefused`
    keeps the refusal it came from as its context (``raise ... from None`` hides it from
    tracebacks only), which tells a name taken from a stack busy with another action."""
    message = str(error)
    if isinstance(error, ApiError):
        return error
    if isinstance(error, errors.NotFound):  # a stack, a resource type, ...
        return ApiError(404, "EntityNotFound", message)
    if isinstance(error, errors.OperationRefused):
        cause = error.__context__
        if isinstance(cause, errors.StackExists):
            return ApiError(409, "StackExists", message)
        if isinstance(cause, errors.LeaseHeld):
            return ApiError(409, "ActionInProgress", message)
        if isinstance(cause, errors.StackLimitReached):  # Heat's max_stacks_per_tenant
            return ApiError(400, "RequestLimitExceeded", message)
        return ApiError(400, "StackValidationFailed", message)
    if isinstance(error, errors.ActionNotSupported):
        return ApiError(400, "ResourceActionNotSupported", message)
    if isinstance(error, errors.LimitExceeded):
        return ApiError(400, "RequestLimitExceeded", message)
    if isinstance(error, errors.TemplateError | errors.Rejected | errors.ValueProblem):
        return ApiError(400, "StackValidationFailed", message)
    if isinstance(error, errors.PropertyError | errors.FunctionError | errors.OperationFailed):
        return ApiError(400, "StackValidationFailed", message)
    return ApiError(500, type(error).__name__, message)


def forbidden_body() -> dict[str, Any]:
    """Heat's 403 from its policy check: a bare ``HTTPForbidden`` through Heat's fault
    middleware, which writes no ``message`` for an exception it does not mark safe."""
    return {
        "code": 403,
        "title": "Forbidden",
        "explanation": "Access was denied to this resource.",
        "error": {"type": "HTTPForbidden", "traceback": None},
    }
