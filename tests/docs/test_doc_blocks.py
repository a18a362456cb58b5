"""Every shell block of the docs runs as written (tests/docs/blocks.py says which blocks
and what their markers mean), so a documented command cannot drift from the code.

Each block runs in bash (``-e -o pipefail``: every command must succeed) in its own copy
of the repository, where ``.venv`` is the environment running these tests, with
``.venv/bin`` first on PATH (so ``.venv/bin/stoker`` and a bare ``stoker`` or
``openstack`` both resolve as the docs write them), and a fresh empty HOME (no XDG
variables, no ``STOKER_*`` or ``OS_*`` ones): the user's data directory, its database and
its key file start empty, as on a new machine. Blocks of README.md and docs/*.md run from
the copy's root, an example's README from its own directory (its commands name the files
beside it). Files a block writes land in the copy, never in the checkout (``src`` is
linked, being what ``.venv`` runs; ``tests`` is copied for the blocks that name it).

A block marked ``sandbox`` or ``serve`` gets a real ``stoker sandbox serve`` / ``stoker
serve`` process on a free port, started before the block and stopped after it. Its own
line that starts one in the background (``... sandbox serve --port 8788 &``) is run by the
runner with the free port instead of the documented one, and the documented port is
replaced by the free one in the rest of the block; the block runs once the server
answers HTTP (polled, never a fixed sleep). A ``sandbox`` block without a ``clouds-yaml``
line gets the sandbox's ``clouds.yaml`` in its directory and ``$OS_CLIENT_CONFIG_FILE``.
Those blocks start servers and the real ``openstack`` client, seconds each: they run in
the heavy tier; ``slow`` ones in the slow tier.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

from .blocks import Block, MarkerError, blocks_of, pages

ROOT = Path(__file__).resolve().parents[2]
#: the environment running the tests: the blocks' ``.venv``
VENV = Path(sys.prefix)
DOCUMENTED_PORTS = {"sandbox": 8788, "serve": 8004}
#: a block that re-installs ``.venv`` would re-point the editable install the whole
#: suite runs from at a temporary copy: it must be marked skip
_REINSTALLS = re.compile(r"scripts/(bootstrap|demo|test)\.sh|\bpip3? install\b")
_BACKGROUND_SERVER = re.compile(
    r"^\s*(?P<command>\S*stoker)\s+(?P<args>(?:[^&#]*\s)?serve\b[^&#]*)"
    r"&\s*(?:#.*)?$"
)
_KEPT_VARIABLES = ("LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR")
#: how long a block may run before it counts as hung, and a server may take to answer
BLOCK_TIMEOUT = {False: 300, True: 3600}
SERVER_DEADLINE = 120.0
#: readiness probes go straight to the server, whatever proxy the environment names
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _collect() -> tuple[list[Block], list[str]]:
    blocks: list[Block] = []
    errors: list[str] = []
    for page in pages(ROOT):
        name = page.relative_to(ROOT).as_posix()
        try:
            blocks += blocks_of(name, page.read_text(encoding="utf-8"))
        except MarkerError as error:
            errors.append(str(error))
    return blocks, errors


BLOCKS, ERRORS = _collect()


def _param(block: Block) -> object:
    marks: list[pytest.MarkDecorator] = []
    if block.skip is not None:
        marks.append(pytest.mark.skip(reason=f"{block.id}: {block.skip}"))
    if block.slow:
        marks.append(pytest.mark.slow)
    elif block.sandbox or block.serve:
        marks.append(pytest.mark.heavy)
    return pytest.param(block, id=block.id, marks=marks)


def test_the_markers_are_well_formed() -> None:
    assert ERRORS == []


def test_there_are_blocks_to_run() -> None:
    pages_with_blocks = {block.page for block in BLOCKS}
    assert {"README.md", "docs/api.md", "docs/sandbox.md"} <= pages_with_blocks
    assert any(block.page.startswith("examples/") for block in BLOCKS)


@pytest.mark.parametrize("block", [_param(block) for block in BLOCKS])
def test_the_block_runs_as_written(block: Block, tmp_path: Path) -> None:
    assert not _REINSTALLS.search(block.script), (
        f"{block.id} re-installs .venv, which this test suite runs from: mark it "
        "<!-- doctest: skip: REASON --> (and say where else it is run)"
    )
    stoker = VENV / "bin" / "stoker"
    assert stoker.exists(), f"stoker is not installed in {VENV}, the environment running pytest"
    copy = _working_copy(tmp_path / "repo", block.script)
    cwd = copy / Path(block.page).parent if block.page.startswith("examples/") else copy
    home = tmp_path / "home"
    home.mkdir()
    env = {name: os.environ[name] for name in _KEPT_VARIABLES if name in os.environ}
    env.update(HOME=str(home), PATH=f"{VENV / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}")
    script, server = _take_server_line(block)
    with _servers(block, server, env, cwd, tmp_path) as ports:
        for kind, port in ports.items():
            script = re.sub(rf"\b{DOCUMENTED_PORTS[kind]}\b", str(port), script)
        status, output = _run(script, env, cwd, tmp_path / "block.log", block.slow)
    assert status == 0, (
        f"{block.id}: the block exited {status}\n--- script ---\n{script}--- output ---\n{output}"
    )


def _take_server_line(block: Block) -> tuple[str, tuple[str, list[str]] | None]:
    """The block without its line that starts a server in the background, and that
    line's server kind and arguments (the runner runs it, to know when it answers)."""
    kept: list[str] = []
    server: tuple[str, list[str]] | None = None
    for line in block.script.splitlines():
        found = _BACKGROUND_SERVER.match(line)
        if found is None:
            kept.append(line)
            continue
        kind = "sandbox" if re.search(r"\bsandbox\s+serve\b", found["args"]) else "serve"
        assert getattr(block, kind), (
            f"{block.id} starts a {kind} in the background: mark it <!-- doctest: {kind} -->"
        )
        server = (kind, shlex.split(found["args"]))
        kept.append(f": {line.strip()}  # started by the docs test on a free port")
    return "\n".join(kept) + "\n", server


