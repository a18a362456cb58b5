"""Progress of a running operation: the whole tree counted, failures said at once."""

from __future__ import annotations

import os
import pty
import re
import subprocess

import pytest

from .entry import STOKER, stoker

pytestmark = pytest.mark.heavy

GROUP = """heat_template_version: 2018-08-31
resources:
  other: {type: OS::Heat::None}
  web:
    type: OS::Heat::ResourceGroup
    properties:
      count: 3
      resource_def: {type: OS::Heat::None}
"""
FAILING = """heat_template_version: 2018-08-31
resources:
  web:
    type: OS::Heat::TestResource
    properties: {fail: true}
  slow:
    type: OS::Heat::TestResource
    properties: {wait_secs: 2}
"""
_ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _on_a_terminal(*args: str, cwd) -> str:
    """stderr of ``stoker ARGS`` written to a pseudo-terminal, escapes removed."""
    master, slave = pty.openpty()
    process = subprocess.Popen(
        [STOKER, *args],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=slave,
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    assert process.wait(timeout=120) == 0
    return _ESCAPES.sub("", b"".join(chunks).decode())


def test_live_counts_include_nested_resources(tmp_path) -> None:
    (tmp_path / "t.yaml").write_text(GROUP)
    shown = _on_a_terminal("--db", "s.db", "stack", "create", "g", "-t", "t.yaml", cwd=tmp_path)
    frames = re.findall(r"resources: (\d+)/(\d+) done", shown)
    assert frames[-1] == ("5", "5"), shown  # other, web, and web's three members
    assert all(int(done) <= int(total) for done, total in frames), frames


def test_event_lines_name_nested_resources_by_their_path(tmp_path) -> None:
    (tmp_path / "t.yaml").write_text(GROUP)
    result = stoker("--db", "s.db", "stack", "create", "g", "-t", "t.yaml", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    for member in ("web.0", "web.1", "web.2"):
        assert f"[{member}]: CREATE_COMPLETE" in result.stderr


def test_a_failure_while_others_run_is_said_at_once(tmp_path) -> None:
    (tmp_path / "t.yaml").write_text(FAILING)
    result = stoker("--db", "s.db", "stack", "create", "f", "-t", "t.yaml", cwd=tmp_path)
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    said = next(i for i, line in enumerate(lines) if line.startswith("web failed: "))
    assert lines[said].endswith(
        "; waiting for 1 running resource to finish (Ctrl-C to stop waiting)"
    )
    finished = next(i for i, line in enumerate(lines) if "[slow]: CREATE_COMPLETE" in line)
    assert said < finished
    assert lines[-1].startswith("error: f: CREATE_FAILED: ")


def test_event_lines_of_one_loop_turn_are_written_together_in_order(capsys) -> None:
    """Not on a terminal: every event is a line, in order, written once the engine yields
    to the event loop (one write for a group commit's events, not one per event)."""
    import asyncio
    from datetime import UTC, datetime

    from stoker.cli.progress import Progress
    from stoker.engine.state import Action, EventRecord, Status

    def event(name: str, status: Status, second: int) -> EventRecord:
        when = datetime(2026, 11, 23, 12, 0, second, 5000 * second, tzinfo=UTC)
        return EventRecord("s", name, "OS::Heat::None", Action.CREATE, status, "ok", None, when)

    async def run(progress: Progress) -> tuple[str, str]:
        for index in range(3):
            progress(event(f"r{index}", Status.IN_PROGRESS, index // 2))
        before = capsys.readouterr().err  # nothing yet: the loop has not turned
        await asyncio.sleep(0)
        return before, capsys.readouterr().err

    progress = Progress(3, live=False)
    with progress:
        before, after = asyncio.run(run(progress))
        progress(event("r0", Status.COMPLETE, 2))  # no loop running: written at once
        last = capsys.readouterr().err
    assert before == ""
    assert after.splitlines() == [
        "2026-11-23T12:00:00Z [r0]: CREATE_IN_PROGRESS  ok",
        "2026-11-23T12:00:00Z [r1]: CREATE_IN_PROGRESS  ok",
        "2026-11-23T12:00:01Z [r2]: CREATE_IN_PROGRESS  ok",
    ]
    assert last == "2026-11-23T12:00:02Z [r0]: CREATE_COMPLETE  ok\n"
    assert progress.counts[Status.COMPLETE] == 1 and len(progress.running) == 2
