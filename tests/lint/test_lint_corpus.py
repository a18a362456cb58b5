"""The whole corpus (``tests/corpus/data``): every file processed, no internal error, and
the counts by rule id that docs/lint-corpus.md records (the generated docs pages stay true
too)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stoker.lint import lint
from stoker.lint.docs import CORPUS_COMMAND, render_corpus, render_onap, render_rules
from stoker.lint.inputs import is_lintable

pytestmark = pytest.mark.heavy

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus" / "data"
DOCS = ROOT / "docs"
REGENERATE = "regenerate with: .venv/bin/python -m stoker.lint.docs --corpus tests/corpus/data"


@pytest.fixture(scope="module")
def report():
    return lint([str(CORPUS)])


def test_every_file_is_processed_without_internal_errors(report):
    expected = {
        str(path)
        for path in CORPUS.rglob("*")
        if path.is_file() and is_lintable(path.name) and not path.name.startswith(".")
    }
    assert {f.name for f in report.files} == expected
    assert [f.render() for f in report.findings if f.code == "E0100"] == []
    index = json.loads((CORPUS / "index.json").read_text())
    templates = {str(CORPUS / r["path"]) for r in index if r["kind"] in ("hot", "cfn")}
    linted = {f.name for f in report.files if f.kind in ("template", "unreadable")}
    assert templates <= linted


def test_the_corpus_counts_match_the_doc(report):
    assert (DOCS / "lint-corpus.md").read_text() == render_corpus(report, CORPUS_COMMAND), (
        REGENERATE
    )


def test_the_rules_and_onap_pages_are_current():
    assert (DOCS / "rules.md").read_text() == render_rules(), REGENERATE
    assert (DOCS / "onap.md").read_text() == render_onap(), REGENERATE
