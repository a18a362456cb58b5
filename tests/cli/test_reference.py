"""docs/cli.md is the CLI's own help, so it is regenerated, never edited: this fails when
a command or option changed and the page was not made again."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from stoker.cli.reference import REGENERATE, render

ROOT = Path(__file__).resolve().parents[2]


def test_the_command_reference_is_current() -> None:
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert page == render(), f"docs/cli.md is out of date: regenerate it with `{REGENERATE}`"


def test_every_command_has_its_section() -> None:
    page = render()
    for path in (
        "stoker stack create",
        "stoker stack snapshot restore",
        "stoker serve",
        "stoker sandbox clouds-yaml",
        "stoker template function list",
        "stoker lint",
    ):
        assert f"\n## `{path}`\n" in page
        assert f"](#{path.replace(' ', '-')})" in page
    assert "Usage: stoker stack create [OPTIONS] NAME" in page


def test_the_module_prints_the_page() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "stoker.cli.reference"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    assert result.stdout == render()
