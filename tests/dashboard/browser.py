"""Debian's Chromium driven by Selenium through Debian's chromedriver (never a driver
downloaded at run time), headless, with the flags this machine needs, and a ``stoker
serve`` to point it at. Where the browser is not installed the tests skip, saying why
(`.ci/run` installs it when it runs as root)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
BIN = Path(sys.executable).parent
REPO = Path(__file__).resolve().parents[2]
#: where a run's screenshots go (``$STOKER_ARTIFACTS`` or tmp/artifacts in the checkout)
ARTIFACTS = Path(os.environ.get("STOKER_ARTIFACTS") or REPO / "tmp" / "artifacts")


def missing_browser() -> str | None:
    """Why the browser tests cannot run here, or None."""
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.access(path, os.X_OK):
            return (
                f"{path} is not installed: the dashboard's browser tests need Debian's "
                "chromium and chromium-driver (apt-get install -y chromium chromium-driver; "
                ".ci/run installs them when it runs as root)"
            )
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Serve:
    """``stoker serve`` on a free port over ``db`` (noauth), until `stop`."""

    def __init__(self, db: str, log: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        self._out = log.open("ab")
        env = {**os.environ, "STOKER_DB_URL": db}
        self.process = subprocess.Popen(
            [str(BIN / "stoker"), "serve", "--port", str(self.port)],
            env=env,
            stdout=self._out,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(self.url + "/").status_code == 300:
                    return
            except httpx.TransportError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise AssertionError(f"stoker serve did not start: {log.read_text()}")
            time.sleep(0.1)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=60)
        self._out.close()


def chromium(profile: Path) -> Iterator[object]:
    """A headless Chromium (a fresh profile in ``profile``), closed at the end."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        f"--user-data-dir={profile}",
        "--window-size=1280,1000",
    ):
        options.add_argument(flag)
    service = Service(executable_path=CHROMEDRIVER, log_output=subprocess.DEVNULL)
    driver = webdriver.Chrome(options=options, service=service)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[object]:
    reason = missing_browser()
    if reason is not None:
        pytest.skip(reason)
    yield from chromium(tmp_path / "chromium-profile")
