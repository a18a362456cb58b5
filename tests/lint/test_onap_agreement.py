"""Agreement with ONAP's validation on the pass/fail packages of tests/fixtures/onap_agreement.

Each package is laid out as ONAP's validation suite lays out its self-test fixtures
(``<requirement>/pass/<case>/`` and ``<requirement>/fail/<case>/``), written from facts
about how ONAP decides the requirement (which files it reads, what it skips). The lint runs
in process here; benchmarks/onap_agreement.py runs the same packages through real
``stoker lint --profile onap`` processes and prints the agreement per requirement.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from stoker.lint import LintConfig, LintOptions, Profile, lint

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
from onap_agreement import DEFAULT_CASES, cases  # noqa: E402

CASES = list(cases(DEFAULT_CASES))


def test_every_requirement_has_a_pass_and_a_fail_package():
    verdicts: dict[str, set[str]] = {}
    for case in CASES:
        verdicts.setdefault(case.requirement, set()).add(case.verdict)
    assert len(verdicts) >= 20
    assert all(found == {"pass", "fail"} for found in verdicts.values()), verdicts


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_stoker_agrees_with_onap(case):
    config = LintConfig(profiles=(Profile.ONAP,), base_dir=str(case.path))
    report = lint([str(case.path)], LintOptions(config=config))
    flagged = [f for f in report.findings if f.code == case.requirement]
    if case.verdict == "fail":
        assert flagged, f"ONAP rejects {case.name}; stoker does not report {case.requirement}"
    else:
        assert not flagged, [f"{f.span}: {f.message}" for f in flagged]
