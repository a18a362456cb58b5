"""Lint small packages written for the tests, and read findings back as (file, line, column)."""

from __future__ import annotations

import io
import os
import textwrap
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from stoker.lint import LintConfig, LintOptions, LintReport, Profile, lint
from stoker.lint.inputs import ZIP_SEPARATOR
from stoker.lint.registry import RuleRegistry
from stoker.template.loader import LoadLimits

Files = Mapping[str, str | bytes]


def write(root: Path, files: Files) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(textwrap.dedent(content), encoding="utf-8")


def make_zip_file(path: Path, files: Files) -> Path:
    path.write_bytes(zip_bytes(files))
    return path


def zip_bytes(files: Files) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in files.items():
            data = content if isinstance(content, bytes) else textwrap.dedent(content)
            archive.writestr(name, data)
    return buffer.getvalue()


def run(
    root: Path,
    files: Files,
    *,
    profiles: Sequence[str] = ("default",),
    explicit: bool = False,
    ignore: Sequence[str] = (),
    max_bytes: int | None = None,
    registry: RuleRegistry | None = None,
    config: LintConfig | None = None,
) -> LintReport:
    """Write ``files`` under ``root``/pkg and lint the directory (or each file, explicit)."""
    package = root / "pkg"
    package.mkdir(exist_ok=True)
    write(package, files)
    paths = [str(package / name) for name in files] if explicit else [str(package)]
    config = config or LintConfig(
        profiles=tuple(Profile(p) for p in profiles), ignore=tuple(ignore), base_dir=str(root)
    )
    limits = LoadLimits(max_bytes=max_bytes) if max_bytes else LoadLimits()
    return lint(paths, LintOptions(config=config, limits=limits), registry)


def relative(file: str) -> str:
    """A finding's file as the test wrote it (inside pkg/, or inside a zip)."""
    if ZIP_SEPARATOR in file:
        return file.split(ZIP_SEPARATOR, 1)[1]
    parts = file.replace(os.sep, "/").split("/pkg/", 1)
    return parts[1] if len(parts) == 2 else os.path.basename(file)


def where(report: LintReport, rule_id: str) -> list[tuple[str, int, int]]:
    """Where ``rule_id`` was found: (file, line, column), in report order."""
    return [
        (relative(f.span.file), f.span.line, f.span.column)
        for f in report.findings
        if f.code == rule_id and f.span is not None
    ]


def ids(report: LintReport) -> set[str]:
    return {finding.code for finding in report.findings}
