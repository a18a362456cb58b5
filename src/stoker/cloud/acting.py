"""Whose identity a cloud call uses: the caller's, a stack owner's trust, or the cloud's.

``stoker serve`` runs the work of many projects in one process. Each request, and each
operation it starts, says as whom its cloud calls act by setting `ACTING` (a context
variable: asyncio tasks copy it, and `stoker.cloud.connection.Cloud` carries it into its
worker threads); `Cloud` keeps one connection per identity. With none set, the cloud's
own credentials (``--os-cloud``) act, which only a single-project setup allows
(`Cloud.shared`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Acting:
    """One identity the cloud's calls can act as."""

    #: tells identities apart (a connection, its caches and its coalesced calls are kept
    #: per key): ``trust:ID`` or ``token:SHA256``
    key: str
    #: the project the identity's calls act in
    project_id: str
    #: for messages: "the trust of stack mystack"
    describe: str
    #: makes the keystoneauth1 auth plugin the identity's connection logs in with
    plugin: Callable[[], Any] = field(compare=False, repr=False)


#: the identity of the current request or operation (None: the cloud's own)
ACTING: ContextVar[Acting | None] = ContextVar("stoker_cloud_acting", default=None)


@contextlib.contextmanager
def acting_as(acting: Acting | None) -> Iterator[None]:
    """Make ``acting`` the identity of the cloud calls in this block (and of the tasks
    and threads started from it)."""
    token = ACTING.set(acting)
    try:
        yield
    finally:
        ACTING.reset(token)
