"""Running the installed ``stoker`` entry point in a child process, as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

STOKER = str(Path(sys.executable).with_name("stoker"))


def stoker(
    *args: str, cwd: str | Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``stoker ARGS`` with its own SQLite file unless ``--db`` or the env says otherwise."""
    environment = {**os.environ, "COLUMNS": "200", **(env or {})}
    environment.pop("STOKER_DB_URL", None) if env is None or "STOKER_DB_URL" not in env else None
    return subprocess.run(
        [STOKER, *args],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
