"""The test sandbox: `ThreadedSandbox`, a sandbox served in a thread of the calling
process on a free port, and `RunningSandbox`, one with the test password and an
openstacksdk connection at hand.

Stoker's own tests of the sandbox and of the OpenStack resource types use it for a real
HTTP sandbox without a second process: clients reach it over TCP exactly as they reach
``stoker sandbox serve``.
"""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import uvicorn

from stoker.sandbox.app import KEEP_ALIVE, create_app
from stoker.sandbox.clouds import clouds_yaml as clouds_yaml_text
from stoker.sandbox.service import Hub, SandboxConfig

PASSWORD = "sandbox-test"


class ThreadedSandbox:
    """``start()`` serves; ``url``, ``hub`` (the backends, the clock) and ``config`` are
    live; ``stop()`` ends it. Also a context manager."""

    def __init__(
        self,
        db_url: str = "sqlite://",
        config: SandboxConfig | None = None,
        host: str = "127.0.0.1",
    ) -> None:
        self.config = config or SandboxConfig()
        self.app = create_app(db_url, self.config)
        self.hub: Hub = self.app.state.hub
        # IPPROTO_TCP named: asyncio turns Nagle off only on sockets that say they are TCP
        # (proto 0 does not), and with Nagle on, each response's second write waits for
        # the client's delayed ACK: 40 ms a request on a kept-alive connection
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind((host, 0))
        self.host: str = host
        self.port: int = self._socket.getsockname()[1]
        self.url = f"http://{host}:{self.port}"
        settings = uvicorn.Config(
            self.app,
            log_level="warning",
            access_log=False,
            lifespan="off",
            timeout_keep_alive=KEEP_ALIVE,
        )
        self._server = uvicorn.Server(settings)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._socket]}, daemon=True
        )

    def start(self, timeout: float = 30.0) -> ThreadedSandbox:
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the sandbox did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._socket.close()
        self.hub.store.close()

    def __enter__(self) -> ThreadedSandbox:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def token(self, user: str = "admin") -> str:
        """A token of ``user`` (a seeded one: the password is the sandbox's) scoped to the
        project of the same name, as Keystone issues it over HTTP: for the control API
        (``PUT /sandbox/faults`` wants an admin's)."""
        default = {"name": "Default"}
        password = {"user": {"name": user, "domain": default, "password": self.config.password}}
        auth = {
            "auth": {
                "identity": {"methods": ["password"], "password": password},
                "scope": {"project": {"name": user, "domain": default}},
            }
        }
        request = urllib.request.Request(
            f"{self.url}/identity/v3/auth/tokens?nocatalog",
            data=json.dumps(auth).encode(),
            headers={"content-type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=30) as answer:  # noqa: S310 - http
            return str(answer.headers["x-subject-token"])

    def clouds_yaml(self, path: Path, user: str = "admin") -> Path:
        """A clouds.yaml with the cloud ``sandbox`` for this sandbox; set
        ``OS_CLIENT_CONFIG_FILE`` to it and ``OS_CLOUD`` to `CLOUD_NAME`."""
        path.write_text(
            clouds_yaml_text(self.host, self.port, user=user, password=self.config.password)
        )
        return path


class RunningSandbox(ThreadedSandbox):
    def __init__(self, db_url: str = "sqlite://", build_delay: float = 0.0) -> None:
        super().__init__(db_url, SandboxConfig(build_delay=build_delay, password=PASSWORD))

    def start(self, timeout: float = 30.0) -> RunningSandbox:
        super().start(timeout)
        return self

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
