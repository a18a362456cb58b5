"""What ``stoker serve`` chose, as each of its worker processes reads it back.

uvicorn's ``--workers`` starts fresh processes that import the application factory
(`stoker.api.server.app`) by name and call it without arguments, so the command's choices
cannot be handed over as objects: they travel in the environment. They travel as one
record in one variable (JSON), written by the command after it has checked them and read
by the factory, so each choice is declared, typed and defaulted in one place. The service
user's password is not in it: it stays in ``$STOKER_SERVICE_PASSWORD``, where the operator
put it (or where the command copies ``--service-password``).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field

from stoker.engine import EngineSettings

#: the environment variable the record travels in
VARIABLE = "STOKER_SERVE_SETTINGS"
#: the service user's password (never written into the record)
PASSWORD_VARIABLE = "STOKER_SERVICE_PASSWORD"

_ENGINE = EngineSettings()


@dataclass(frozen=True, slots=True)
class ServeSettings:
    """``stoker serve``'s options, as the application factory needs them."""

    #: the store's URL (None: the default database)
    db: str | None = None
    #: the command created or upgraded the schema before starting the workers
    migrated: bool = False
    lease_seconds: float = _ENGINE.lease_seconds
    max_resources_per_stack: int = _ENGINE.max_resources_per_stack
    max_stacks_per_project: int = _ENGINE.max_stacks_per_project
    #: ``noauth`` or ``keystone``
    auth: str = "noauth"
    auth_url: str | None = None
    #: seconds a validated token is trusted (``--token-cache-seconds``)
    token_ttl: float = 60.0
    service_cloud: str | None = None
    service_user: str | None = None
    service_project: str | None = None
    service_domain: str = "Default"
    #: an absolute path
    policy_file: str | None = None
    os_cloud: str | None = None
    #: whose identity acts in the cloud: ``caller`` or ``server``
    cloud_credentials: str = "server"
    delegated_roles: tuple[str, ...] = field(default=())
    public_url: str | None = None

    def export(self) -> None:
        """Write the record where the workers read it (replacing an earlier one)."""
        os.environ[VARIABLE] = json.dumps(asdict(self))

    @classmethod
    def chosen(cls) -> ServeSettings:
        """The record ``stoker serve`` wrote; the defaults when the factory runs without
        it (an application built by hand, as the tests do)."""
        text = os.environ.get(VARIABLE)
        if not text:
            return cls()
        values = json.loads(text)
        values["delegated_roles"] = tuple(values.get("delegated_roles", ()))
        return cls(**values)

    @property
    def owners_act(self) -> bool:
        """Whether each stack's owner acts in the cloud (``--cloud-credentials caller``)."""
        return self.cloud_credentials == "caller"

    @property
    def engine(self) -> EngineSettings:
        return EngineSettings(
            lease_seconds=self.lease_seconds,
            max_resources_per_stack=self.max_resources_per_stack,
            max_stacks_per_project=self.max_stacks_per_project,
        )
