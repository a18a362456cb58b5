"""Report formats: the text line, JSON, SARIF 2.1.0's required structure, JUnit XML."""

from __future__ import annotations

import json
import re
from xml.etree import ElementTree

import pytest

from stoker.lint.formats import render_json, render_junit, render_sarif, render_text

from .cases import OK
from .helpers import run

BROKEN = OK.replace("{get_param: name}", "fixed").replace("[value, value]", "[value, valu]")


@pytest.fixture
def report(tmp_path):
    return run(tmp_path, {"t.yaml": BROKEN})  # W2001 at 4:3, E1037 at 14:31


def test_text_is_one_line_per_finding(report):
    lines = render_text(report, report.rules).splitlines()
    assert len(lines) == 2
    for line in lines:
        assert re.fullmatch(r".+/t\.yaml:\d+:\d+: [EWI]\d{4} (error|warning|info): .+", line)
    assert lines[0].endswith(
        't.yaml:4:3: W2001 warning: parameter "name" is declared but never used'
    )


def test_json_has_findings_files_and_counts(report):
    data = json.loads(render_json(report, report.rules))
    assert [(f["rule"], f["line"], f["column"]) for f in data["findings"]] == [
        ("W2001", 4, 3),
        ("E1037", 14, 31),
    ]
    assert data["findings"][1]["path"] == "outputs.out.value.get_attr"
    assert data["summary"]["by_severity"] == {"error": 1, "warning": 1, "info": 0}
    assert data["summary"]["by_rule"] == {"E1037": 1, "W2001": 1}
    assert [f["kind"] for f in data["files"]] == ["template"]


def test_sarif_has_the_required_structure(report):
    document = json.loads(render_sarif(report, report.rules))
    assert document["version"] == "2.1.0"
    assert document["$schema"].endswith("sarif-2.1.0.json")
    (run_,) = document["runs"]
    driver = run_["tool"]["driver"]
    assert driver["name"] == "stoker-lint"
    rule_ids = [rule["id"] for rule in driver["rules"]]
    assert len(rule_ids) == len(set(rule_ids)) and "W2001" in rule_ids
    results = run_["results"]
    assert [r["level"] for r in results] == ["warning", "error"]
    for result in results:
        assert result["ruleId"] in rule_ids
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["message"]["text"]
        (location,) = result["locations"]
        physical = location["physicalLocation"]
        assert physical["artifactLocation"]["uri"].endswith("t.yaml")
        assert set(physical["region"]) >= {"startLine", "startColumn"}
    assert results[1]["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 14,
        "startColumn": 31,
    }


def test_junit_fails_the_rules_that_found_errors(report):
    root = ElementTree.fromstring(render_junit(report, report.rules))
    suite = root.find("testsuite")
    cases = {case.get("name").split()[0]: case for case in suite.findall("testcase")}
    assert len(cases) == len(report.rules) == int(suite.get("tests"))
    assert cases["E1037"].find("failure") is not None
    assert cases["W2001"].find("failure") is None  # below the fail level: reported, passing
    assert "t.yaml:4:3" in cases["W2001"].find("system-out").text
    assert suite.get("failures") == "1"
