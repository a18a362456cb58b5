"""JUnit XML for CI dashboards: one test case per rule that ran, failing when the rule
found something at or above the fail level (the other findings go to system-out)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from xml.etree import ElementTree

from stoker.diagnostics import Diagnostic
from stoker.lint.formats.text import finding_line
from stoker.lint.report import LintReport
from stoker.lint.rule import Rule, at_or_above


def render_junit(report: LintReport, rules: Sequence[Rule]) -> str:
    by_rule: dict[str, list[Diagnostic]] = defaultdict(list)
    for finding in report.findings:
        by_rule[finding.code].append(finding)
    suites = ElementTree.Element("testsuites", name="stoker lint")
    suite = ElementTree.SubElement(suites, "testsuite", name="stoker lint")
    failures = 0
    for rule in rules:
        case = ElementTree.SubElement(
            suite, "testcase", classname="stoker.lint", name=f"{rule.id} {rule.summary}"
        )
        found = by_rule.get(rule.id, [])
        failing = [f for f in found if at_or_above(f.severity, report.fail_level)]
        text = "".join(finding_line(f) + "\n" for f in found)
        if failing:
            failures += 1
            failure = ElementTree.SubElement(
                case,
                "failure",
                message=f"{len(failing)} finding{'s' if len(failing) != 1 else ''}",
                type=rule.severity.value,
            )
            failure.text = text
        elif found:
            ElementTree.SubElement(case, "system-out").text = text
    for element in (suites, suite):
        element.set("tests", str(len(rules)))
        element.set("failures", str(failures))
        element.set("errors", "0")
    ElementTree.indent(suites)
    return ElementTree.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"
