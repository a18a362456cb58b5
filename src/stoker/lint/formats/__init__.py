"""Report formats: text (one line per finding), json, SARIF 2.1.0, JUnit XML.

Each is a function ``(report, rules) -> str``; ``rules`` documents every id the report
mentions (SARIF's rule table, JUnit's test cases).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from stoker.lint.formats.json import render_json
from stoker.lint.formats.junit import render_junit
from stoker.lint.formats.sarif import render_sarif
from stoker.lint.formats.text import render_text
from stoker.lint.report import LintReport
from stoker.lint.rule import Rule

Formatter = Callable[[LintReport, Sequence[Rule]], str]

FORMATTERS: dict[str, Formatter] = {
    "text": render_text,
    "json": render_json,
    "sarif": render_sarif,
    "junit": render_junit,
}

__all__ = ["FORMATTERS", "Formatter", "render_json", "render_junit", "render_sarif", "render_text"]
