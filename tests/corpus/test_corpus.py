"""Every template of the shared corpus loads and validates, except a listed few.

Each exception says why it fails; an exception that starts passing fails the test too, so
the list stays true.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stoker.definition.loading import load_definition

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"

# path (relative to the corpus) -> why it is expected to be rejected
KNOWN_INVALID: dict[str, str] = {}


def corpus_templates() -> list[tuple[str, list[str]]]:
    if not (CORPUS / "index.json").exists():
        return []
    records = json.loads((CORPUS / "index.json").read_text())
    found = []
    for record in records:
        if record["kind"] not in ("hot", "cfn"):
            continue
        path = CORPUS / record["path"]
        env = path.with_name(path.stem + "_env.yaml")
        found.append((record["path"], [str(env)] if env.exists() else []))
    return found


TEMPLATES = corpus_templates()


def test_corpus_is_present():
    assert len(TEMPLATES) > 150, "the shared corpus was not found beside the checkout"


@pytest.mark.parametrize(("path", "environments"), TEMPLATES, ids=[t[0] for t in TEMPLATES])
def test_corpus_template_validates(path, environments):
    result = load_definition(str(CORPUS / path), environments)
    errors = [d.render() for d in result.diagnostics if d.is_error]
    if path in KNOWN_INVALID:
        assert errors, f"listed as invalid ({KNOWN_INVALID[path]}) but validates now"
    else:
        assert errors == []
