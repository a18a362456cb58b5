"""The application factory uvicorn imports in each worker process (``stoker serve``
passes its choices through the environment, as uvicorn's ``--workers`` requires)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from starlette.applications import Starlette

from stoker.api.app import build_app
from stoker.api.trusts import StackCredentials, TrusteeLogin, login_from_cloud
from stoker.engine import EngineSettings

if TYPE_CHECKING:
    from stoker.api.auth import KeystoneValidator, ServiceCredentials
    from stoker.api.policy import Policy
    from stoker.api.trusts import StackCredentials
    from stoker.cloud import Cloud
    from stoker.engine import Store


def service_credentials() -> ServiceCredentials | None:
    """The service user ``stoker serve`` was given (``--service-*``), if any."""
    from stoker.api.auth import ServiceCredentials

    cloud = os.environ.get("STOKER_SERVE_SERVICE_CLOUD")
    user = os.environ.get("STOKER_SERVE_SERVICE_USER")
    if not cloud and not user:
        return None
    domain = os.environ.get("STOKER_SERVE_SERVICE_DOMAIN") or "Default"
    return ServiceCredentials(
        username=user or "",
        password=os.environ.get("STOKER_SERVICE_PASSWORD", ""),
        project_name=os.environ.get("STOKER_SERVE_SERVICE_PROJECT", ""),
        user_domain_name=domain,
        project_domain_name=domain,
        cloud=cloud or None,
    )


def keystone_validator() -> KeystoneValidator | None:
    """The token validator of ``--auth keystone`` (None: noauth)."""
    if os.environ.get("STOKER_SERVE_AUTH") != "keystone":
        return None
    from stoker.api.auth import KeystoneValidator, service_session

    auth_url = os.environ.get("STOKER_SERVE_AUTH_URL") or None
    ttl = float(os.environ.get("STOKER_SERVE_TOKEN_TTL", "60"))
    credentials = service_credentials()
    if credentials is None:
        assert auth_url is not None, "stoker serve checked that --auth-url is given"
        return KeystoneValidator(auth_url, ttl=ttl)
    url, service = service_session(auth_url, credentials)
    return KeystoneValidator(url, ttl=ttl, service=service)


def owners_act() -> bool:
    """Whether each stack's owner acts in the cloud (``--cloud-credentials caller``)."""
    return os.environ.get("STOKER_SERVE_CLOUD_CREDENTIALS") == "caller"


def stack_credentials(validator: KeystoneValidator, store: Store) -> StackCredentials:
    """The trusts of ``--cloud-credentials caller``: to the service user the validator
    asks Keystone as."""
    service = service_credentials()
    session = validator.service
    assert service is not None and session is not None, "stoker serve checked --service-*"
    if service.cloud is not None:
        from openstack import config as os_config

        auth = os_config.OpenStackConfig().get_one(cloud=service.cloud).config.get("auth", {})
        login = login_from_cloud(validator.auth_url, dict(auth))
    else:
        login = TrusteeLogin(
            auth_url=validator.auth_url,
            username=service.username,
            password=service.password,
            user_domain_name=service.user_domain_name,
        )
    roles = os.environ.get("STOKER_SERVE_DELEGATED_ROLES", "")
    return StackCredentials(
        login,
        lambda: str(session.get_user_id()),
        store,
        tuple(role for role in roles.split(",") if role),
    )


def chosen_policy() -> Policy | None:
    path = os.environ.get("STOKER_SERVE_POLICY_FILE")
    if not path:
        return None
    from stoker.api.policy import load_policy

    return load_policy(path)


def chosen_cloud() -> Cloud | None:
    """The cloud of ``--os-cloud`` (or ``OS_CLOUD``/``OS_*``, as the CLI reads them)."""
    from stoker.cloud import Cloud, choose_cloud

    choice = choose_cloud(os.environ.get("STOKER_SERVE_OS_CLOUD") or None)
    if choice is None:
        return None
    # with each stack's owner acting, the cloud's own credentials never act
    return Cloud(choice, workers=64, shared=not owners_act())


def app() -> Starlette:
    from stoker.store import database_url, open_store

    url = os.environ.get("STOKER_SERVE_DB") or database_url(None)
    settings = EngineSettings(
        lease_seconds=float(os.environ.get("STOKER_SERVE_LEASE_SECONDS", "30")),
        max_resources_per_stack=int(os.environ.get("STOKER_SERVE_MAX_RESOURCES", "1000")),
        max_stacks_per_project=int(os.environ.get("STOKER_SERVE_MAX_STACKS", "512")),
    )
    # `stoker serve` migrated the database before starting the workers
    migrated = os.environ.get("STOKER_SERVE_MIGRATED") == "1"
    store = open_store(url, migrate=not migrated)
    # the default registry (built-in types) is built by the first request that needs it
    registry = None
    cloud = chosen_cloud()
    if cloud is not None:
        from stoker.resources import default_registry, register_openstack

        registry = default_registry()
        register_openstack(registry, cloud)
    keystone = keystone_validator()
    credentials = None
    if cloud is not None and keystone is not None and owners_act():
        credentials = stack_credentials(keystone, store)
    return build_app(
        store,
        registry,
        settings,
        abandon_on_stop=True,
        keystone=keystone,
        policy=chosen_policy(),
        cloud=cloud,
        credentials=credentials,
        public_url=os.environ.get("STOKER_SERVE_PUBLIC_URL") or None,
    )
