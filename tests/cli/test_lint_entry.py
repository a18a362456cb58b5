"""``stoker lint`` read without Click (`stoker.cli.lint_entry`) does what Click's does.

The plain command lines are run twice: by the installed entry point in a fresh process
(where `lint_entry` reads them, and Click is never imported) and by Click's test runner
(the Click command); both must print the same report and summary and exit alike. Every
other command line is left to Click.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from stoker.cli.lint_entry import Line, read
from stoker.limits import LIMITS

from .entry import stoker

OK = """\
heat_template_version: 2021-04-16
description: ok
parameters:
  name:
    type: string
    description: a name
resources:
  value:
    type: OS::Heat::Value
    properties:
      value: {get_param: name}
outputs:
  out:
    value: {get_attr: [value, value]}
"""
UNUSED = OK.replace("{get_param: name}", "fixed")  # W2001: an unused parameter
BROKEN = "heat_template_version: 2021-04-16\nresources: [\n"  # does not load
ESCAPE = UNUSED.replace("  name:\n", '  "na\\e[1mme":\n')  # named with an escape

_PROBE = """
import json, os, sys
from stoker.cli.main import main
status = 0
try:
    main()
except SystemExit as exit:
    status = exit.code
with open(os.environ["PROBE_OUT"], "w") as handle:
    json.dump([status, "click" in sys.modules], handle)
"""


def _entry_point(args: list[str], cwd: Path, probe: Path) -> tuple[int, str, str, bool]:
    """Exit status, stdout, stderr, and whether Click was imported: ``stoker ARGS`` as the
    installed script runs it."""
    env = {**os.environ, "PROBE_OUT": str(probe), "PYTHONIOENCODING": "utf-8"}
    env.pop("STOKER_DB_URL", None)
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=True,
    )
    status, clicked = json.loads(probe.read_text())
    return status, done.stdout, done.stderr, clicked


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "ok.yaml").write_text(OK)
    (tmp_path / "unused.yaml").write_text(UNUSED)
    (tmp_path / "broken.yaml").write_text(BROKEN)
    (tmp_path / "escape.yaml").write_text(ESCAPE)
    (tmp_path / "strict").mkdir()
    (tmp_path / "strict" / ".stoker-lint.yaml").write_text("fail_level: warning\n")
    (tmp_path / "strict" / "unused.yaml").write_text(UNUSED)
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / ".stoker-lint.yaml").write_text("- not a mapping\n")
    (tmp_path / "bad" / "ok.yaml").write_text(OK)
    return tmp_path


PLAIN = [
    ["lint", "ok.yaml"],
    ["lint", "unused.yaml", "--fail-level", "warning"],
    ["lint", "unused.yaml", "ok.yaml", "-f", "json", "--ignore", "W2001"],
    ["lint", "--profile", "onap", "--profile=default", ".", "--format=sarif"],
    ["lint", "broken.yaml", "-f", "junit"],
    ["lint", "escape.yaml"],  # an escape sequence in a finding: stripped on a pipe
    ["lint", "strict"],  # the directory's config file applies
    ["lint", "bad"],  # an unusable config file: a usage error
]


@pytest.mark.parametrize("args", PLAIN, ids=[" ".join(a[1:]) for a in PLAIN])
def test_a_plain_lint_skips_click_and_prints_what_click_prints(args: list[str], tree: Path) -> None:
    status, out, err, clicked = _entry_point(args, tree, tree.parent / f"{tree.name}.json")
    assert not clicked, err  # `lint_entry` read the line
    by_click = stoker(*args, cwd=tree)
    assert (status, out, err) == (by_click.returncode, by_click.stdout, by_click.stderr)


def test_the_cases_cover_each_outcome(tree: Path) -> None:
    """The parity cases above include a clean run, findings, a failure and an error."""
    statuses = {stoker(*args, cwd=tree).returncode for args in PLAIN}
    assert statuses == {0, 1, 2}


def test_read_gives_what_click_would_pass(tree: Path) -> None:
    ok, unused = str(tree / "ok.yaml"), str(tree / "unused.yaml")
    assert read(["lint", ok]) == Line((ok,), (), "text", None, ())
    assert read(
        ["lint", "-f", "json", ok, "--profile", "onap", "--ignore=W2001", unused, "-f", "sarif"]
    ) == Line((ok, unused), ("onap",), "sarif", None, ("W2001",))
    assert read(["lint", "--fail-level=warning", "--profile=default", "--profile", "onap", ok]) == (
        Line((ok,), ("default", "onap"), "text", "warning", ())
    )


@pytest.mark.parametrize(
    "words",
    [
        [],  # no path: Click's usage error
        ["--help"],
        ["-h"],
        ["--list-rules"],
        ["--explain", "R-92635"],
        ["-o", "out.txt"],
        ["--config", "c.yaml"],
        ["-c", "id"],
        ["--max-nodes", "5"],
        ["-f", "table"],  # a --list-rules format
        ["--profile", "nope"],
        ["--fail-level", "fatal"],
        ["-fjson"],
        ["-f=json"],
        ["--format="],
        ["--ignore", "-x"],
        ["--ignore"],
        ["--"],
        ["-"],
        ["missing.yaml"],
    ],
)
def test_every_other_lint_line_is_clicks(words: list[str], tree: Path) -> None:
    args = ["lint", *words]
    if words not in ([], ["missing.yaml"]):
        args.append(str(tree / "ok.yaml"))
    assert read(args) is None


def test_other_commands_and_the_environment_are_clicks(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ok = str(tree / "ok.yaml")
    assert read(["template", "validate", ok]) is None
    assert read(["--db", "x", "lint", ok]) is None
    assert read(["lint", ok]) is not None
    monkeypatch.setenv(LIMITS["nodes"].envvar, "5")
    assert read(["lint", ok]) is None
    monkeypatch.delenv(LIMITS["nodes"].envvar)
    monkeypatch.setenv("_STOKER_COMPLETE", "bash_source")
    assert read(["lint", ok]) is None
