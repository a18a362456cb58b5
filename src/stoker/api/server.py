"""The application factory uvicorn imports in each worker process (``stoker serve``
passes its choices through the environment, as uvicorn's ``--workers`` requires)."""

from __future__ import annotations

import os

from starlette.applications import Starlette

from stoker.api.app import build_app
from stoker.engine.settings import EngineSettings


def app() -> Starlette:
    from stoker.resources.registry import default_registry
    from stoker.store import open_store
    from stoker.store.urls import database_url

    url = os.environ.get("STOKER_SERVE_DB") or database_url(None)
    settings = EngineSettings(
        lease_seconds=float(os.environ.get("STOKER_SERVE_LEASE_SECONDS", "30")),
        max_resources_per_stack=int(os.environ.get("STOKER_SERVE_MAX_RESOURCES", "1000")),
        max_stacks_per_project=int(os.environ.get("STOKER_SERVE_MAX_STACKS", "512")),
    )
    # `stoker serve` migrated the database before starting the workers
    migrated = os.environ.get("STOKER_SERVE_MIGRATED") == "1"
    store = open_store(url, migrate=not migrated)
    auth_url = os.environ.get("STOKER_SERVE_AUTH_URL")
    keystone = None
    if auth_url:
        from stoker.api.auth import KeystoneValidator

        ttl = float(os.environ.get("STOKER_SERVE_TOKEN_TTL", "60"))
        keystone = KeystoneValidator(auth_url, ttl=ttl)
    return build_app(store, default_registry(), settings, abandon_on_stop=True, keystone=keystone)
