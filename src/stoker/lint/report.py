"""The result of a lint run: findings, the files read, the rules that ran, the exit code."""

from __future__ import annotations

from collections import Counter
from typing import Any, NamedTuple

from stoker.diagnostics import Diagnostic, Severity
from stoker.lint.rule import Rule, at_or_above


class LintedFile(NamedTuple):
    name: str
    kind: str  # template | environment | unreadable | skipped
    note: str = ""


class LintReport:
    """What a run found. A plain slotted class with the dataclass's methods written out:
    creating a dataclass compiles its generated methods at import, which every lint pays."""

    __slots__ = ("findings", "files", "rules", "suppressed", "fail_level")
    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value

    def __init__(
        self,
        findings: list[Diagnostic] | None = None,
        files: list[LintedFile] | None = None,
        rules: list[Rule] | None = None,
        suppressed: int = 0,
        fail_level: Severity = Severity.ERROR,
    ) -> None:
        self.findings: list[Diagnostic] = [] if findings is None else findings
        self.files: list[LintedFile] = [] if files is None else files
        self.rules: list[Rule] = [] if rules is None else rules  # the rules that ran
        #: findings silenced by per-path ignores or inline comments
        self.suppressed = suppressed
        self.fail_level = fail_level  # findings at or above it fail the run

    def _fields(self) -> tuple[Any, ...]:
        return (self.findings, self.files, self.rules, self.suppressed, self.fail_level)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, LintReport)
        return self._fields() == other._fields()

    def __repr__(self) -> str:
        return (
            f"LintReport(findings={self.findings!r}, files={self.files!r}, "
            f"rules={self.rules!r}, suppressed={self.suppressed!r}, "
            f"fail_level={self.fail_level!r})"
        )

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
