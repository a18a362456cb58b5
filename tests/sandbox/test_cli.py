"""``stoker sandbox``'s commands: clouds.yaml, and imports kept lazy."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from stoker.cli.main import cli

pytestmark = pytest.mark.heavy

_PROBE = """
import json, sys
from stoker.cli.main import main
try:
    main()
except SystemExit:
    pass
sys.__stdout__.write("\\n" + json.dumps(sorted(sys.modules)) + "\\n")
"""


def _modules(*args: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, check=True
    )
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def test_clouds_yaml_names_the_sandbox_cloud() -> None:
    result = CliRunner().invoke(cli, ["sandbox", "clouds-yaml", "--port", "9999", "--user", "demo"])
    assert result.exit_code == 0, result.output
    entry = yaml.safe_load(result.output)["clouds"]["sandbox"]
    assert entry["auth"]["auth_url"] == "http://127.0.0.1:9999/identity"
    assert entry["auth"]["username"] == entry["auth"]["project_name"] == "demo"
    assert entry["identity_api_version"] == 3


def test_help_and_clouds_yaml_import_no_web_stack() -> None:
    for args in (["--help"], ["sandbox", "--help"], ["sandbox", "clouds-yaml"]):
        loaded = _modules(*args)
        web = sorted(m for m in loaded if m.split(".")[0] in ("starlette", "uvicorn", "httpx"))
        assert web == [], args
        assert "stoker.sandbox.app" not in loaded


def test_bad_faults_file_is_a_located_error(tmp_path: Path) -> None:
    faults = tmp_path / "faults.yaml"
    faults.write_text("rules:\n  - error_rate: 2\n")
    result = CliRunner().invoke(cli, ["sandbox", "serve", "--faults", str(faults)])
    assert result.exit_code == 2  # an unusable file of settings, as a lint config is
    assert f"{faults}: rules[0].error_rate: expected a number between 0 and 1" in result.output
