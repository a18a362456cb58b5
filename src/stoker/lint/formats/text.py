"""``file:line:column: ID severity: message``, one finding per line."""

from __future__ import annotations

from collections.abc import Sequence

from stoker.diagnostics import Diagnostic
from stoker.lint.report import LintReport
from stoker.lint.rule import Rule


def finding_line(finding: Diagnostic) -> str:
    span = finding.span
    where = f"{span.file}:{span.line}:{span.column}" if span else "?:1:1"
    message = " ".join(finding.message.split("\n"))
    return f"{where}: {finding.code} {finding.severity.value}: {message}"


def render_text(report: LintReport, rules: Sequence[Rule]) -> str:
    return "".join(finding_line(finding) + "\n" for finding in report.findings)
