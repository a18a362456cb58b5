"""Every rule, on files written to break it and files that keep it: exact ids and places."""

from __future__ import annotations

from dataclasses import replace

import pytest

from stoker.diagnostics import Diagnostic, Severity, Span
from stoker.lint.context import FileContext, FileKind, PackageContext
from stoker.lint.inputs import Package, PackageKind, SourceFile
from stoker.lint.providers import ProviderLoader
from stoker.lint.registry import default_registry
from stoker.lint.rules.core.base import CodeRule
from stoker.template.loader import LoadLimits

from .cases import DEFAULT_CASES, ONAP_CASES, Case
from .helpers import run, where

CASES = DEFAULT_CASES + ONAP_CASES


def _lint(tmp_path, case: Case, files):
    return run(
        tmp_path,
        files,
        profiles=case.profiles,
        explicit=case.explicit,
        max_bytes=case.max_bytes,
    )


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_rule_reports_the_offending_place(tmp_path, case):
    report = _lint(tmp_path, case, case.fail)
    assert where(report, case.rule) == case.at


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_rule_stays_quiet_on_fixed_files(tmp_path, case):
    report = _lint(tmp_path, case, case.ok)
    assert where(report, case.rule) == []


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_findings_carry_the_rule_severity(tmp_path, case):
    rule = default_registry().get(case.rule)
    report = _lint(tmp_path, case, case.fail)
    severities = {f.severity for f in report.findings if f.code == case.rule}
    if isinstance(rule, CodeRule):
        assert severities, case.rule  # validation's own severity (a few codes also warn)
    else:
        assert severities == {rule.severity}


def test_every_code_rule_hands_on_what_validation_found():
    """Every code rule passes on validation's findings under its code, unchanged."""
    package = PackageContext(Package("p", PackageKind.FILES), ProviderLoader(LoadLimits()))
    for rule in default_registry().rules():
        if not isinstance(rule, CodeRule):
            continue
        mine = Diagnostic(rule.id, "found", (), Span("t.yaml", 3, 4), Severity.WARNING)
        other = Diagnostic("X0000", "not mine", (), Span("t.yaml", 1, 1))
        ctx = FileContext(SourceFile("t.yaml", "t.yaml"), package, FileKind.UNREADABLE)
        ctx.core = [other, mine]
        if rule.id == "E0003":  # Heat accepts a duplicate key: validation warns, lint refuses
            assert list(rule.check(ctx)) == [replace(mine, severity=Severity.ERROR)]
            continue
        assert list(rule.check(ctx)) == [mine], rule.id


@pytest.mark.parametrize(
    ("files", "rule"),
    [
        (
            {
                "t.yaml": "heat_template_version: 2021-04-16\n"
                "parameters:\n  p: {type: string, description: [a]}\n"
                "outputs:\n  o: {value: {get_param: p}}\n"
            },
            "I2002",
        ),
        ({"t.yaml": "5\n"}, "W1091"),
        ({"t.yaml": "- HeatTemplateFormatVersion\n"}, "W1091"),
    ],
    ids=["I2002-list-description", "W1091-int-document", "W1091-list-document"],
)
def test_rules_do_not_crash_on_odd_shapes(tmp_path, files, rule):
    """A rule meeting data of an unexpected shape stays quiet (the core reports the
    shape); it neither fails into E0100 nor reports what the document does not say."""
    report = run(tmp_path, files, explicit=True)
    assert where(report, "E0100") == []
    assert where(report, rule) == []


HEADER_2018 = "heat_template_version: 2018-08-31\n"


def test_a_parameter_value_heat_refuses_at_create_is_an_error_saying_so(tmp_path):
    """template validate accepts it as Heat's validate does; the linter still refuses it."""
    report = run(
        tmp_path,
        {"t.yaml": HEADER_2018 + "parameters:\n  n: {type: number, default: x}\n"},
    )
    (finding,) = [f for f in report.findings if f.code == "E1021"]
    assert finding.severity is Severity.ERROR
    assert finding.message.endswith("(Heat's validate accepts the template; its create refuses it)")
