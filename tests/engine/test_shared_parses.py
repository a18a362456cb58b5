"""What a create reads and parses once and shares: the provider templates its load read
from disk (`StackEngine.share_reads`) and a child template's parse (`ChildTemplates`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from stoker.definition import TemplateReads
from stoker.definition.loading import LoadOptions, load_definition
from stoker.engine.child_templates import KEPT, ChildTemplates
from stoker.engine.settings import EngineSettings
from stoker.engine.stacks import StackEngine
from stoker.limits import Limits, applied
from stoker.resources import ChildSpec
from stoker.resources.registry import default_registry
from stoker.template.loader import LoadLimits, load_document
from stoker.template.nodes import plain

TOP = """heat_template_version: 2018-08-31
resources:
  p: {type: provider.yaml}
"""
PROVIDER = """heat_template_version: 2018-08-31
resources:
  v: {type: OS::Heat::Value, properties: {value: 1}}
"""


@pytest.fixture
def engine(store):
    return StackEngine(store, default_registry(), EngineSettings())


def _load(tmp_path: Path, reads: TemplateReads):
    (tmp_path / "top.yaml").write_text(TOP)
    (tmp_path / "provider.yaml").write_text(PROVIDER)
    result = load_definition(str(tmp_path / "top.yaml"), options=LoadOptions(reads=reads))
    assert result.ok and result.definition is not None
    return result.definition


def test_provider_documents_of_the_load_are_the_engines(engine, tmp_path):
    reads = TemplateReads()
    definition = _load(tmp_path, reads)
    engine.share_reads(reads, LoadLimits())
    assert not [d for d in engine.check(definition, str(tmp_path)) if d.is_error]
    path = os.path.join(str(tmp_path), "provider.yaml")
    assert engine.provider_cache(definition).templates.read(path) is reads.documents[path]


def test_documents_read_under_other_limits_are_read_again(engine, tmp_path):
    reads = TemplateReads()
    definition = _load(tmp_path, reads)
    engine.share_reads(reads, LoadLimits(max_depth=7))
    path = os.path.join(str(tmp_path), "provider.yaml")
    read = engine.provider_cache(definition).templates.read(path)
    assert read is not reads.documents[path]
    assert read == reads.documents[path]


def test_a_child_template_is_parsed_once_per_data_and_location():
    templates = ChildTemplates()
    data = {"heat_template_version": "2018-08-31", "resources": {}}
    first = templates.parse(ChildSpec(data, location="a.yaml"))
    assert templates.parse(ChildSpec(data, {"x": 1}, "a.yaml")) is first
    elsewhere = templates.parse(ChildSpec(data, location="b.yaml"))
    assert elsewhere is not first and elsewhere.file == "b.yaml"
    copy = templates.parse(ChildSpec(dict(data), location="a.yaml"))
    assert copy is not first and copy == first


def test_the_oldest_child_template_goes_first():
    templates = ChildTemplates()
    kept = [{"heat_template_version": "2018-08-31"} for _ in range(KEPT + 1)]
    first = templates.parse(ChildSpec(kept[0], location="t.yaml"))
    for data in kept[1:]:
        templates.parse(ChildSpec(data, location="t.yaml"))
    assert templates.parse(ChildSpec(kept[0], location="t.yaml")) is not first


GETS = """heat_template_version: 2018-08-31
resources:
  v:
    type: OS::Heat::Value
    properties: {value: {get_file: script.sh}}
"""


def _gets(directory: Path, content: str) -> ChildSpec:
    directory.mkdir(exist_ok=True)
    (directory / "script.sh").write_text(content)
    return ChildSpec(plain(load_document(GETS, "gets.yaml").data), location="gets.yaml")


def test_a_child_templates_files_are_read_once_per_directory(tmp_path):
    templates = ChildTemplates()
    spec = _gets(tmp_path / "a", "from a")
    _gets(tmp_path / "b", "from b")
    first = templates.files(spec, str(tmp_path / "a"), None)
    assert first == {"script.sh": "from a"}
    assert templates.files(spec, str(tmp_path / "a"), None) is first
    assert (
        templates.files(ChildSpec(spec.template, {"x": 1}, "gets.yaml"), str(tmp_path / "a"), None)
        is first
    )
    # the key's other parts: the directory, the --restrict-files root, the value size
    assert templates.files(spec, str(tmp_path / "b"), None) == {"script.sh": "from b"}
    assert templates.files(spec, str(tmp_path / "a"), str(tmp_path / "b")) == {}
    with applied(Limits(value_size=3)):
        assert templates.files(spec, str(tmp_path / "a"), None) == {}
    # another template (a copy of the data) reads the disk as it is now
    (tmp_path / "a" / "script.sh").write_text("changed")
    copy = ChildSpec(dict(spec.template), location="gets.yaml")
    assert templates.files(copy, str(tmp_path / "a"), None) == {"script.sh": "changed"}
