"""The clouds.yaml entry that points OpenStack tools at a running sandbox."""

from __future__ import annotations

from typing import Any

import yaml

CLOUD_NAME = "sandbox"


def cloud_entry(
    host: str, port: int, *, user: str = "admin", project: str | None = None, password: str
) -> dict[str, Any]:
    """One cloud's settings as openstacksdk (and so the ``openstack`` CLI) reads them."""
    return {
        "auth": {
            "auth_url": f"http://{host}:{port}/identity",
            "username": user,
            "password": password,
            "project_name": project or user,
            "user_domain_name": "Default",
            "project_domain_name": "Default",
        },
        "region_name": "RegionOne",
        "identity_api_version": 3,
        "interface": "public",
    }


def clouds_yaml(
    host: str, port: int, *, user: str = "admin", project: str | None = None, password: str
) -> str:
    entry = cloud_entry(host, port, user=user, project=project, password=password)
    return yaml.safe_dump({"clouds": {CLOUD_NAME: entry}}, sort_keys=False)
