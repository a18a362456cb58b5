"""The application factory uvicorn imports in each worker process (``stoker serve``
passes its choices through the environment, as uvicorn's ``--workers`` requires: see
`stoker.api.serve_settings`)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from starlette.applications import Starlette

from stoker.api.app import build_app
from stoker.api.serve_settings import PASSWORD_VARIABLE, ServeSettings
from stoker.api.trusts import StackCredentials, TrusteeLogin, login_from_cloud

if TYPE_CHECKING:
    from stoker.api.auth import KeystoneValidator, ServiceCredentials
    from stoker.api.policy import Policy
    from stoker.cloud import Cloud
    from stoker.engine import Store


def service_credentials(chosen: ServeSettings) -> ServiceCredentials | None:
    """The service user ``stoker serve`` was given (``--service-*``), if any."""
    from stoker.api.auth import ServiceCredentials

    if not chosen.service_cloud and not chosen.service_user:
        return None
    return ServiceCredentials(
        username=chosen.service_user or "",
        password=os.environ.get(PASSWORD_VARIABLE, ""),
        project_name=chosen.service_project or "",
        user_domain_name=chosen.service_domain,
        project_domain_name=chosen.service_domain,
        cloud=chosen.service_cloud or None,
    )


def keystone_validator(chosen: ServeSettings) -> KeystoneValidator | None:
    """The token validator of ``--auth keystone`` (None: noauth)."""
    if chosen.auth != "keystone":
        return None
    from stoker.api.auth import KeystoneValidator, service_session

    auth_url = chosen.auth_url or None
    credentials = service_credentials(chosen)
    if credentials is None:
        assert auth_url is not None, "stoker serve checked that --auth-url is given"
        return KeystoneValidator(auth_url, ttl=chosen.token_ttl)
    url, service = service_session(auth_url, credentials)
    return KeystoneValidator(url, ttl=chosen.token_ttl, service=service)


def stack_credentials(
    chosen: ServeSettings, validator: KeystoneValidator, store: Store
) -> StackCredentials:
    """The trusts of ``--cloud-credentials caller``: to the service user the validator
    asks Keystone as."""
    service = service_credentials(chosen)
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
    return StackCredentials(
        login, lambda: str(session.get_user_id()), store, chosen.delegated_roles
    )


def chosen_policy(chosen: ServeSettings) -> Policy | None:
    if not chosen.policy_file:
        return None
    from stoker.api.policy import load_policy

    return load_policy(chosen.policy_file)


def chosen_cloud(chosen: ServeSettings) -> Cloud | None:
    """The cloud of ``--os-cloud`` (or ``OS_CLOUD``/``OS_*``, as the CLI reads them)."""
    from stoker.cloud import Cloud, choose_cloud

    choice = choose_cloud(chosen.os_cloud or None)
    if choice is None:
        return None
    # with each stack's owner acting, the cloud's own credentials never act
    return Cloud(choice, workers=64, shared=not chosen.owners_act)


def app() -> Starlette:
    from stoker.store import database_url, open_store

    chosen = ServeSettings.chosen()
    url = chosen.db or database_url(None)
    # `stoker serve` migrated the database before starting the workers
    store = open_store(url, migrate=not chosen.migrated)
    # the default registry (built-in types) is built by the first request that needs it
    registry = None
    cloud = chosen_cloud(chosen)
    if cloud is not None:
        from stoker.resources import default_registry, register_openstack

        registry = default_registry()
        register_openstack(registry, cloud)
    keystone = keystone_validator(chosen)
    credentials = None
    if cloud is not None and keystone is not None and chosen.owners_act:
        credentials = stack_credentials(chosen, keystone, store)
    return build_app(
        store,
        registry,
        chosen.engine,
        abandon_on_stop=True,
        keystone=keystone,
        policy=chosen_policy(chosen),
        cloud=cloud,
        credentials=credentials,
        public_url=chosen.public_url or None,
    )