@contextmanager
def _servers(
    block: Block, line: tuple[str, list[str]] | None, env: dict[str, str], cwd: Path, tmp: Path
) -> Iterator[dict[str, int]]:
    """The servers the block's markers ask for, each started, answering, then stopped."""
    ports: dict[str, int] = {}
    processes: list[subprocess.Popen[bytes]] = []
    try:
        for kind in ("sandbox", "serve"):
            if not getattr(block, kind):
                continue
            for _attempt in range(3):  # another process may take the free port first
                port = _free_port()
                if line is not None and line[0] == kind:
                    args = _with_port(line[1], port)
                else:
                    args = ["sandbox", "serve"] if kind == "sandbox" else ["serve"]
                    args += ["--port", str(port)]
                log = tmp / f"{kind}.log"
                processes.append(_start([str(VENV / "bin" / "stoker"), *args], env, cwd, log))
                if _wait_until_answering(processes[-1], port, log):
                    break
            else:
                pytest.fail(f"no free port for the {kind} in three tries:\n{log.read_text()}")
            ports[kind] = port
            if kind == "sandbox" and "clouds-yaml" not in block.script:
                clouds = subprocess.run(
                    [str(VENV / "bin" / "stoker"), "sandbox", "clouds-yaml", "--port", str(port)],
                    env=env, cwd=cwd, capture_output=True, text=True, check=True,
                )  # fmt: skip
                (cwd / "clouds.yaml").write_text(clouds.stdout, encoding="utf-8")
                env["OS_CLIENT_CONFIG_FILE"] = str(cwd / "clouds.yaml")
        yield ports
    finally:
        for process in processes:
            _stop(process)


