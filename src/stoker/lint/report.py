"""The result of a lint run: findings, the files read, the rules that ran, the exit code."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import NamedTuple

from stoker.diagnostics import Diagnostic, Severity
from stoker.lint.rule import Rule, at_or_above


class LintedFile(NamedTuple):
    name: str
    kind: str  # template | environment | unreadable | skipped
    note: str = ""


@dataclass(slots=True)
class LintReport:
    """What a run found."""

    findings: list[Diagnostic] = field(default_factory=list)
    files: list[LintedFile] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)  # the rules that ran
    #: findings silenced by per-path ignores or inline comments
    suppressed: int = 0
    fail_level: Severity = Severity.ERROR  # findings at or above it fail the run

    def counts(self) -> Counter[str]:
        """Findings per rule id."""
        return Counter(finding.code for finding in self.findings)

    def by_severity(self) -> dict[Severity, int]:
        counted = Counter(finding.severity for finding in self.findings)
        return {severity: counted.get(severity, 0) for severity in Severity}

    @property
    def failed(self) -> bool:
        return any(at_or_above(finding.severity, self.fail_level) for finding in self.findings)

    @property
    def exit_code(self) -> int:
        """0 when nothing is at or above the fail level, else 1 (2 is for usage errors)."""
        return 1 if self.failed else 0

    def summary(self) -> str:
        counted = self.by_severity()
        linted = sum(1 for f in self.files if f.kind != "skipped")
        parts = [f"{counted[s]} {s.value}{'s' if counted[s] != 1 else ''}" for s in Severity]
        suppressed = f", {self.suppressed} suppressed" if self.suppressed else ""
        return f"{', '.join(parts)}{suppressed} in {linted} file{'s' if linted != 1 else ''}"


def combine(reports: list[LintReport]) -> LintReport:
    """One report of several runs (paths linted under different config files): every
    finding and file, each rule once; the fail level shown is the first run's."""
    if len(reports) == 1:
        return reports[0]
    rules = {rule.id: rule for report in reports for rule in report.rules}
    findings = [finding for report in reports for finding in report.findings]
    return LintReport(
        findings=findings,
        files=[file for report in reports for file in report.files],
        rules=list(rules.values()),
        suppressed=sum(report.suppressed for report in reports),
        fail_level=reports[0].fail_level if reports else Severity.ERROR,
    )
