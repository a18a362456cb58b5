"""The report as one JSON document (findings, files read, counts)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from stoker.diagnostics import Diagnostic, render_path
from stoker.lint.report import LintReport
from stoker.lint.rule import Rule

FORMAT_VERSION = 1


def finding_data(finding: Diagnostic) -> dict[str, Any]:
    span = finding.span
    return {
        "rule": finding.code,
        "severity": finding.severity.value,
        "message": finding.message,
        "file": span.file if span else None,
        "line": span.line if span else None,
        "column": span.column if span else None,
        "path": render_path(finding.path),
        "notes": list(finding.notes),
    }


def render_json(report: LintReport, rules: Sequence[Rule]) -> str:
    data = {
        "format": FORMAT_VERSION,
        "summary": {
            "by_severity": {s.value: n for s, n in report.by_severity().items()},
            "by_rule": dict(sorted(report.counts().items())),
            "suppressed": report.suppressed,
            "files": len(report.files),
        },
        "findings": [finding_data(finding) for finding in report.findings],
        "files": [
            {"name": f.name, "kind": f.kind, **({"note": f.note} if f.note else {})}
            for f in report.files
        ],
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