def _with_port(args: list[str], port: int) -> list[str]:
    out: list[str] = []
    skip_next = False
    for arg in args:
        if skip_next:
            skip_next = False
        elif arg == "--port":
            skip_next = True
        elif not arg.startswith("--port="):
            out.append(arg)
    return [*out, "--port", str(port)]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _start(
    command: list[str], env: dict[str, str], cwd: Path, log: Path
) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen(
            command, env=env, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip


def _wait_until_answering(process: subprocess.Popen[bytes], port: int, log: Path) -> bool:
    """Until the server answers HTTP on its port (any status): readiness, polled. False
    if it could not bind the port (taken since it was found free)."""
    deadline = time.monotonic() + SERVER_DEADLINE
    while True:
        if process.poll() is not None:
            if "address already in use" in log.read_text():
                return False
            pytest.fail(f"the server exited {process.returncode}:\n{log.read_text()}")
        try:
            _DIRECT.open(f"http://127.0.0.1:{port}/", timeout=5).close()
            return process.poll() is None
        except urllib.error.HTTPError:
            return process.poll() is None  # it answered
        except OSError:
            if time.monotonic() > deadline:
                _stop(process)
                pytest.fail(f"the server did not answer on port {port}:\n{log.read_text()}")
            time.sleep(0.05)


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the server's process group (uvicorn's workers too), then SIGKILL."""
    for sig, wait in ((signal.SIGTERM, 20.0), (signal.SIGKILL, 20.0)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            break
        try:
            process.wait(wait)
            break
        except subprocess.TimeoutExpired:
            continue


def _run(script: str, env: dict[str, str], cwd: Path, log: Path, slow: bool) -> tuple[int, str]:
    """Runs the block in bash; whatever it left in the background is killed after."""
    command = ["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", script]
    with log.open("wb") as out:
        process = subprocess.Popen(
            command, env=env, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        try:
            status = process.wait(BLOCK_TIMEOUT[slow])
        except subprocess.TimeoutExpired:
            status = -1
        finally:
            _kill_group(process.pid)
            process.wait()
    return status, log.read_text(encoding="utf-8", errors="replace")


def _kill_group(pgid: int) -> None:
    with suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGKILL)


_SOURCES: list[Path] | None = None


def _sources() -> list[Path]:
    """The repository's files, as a fresh clone has them: git's tracked and unignored
    files when this is a git checkout, otherwise the tree without its caches."""
    global _SOURCES
    if _SOURCES is None:
        listed = None
        if shutil.which("git") is not None and (ROOT / ".git").exists():
            result = subprocess.run(
                ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others",
                 "--exclude-standard"],
                capture_output=True, check=False,
            )  # fmt: skip
            if result.returncode == 0:
                listed = [Path(name) for name in result.stdout.decode().split("\0") if name]
        if listed is None:
            ignored = {".git", ".venv", "__pycache__", ".pytest_cache", ".ruff_cache",
                       ".mypy_cache", ".hypothesis"}  # fmt: skip
            listed = [
                path.relative_to(ROOT)
                for path in ROOT.rglob("*")
                if path.is_file() and not ignored & set(path.relative_to(ROOT).parts)
            ]
        _SOURCES = [path for path in listed if (ROOT / path).is_file()]
    return _SOURCES


def _working_copy(target: Path, script: str) -> Path:
    """A copy of the repository with ``.venv`` linked to the tests' environment and
    ``src`` to the checkout's (the code ``.venv``'s editable install runs; no block writes
    into it). ``tests/`` (half the files: test data) is copied only for a block that names
    it or runs a benchmark: a thousand files copied for every block would cost more system
    time than most blocks."""
    skipped = {"src"} if re.search(r"\b(tests|benchmarks)/", script) else {"src", "tests"}
    made: set[Path] = set()
    for relative in _sources():
        if relative.parts[0] in skipped:
            continue
        destination = target / relative
        if destination.parent not in made:
            destination.parent.mkdir(parents=True, exist_ok=True)
            made.add(destination.parent)
        shutil.copyfile(ROOT / relative, destination)
        if os.access(ROOT / relative, os.X_OK):
            destination.chmod(0o755)
    (target / ".venv").symlink_to(VENV, target_is_directory=True)
    (target / "src").symlink_to(ROOT / "src", target_is_directory=True)
    return target
