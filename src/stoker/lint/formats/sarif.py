"""SARIF 2.1.0, for code-scanning upload: one run, stoker's rules, one result per finding.

Required structure kept: ``version``, ``$schema``, ``runs[].tool.driver.{name, rules[]}``
and ``results[]`` with ``ruleId``, ``level``, ``message.text`` and
``locations[].physicalLocation.{artifactLocation.uri, region.{startLine, startColumn}}``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from stoker import __version__
from stoker.diagnostics import Diagnostic, Severity, render_path
from stoker.lint.report import LintReport
from stoker.lint.rule import Rule

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def artifact_uri(file: str) -> str:
    """A relative path stays relative (posix, percent-encoded); an absolute one is file://."""
    uri = quote(file.replace(os.sep, "/"), safe="/!:@")
    return "file://" + uri if os.path.isabs(file) else uri


def _rule_data(rule: Rule) -> dict[str, Any]:
    return {
        "id": rule.id,
        "name": type(rule).__name__,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.explanation},
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
        "properties": {
            "source": str(rule.source),
            "profiles": sorted(p.value for p in rule.profiles),
        },
    }


def _result(finding: Diagnostic, index: dict[str, int]) -> dict[str, Any]:
    span = finding.span
    result: dict[str, Any] = {
        "ruleId": finding.code,
        "level": LEVELS[finding.severity],
        "message": {"text": finding.message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": artifact_uri(span.file if span else "")},
                    "region": {
                        "startLine": span.line if span else 1,
                        "startColumn": span.column if span else 1,
                    },
                }
            }
        ],
    }
    if finding.code in index:
        result["ruleIndex"] = index[finding.code]
    if finding.path:
        result["properties"] = {"path": render_path(finding.path)}
    return result


def render_sarif(report: LintReport, rules: Sequence[Rule]) -> str:
    index = {rule.id: position for position, rule in enumerate(rules)}
    document = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "stoker-lint",
                        "version": __version__,
                        "rules": [_rule_data(rule) for rule in rules],
                    }
                },
                "results": [_result(finding, index) for finding in report.findings],
                "columnKind": "unicodeCodePoints",
            }
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
