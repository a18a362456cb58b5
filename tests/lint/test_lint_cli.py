"""``stoker lint`` on the command line: reports, exit codes, rule listing, usage errors."""

from __future__ import annotations

import json

from click.testing import CliRunner

from stoker.cli.main import cli
from stoker.lint.onap.requirements import BEYOND_SEED, REQUIREMENTS
from stoker.lint.registry import default_registry

from .cases import OK

UNUSED = OK.replace("{get_param: name}", "fixed")


def _invoke(*args: str):
    return CliRunner().invoke(cli, ["lint", *args])


def test_clean_file_exits_0(tmp_path):
    (tmp_path / "t.yaml").write_text(OK)
    result = _invoke(str(tmp_path / "t.yaml"))
    assert result.exit_code == 0, result.output
    assert result.output.strip().endswith("0 errors, 0 warnings, 0 infos in 1 file")


def test_findings_at_the_fail_level_exit_1(tmp_path):
    (tmp_path / "t.yaml").write_text(UNUSED)
    assert _invoke(str(tmp_path / "t.yaml")).exit_code == 0  # a warning, below "error"
    result = _invoke(str(tmp_path / "t.yaml"), "--fail-level", "warning")
    assert result.exit_code == 1
    assert f"{tmp_path / 't.yaml'}:4:3: W2001 warning: " in result.output


def test_sarif_to_a_file(tmp_path):
    (tmp_path / "t.yaml").write_text(UNUSED)
    out = tmp_path / "out.sarif"
    result = _invoke(str(tmp_path), "-f", "sarif", "-o", str(out), "--profile", "onap")
    assert result.exit_code == 1  # R-90279 (MUST): an error
    document = json.loads(out.read_text())
    assert {r["ruleId"] for r in document["runs"][0]["results"]} >= {"R-90279", "R-86285"}


def test_config_file_found_upwards_and_command_line_ignores(tmp_path, monkeypatch):
    (tmp_path / ".stoker-lint.yaml").write_text("fail_level: warning\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "t.yaml").write_text(UNUSED)
    monkeypatch.chdir(tmp_path / "sub")
    assert _invoke("t.yaml").exit_code == 1
    assert _invoke("t.yaml", "--ignore", "W2001").exit_code == 0


def test_list_rules(tmp_path):
    result = _invoke("--list-rules")
    assert result.exit_code == 0
    listed = {line.split()[0] for line in result.output.splitlines()}
    every = (*REQUIREMENTS, *BEYOND_SEED)
    assert listed == {r.id for r in default_registry().rules()} | {r.id for r in every}
    onap = _invoke("--list-rules", "--profile", "onap").output.splitlines()
    not_checked = [line for line in onap if "not checked:" in line]
    assert len(not_checked) == sum(1 for r in every if not r.checked)
    assert any(line.startswith("R-32094 ") and "MAY" in line for line in not_checked)
    assert any(line.startswith("R-97726 ") and "appropriate" in line for line in not_checked)
    assert all(line.split()[0].startswith("R-") or "all" in line for line in onap)


def test_explain():
    result = _invoke("--explain", "E1037")
    assert result.exit_code == 0
    assert result.output.startswith("E1037 (error; profile default): get_attr of an attribute")
    assert "source: Heat behaviour" in result.output
    assert "not checked" in _invoke("--explain", "R-32094").output


def test_usage_errors_exit_2(tmp_path):
    assert _invoke().exit_code == 2  # no path
    assert _invoke(str(tmp_path / "missing.yaml")).exit_code == 2
    assert _invoke("--explain", "X9999").exit_code == 2
    assert _invoke(str(tmp_path), "--profile", "nope").exit_code == 2
    bad = tmp_path / "bad.yaml"
    bad.write_text("profiles: [nope]\n")
    result = _invoke(str(tmp_path), "--config", str(bad))
    assert result.exit_code == 2 and "not a valid profiles value" in result.output
