"""The errors a handler raises to answer with an OpenStack error status.

They are control flow, not stoker errors: the app catches every one at the edge of the
request and renders it in the body the real service gives (each `Service` has its own
`error_body`: Nova's ``{"itemNotFound": {...}}``, Keystone's ``{"error": {...}}``,
Neutron's ``{"NeutronError": {...}}``, Glance's plain text). They never leave the sandbox.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any


class ApiError(Exception):
    """An answer with status ``status``; ``kind`` is the exception name Neutron reports
    (``NetworkNotFound``...), others ignore it."""

    status = 500

    def __init__(self, message: str, *, kind: str | None = None, status: int | None = None):
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status
        self.kind = kind or type(self).__name__

    @property
    def title(self) -> str:
        return HTTPStatus(self.status).phrase


#: the fault names Nova's WSGI layer gives an error body by status (``{"itemNotFound":
#: {"code": 404, "message": ...}}``), which Cinder's copy of it gives too, but for 429;
#: ``computeFault`` for any other status
FAULT_NAMES = {
    400: "badRequest",
    401: "unauthorized",
    403: "forbidden",
    404: "itemNotFound",
    405: "badMethod",
    409: "conflictingRequest",
    413: "overLimit",
    415: "badMediaType",
    429: "overLimit",
    501: "notImplemented",
    503: "serviceUnavailable",
}


def fault(status: int, message: str, names: dict[int, str] = FAULT_NAMES) -> dict[str, Any]:
    """An error body in Nova's (and Cinder's) shape."""
    return {names.get(status, "computeFault"): {"code": status, "message": message}}


class BadRequest(ApiError):
    status = 400


class Unauthorized(ApiError):
    status = 401


class Forbidden(ApiError):
    status = 403


class NotFound(ApiError):
    status = 404


class NotAcceptable(ApiError):
    """A microversion outside the range the service supports."""

    status = 406


class Conflict(ApiError):
    status = 409


class OverQuota(ApiError):
    """Quota exceeded: Nova answers 403, Neutron 409, Cinder 413 (the service decides)."""

    status = 403


class ServerFault(ApiError):
    status = 500


def policy_refusal(rule: str) -> Forbidden:
    """The 403 of a policy rule the caller's token does not pass, in oslo.policy's words
    (``rule``: ``os_compute_api:os-flavor-manage:create``)."""
    return Forbidden(f"Policy doesn't allow {rule} to be performed.")
