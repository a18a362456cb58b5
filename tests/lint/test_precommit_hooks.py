"""The pre-commit hook definitions: well formed, and their entries lint what they are given."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import yaml
from click.testing import CliRunner

from stoker.cli.main import cli

from .cases import OK, ONAP_ENV, ONAP_OK

HOOKS = Path(__file__).resolve().parents[2] / ".pre-commit-hooks.yaml"


def _hooks() -> dict[str, dict]:
    return {hook["id"]: hook for hook in yaml.safe_load(HOOKS.read_text())}


def _run(hook: dict, *args: str) -> int:
    command = shlex.split(hook["entry"])
    assert command[:2] == ["stoker", "lint"]
    return CliRunner().invoke(cli, [*command[1:], *hook.get("args", []), *args]).exit_code


def test_the_hooks_are_well_formed():
    hooks = _hooks()
    assert set(hooks) == {"stoker-lint", "stoker-lint-onap"}
    for hook in hooks.values():
        assert {"id", "name", "entry", "language"} <= set(hook)
        assert hook["language"] == "python"  # installed from this repository's package
        pattern = re.compile(hook["files"])
        assert pattern.search("heat/base_vfw.yaml") and pattern.search("base_vfw.env")
        assert not pattern.search("setup.py")
    assert hooks["stoker-lint-onap"]["pass_filenames"] is False


def test_the_default_hook_passes_a_clean_file_and_fails_a_broken_one(tmp_path):
    hook = _hooks()["stoker-lint"]
    (tmp_path / "ok.yaml").write_text(OK)
    (tmp_path / "bad.yaml").write_text(OK.replace("resources:", "resourcez:"))
    assert _run(hook, str(tmp_path / "ok.yaml")) == 0
    assert _run(hook, str(tmp_path / "ok.yaml"), str(tmp_path / "bad.yaml")) == 1


def test_the_onap_hook_lints_the_package_it_is_given(tmp_path):
    hook = _hooks()["stoker-lint-onap"]
    # vnf_name is ONAP's to supply (R-36542): this module names its parameter otherwise
    (tmp_path / "base_mod.yaml").write_text(ONAP_OK.replace("vnf_name", "vnf_label"))
    assert _run(hook, str(tmp_path)) == 1  # R-86285: no environment file
    (tmp_path / "base_mod.env").write_text(ONAP_ENV.replace("vnf_name", "vnf_label"))
    assert _run(hook, str(tmp_path)) == 0
