"""The test sandbox: `stoker.sandbox.threaded.ThreadedSandbox` with the test password and
an openstacksdk connection at hand."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from stoker.sandbox.service import SandboxConfig
from stoker.sandbox.threaded import ThreadedSandbox

PASSWORD = "sandbox-test"


class RunningSandbox(ThreadedSandbox):
    def __init__(self, db_url: str = "sqlite://", build_delay: float = 0.0) -> None:
        super().__init__(db_url, SandboxConfig(build_delay=build_delay, password=PASSWORD))

    def start(self, timeout: float = 30.0) -> RunningSandbox:
        super().start(timeout)
        return self

    def clouds_yaml(self, path: Path, user: str = "admin") -> Path:
        return self.write_clouds_yaml(path, user)

    def connect(self, user: str = "admin", project: str | None = None) -> Any:
        """An openstacksdk connection (imported here: it takes a second to import)."""
        import openstack

        return openstack.connect(
            auth_url=f"{self.url}/identity",
            username=user,
            password=PASSWORD,
            project_name=project or user,
            user_domain_name="Default",
            project_domain_name="Default",
            region_name="RegionOne",
            identity_api_version="3",
        )
