"""Running the ``stoker`` command as a user would.

`stoker` runs the command's entry point (`stoker.cli.main.cli`, which the installed
``stoker`` script calls) in this process, with its own working directory, environment and
exit status, so the error handler, formats and exit codes are the ones users meet; it
costs milliseconds instead of an interpreter start. `installed` runs the installed script
in a child process, for what only a real process shows (imports, a missing driver, a
terminal).
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner

from stoker.cli.main import cli

STOKER = str(Path(sys.executable).with_name("stoker"))

#: what ``stoker stack create|update|adopt|recover`` print when they end: ``openstack stack
#: create|update|adopt``'s short view (python-heatclient's ``_show_stack(..., short=True)``),
#: its columns in its order
SHORT_VIEW = [
    "id",
    "stack_name",
    "description",
    "creation_time",
    "updated_time",
    "stack_status",
    "stack_status_reason",
]


@dataclass(frozen=True)
class Ran:
    returncode: int
    stdout: str
    stderr: str


def stoker(*args: str, cwd: str | Path | None = None, env: dict[str, str] | None = None) -> Ran:
    """``stoker ARGS`` in ``cwd``; ``$STOKER_DB_URL`` is unset unless ``env`` sets it."""
    environment: dict[str, str | None] = {"STOKER_DB_URL": None, "COLUMNS": None}
    environment.update(env or {})
    before = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        result = CliRunner(env=environment).invoke(cli, list(args), prog_name="stoker")
    finally:
        os.chdir(before)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return Ran(result.exit_code, result.stdout, result.stderr)


def installed(
    *args: str, cwd: str | Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The installed ``stoker`` script in a child process."""
    environment = {**os.environ, **(env or {})}
    environment.pop("STOKER_DB_URL", None)
    return subprocess.run(
        [STOKER, *args], cwd=cwd, env=environment, capture_output=True, text=True, timeout=120
    )
