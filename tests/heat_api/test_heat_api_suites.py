"""OpenStack's own Heat API tests (heat-tempest-plugin's gabbi tests and the functional
tests of heat-tempest-plugin and heat_integrationtests) against a real `stoker serve`
on an ephemeral port: every test passes but those `expected.py` names, each with its
reason (see README.md here). The test packages come from PyPI into a virtualenv of their
own, made once under ``$STOKER_HEAT_API_TESTS_HOME``."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .expected import FUNCTIONAL, GABBI

HERE = Path(__file__).parent
RUNNER = HERE / "runner"
BIN = Path(sys.executable).parent
#: exactly what the team's heat-api-tests tool installs
REQUIREMENTS = (
    "heat-tempest-plugin==3.0.0",
    "tempest==47.0.0",
    "gabbi==4.2.3",
    "openstack-heat==24.1.2",
)
#: the functional modules every CI run takes (seconds each on stoker); the slow tier runs
#: the whole list (runner/modules.txt)
QUICK = (
    "heat_integrationtests.functional.test_conditions",
    "heat_integrationtests.functional.test_default_parameters",
    "heat_integrationtests.functional.test_env_merge",
    "heat_integrationtests.functional.test_immutable_parameters",
    "heat_integrationtests.functional.test_nested_get_attr",
    "heat_integrationtests.functional.test_preview_update",
    "heat_integrationtests.functional.test_template_versions",
    "heat_integrationtests.functional.test_versionnegotiation",
    "heat_tempest_plugin.tests.functional.test_external_ref",
    "heat_tempest_plugin.tests.functional.test_preview",
    "heat_tempest_plugin.tests.functional.test_resources_list",
    "heat_tempest_plugin.tests.functional.test_stack_outputs",
    "heat_tempest_plugin.tests.functional.test_stack_tags",
    "heat_tempest_plugin.tests.functional.test_template_validate",
    "heat_tempest_plugin.tests.functional.test_templates",
    "heat_tempest_plugin.tests.functional.test_unicode_template",
)


def _home() -> Path:
    default = Path.home() / ".cache" / "stoker-heat-api-tests"
    return Path(os.environ.get("STOKER_HEAT_API_TESTS_HOME", default))


def _venv() -> Path:
    """The virtualenv with the test packages, made on first use (one maker at a time:
    parallel workers wait on a lock)."""
    home = _home()
    home.mkdir(parents=True, exist_ok=True)
    venv = home / "venv"
    python = venv / "bin" / "python"
    stamp = venv / ".heat-api-tests-requirements"
    wanted = " ".join(REQUIREMENTS)
    with (home / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if python.exists() and stamp.exists() and stamp.read_text() == wanted:
            return venv
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        log = home / "pip.log"
        with log.open("w") as out:
            done = subprocess.run(
                [str(python), "-m", "pip", "install", *REQUIREMENTS],
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        if done.returncode != 0:
            tail = log.read_text()[-3000:]
            raise AssertionError(f"pip install of {wanted} failed ({log}):\n{tail}")
        stamp.write_text(wanted)
    return venv


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_for(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except urllib.error.HTTPError:
            return  # it answers
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            raise AssertionError(f"{url} did not answer: {log.read_text()[-3000:]}")
        time.sleep(0.2)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """A `stoker serve` of its own (SQLite, noauth); its API base URL."""
    port = _free_port()
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(BIN / "stoker"), "--db", str(tmp_path / "serve.db"), "serve"]
            + ["--host", "127.0.0.1", "--port", str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        _wait_for(f"http://127.0.0.1:{port}/", process, log)
        yield f"http://127.0.0.1:{port}/v1/admin"
    finally:
        process.terminate()
        process.wait(timeout=60)


def _outcome(records: list[dict[str, Any]], name: Any) -> dict[str, str]:
    """Each test that did not pass (skips aside), by a stable name, with its status."""
    return {name(r): r["status"] for r in records if r["status"] not in ("pass", "skip")}


def _report(found: dict[str, str], expected: dict[str, str], records: list[dict[str, Any]]) -> str:
    lines = []
    for record in records:
        if record["status"] in ("pass", "skip"):
            continue
        lines.append(f"{record['status']}: {record['id']}\n{record.get('detail', '')[-1500:]}")
    missing = sorted(set(expected) - set(found))
    return "\n\n".join(lines) + f"\n\nexpected to fail but passed: {missing}"


def _gabbi(server: str, tmp_path: Path) -> None:
    venv = _venv()
    out = tmp_path / "gabbi.json"
    subprocess.run(
        [str(venv / "bin" / "python"), str(RUNNER / "run_gabbi.py"), server, "--out", str(out)],
        cwd=tmp_path,
        capture_output=True,
        timeout=600,
    )
    records = json.loads(out.read_text())["tests"]
    assert len(records) == 47
    found = _outcome(records, lambda r: f"{r['file']}: {r['name']}")
    assert set(found) == set(GABBI), _report(found, GABBI, records)


def _functional(server: str, tmp_path: Path, modules: tuple[str, ...]) -> None:
    venv = _venv()
    python = venv / "bin" / "python"
    keystone_port = _free_port()
    etc = tmp_path / "tempest-etc"
    pypath = tmp_path / "pypath"
    etc.mkdir()
    pypath.mkdir()
    located = subprocess.run(
        [
            str(python),
            "-c",
            "import importlib.util as u; "
            "print(list(u.find_spec('heat_integrationtests').submodule_search_locations)[0])",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    (pypath / "heat_integrationtests").symlink_to(located.stdout.strip())
    conf = (RUNNER / "tempest.conf.in").read_text()
    conf = conf.replace("@KEYSTONE@", f"http://127.0.0.1:{keystone_port}/v3")
    conf = conf.replace("@CONVERGENCE@", "false").replace("@STACK_CANCEL@", "true")
    (etc / "tempest.conf").write_text(conf)
    log = tmp_path / "fake_keystone.log"
    with log.open("wb") as keystone_out:
        keystone = subprocess.Popen(
            [str(python), str(RUNNER / "fake_keystone.py"), "--port", str(keystone_port)]
            + ["--heat-url", server],
            stdout=keystone_out,
            stderr=subprocess.STDOUT,
        )
    try:
        _wait_for(f"http://127.0.0.1:{keystone_port}/v3", keystone, log)
        out = tmp_path / "functional.json"
        env = {
            **os.environ,
            "PYTHONPATH": str(pypath),
            "TEMPEST_CONFIG_DIR": str(etc),
            "TEMPEST_CONFIG": "tempest.conf",
        }
        subprocess.run(
            [str(python), str(RUNNER / "run_functional.py"), "--out", str(out), *modules],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            timeout=3600,
        )
    finally:
        keystone.terminate()
        keystone.wait(timeout=30)
    result = json.loads(out.read_text())
    assert not result["load_errors"]
    records = result["tests"]
    expected = {
        k: v for k, v in FUNCTIONAL.items() if k.startswith(tuple(m + "." for m in modules))
    }
    found = _outcome(records, lambda r: r["id"].split("[")[0])
    assert set(found) == set(expected), _report(found, expected, records)


@pytest.mark.heavy
def test_gabbi_suite(server: str, tmp_path: Path) -> None:
    _gabbi(server, tmp_path)


@pytest.mark.heavy
def test_quick_functional_modules(server: str, tmp_path: Path) -> None:
    _functional(server, tmp_path, QUICK)


@pytest.mark.slow
def test_every_functional_module(server: str, tmp_path: Path) -> None:
    modules = tuple(
        line.strip()
        for line in (RUNNER / "modules.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    )
    _functional(server, tmp_path, modules)
