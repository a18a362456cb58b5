"""A JSON file over 4 MiB is read in two steps: its first 16 MiB, where the limits may
already stop it (without holding the whole text beside its nodes), then the whole file.
The answer must be the one a single read gives."""

from __future__ import annotations

import json

import pytest

from stoker.errors import TemplateError
from stoker.template.json_reader import JSON_PROBE_BYTES
from stoker.template.loader import STREAM_FROM_BYTES, LoadLimits, load_document, read_file

BIG = 64 * 1024 * 1024


def _template(resources: int, padding: int) -> str:
    body = {f"r{i}": {"type": "OS::Heat::None"} for i in range(resources)}
    text = json.dumps({"heat_template_version": "2018-08-31", "resources": body})
    return "{" + " " * padding + text[1:]  # whitespace makes the file large, not the tree


def _outcome(read):
    try:
        return read().data
    except TemplateError as error:
        return [d.render() for d in error.diagnostics]


@pytest.mark.parametrize(
    ("resources", "padding", "max_nodes"),
    [
        (10, STREAM_FROM_BYTES, 1000),  # large, within the limits: loads
        (2000, STREAM_FROM_BYTES, 1000),  # the node limit trips inside the first read
        (2000, JSON_PROBE_BYTES, 1000),  # ... only beyond it: the whole file is read
        (10, JSON_PROBE_BYTES, 1000),  # the first read ends mid-document: no answer yet
    ],
)
def test_a_large_json_file_gets_the_answer_of_one_read(tmp_path, resources, padding, max_nodes):
    path = tmp_path / "big.json"
    text = _template(resources, padding)
    path.write_text(text)
    limits = LoadLimits(max_bytes=BIG, max_nodes=max_nodes)
    assert _outcome(lambda: read_file(str(path), limits)) == _outcome(
        lambda: load_document(text, str(path), limits)
    )


def test_the_first_read_reports_the_node_limit_at_its_place(tmp_path):
    path = tmp_path / "big.json"
    path.write_text(_template(2000, STREAM_FROM_BYTES))
    with pytest.raises(TemplateError) as caught:
        read_file(str(path), LoadLimits(max_bytes=BIG, max_nodes=1000))
    (finding,) = caught.value.diagnostics
    assert "more than 1,000 nodes" in finding.message
    assert finding.span is not None and finding.span.column > STREAM_FROM_BYTES
