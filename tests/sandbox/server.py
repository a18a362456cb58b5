"""A sandbox served by uvicorn on an ephemeral port, in a thread of the test process."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path
from typing import Any

import uvicorn

from stoker.sandbox.app import create_app
from stoker.sandbox.clouds import clouds_yaml
from stoker.sandbox.service import Hub, SandboxConfig

PASSWORD = "sandbox-test"


class RunningSandbox:
    """A real HTTP server: clients reach it as they would a cloud."""

    def __init__(self, db_url: str = "sqlite://", build_delay: float = 0.0) -> None:
        self.config = SandboxConfig(build_delay=build_delay, password=PASSWORD)
        self.app = create_app(db_url, self.config)
        self.hub: Hub = self.app.state.hub
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind(("127.0.0.1", 0))
        self.host, self.port = self._socket.getsockname()
        self.url = f"http://{self.host}:{self.port}"
        config = uvicorn.Config(self.app, log_level="warning", access_log=False, lifespan="off")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._socket]}, daemon=True
        )

    def start(self) -> RunningSandbox:
        self._thread.start()
        deadline = time.monotonic() + 20
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the sandbox did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._socket.close()

    def clouds_yaml(self, path: Path, user: str = "admin") -> Path:
        path.write_text(clouds_yaml(self.host, self.port, user=user, password=PASSWORD))
        return path

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
