"""The cheap test `stack create` and `template validate` make before importing the
blueprint compiler: a word found anywhere in the file, read a chunk at a time."""

from __future__ import annotations

import pytest

from stoker.cli.blueprint import _mentions


@pytest.mark.parametrize("at", [0, (1 << 20) - 5, (1 << 20) - 10, 1 << 20, (3 << 20) - 10])
def test_a_word_is_found_wherever_it_lies_even_across_chunks(tmp_path, at: int) -> None:
    path = tmp_path / "t.yaml"
    path.write_bytes(b"x" * at + b"components" + b"y" * 100)
    assert _mentions(str(path), b"components")


def test_a_file_without_the_word_or_with_only_part_of_it_is_not_one(tmp_path) -> None:
    path = tmp_path / "t.yaml"
    path.write_bytes(b"x" * ((1 << 20) - 5) + b"compo" + b"nent" + b"s" * 0 + b"z" * 10)
    assert not _mentions(str(path), b"components")
    empty = tmp_path / "e.yaml"
    empty.write_bytes(b"")
    assert not _mentions(str(empty), b"components")


def test_a_template_that_mentions_the_word_is_read_once_for_the_test_and_the_load(
    tmp_path, monkeypatch
) -> None:
    """TripleO's overcloud.yaml says ``components`` in a description: the test parses it
    as the load will (`TemplateReads.top`), and the load takes that parse."""
    import stoker.template.loader as loader
    from stoker.cli.blueprint import looks_like_blueprint
    from stoker.definition import LoadOptions, TemplateReads, load_definition
    from stoker.limits import active_limits

    path = tmp_path / "t.yaml"
    path.write_text(
        "heat_template_version: 2016-10-14\n"
        "description: the components of a cloud\n"
        "resources:\n  r: {type: OS::Heat::None}\n"
    )
    reads = TemplateReads()
    assert not looks_like_blueprint(str(path), reads)
    assert len(reads.tops) == 1
    read = loader.read_file
    calls = []

    def counted(*args, **kwargs):
        calls.append(args[0])
        return read(*args, **kwargs)

    monkeypatch.setattr("stoker.definition.declared.read_file", counted)
    monkeypatch.setattr("stoker.definition.loading.read_file", counted)
    options = LoadOptions(limits=loader.LoadLimits.of(active_limits()), reads=reads)
    result = load_definition(str(path), options=options)
    assert result.ok and result.definition is not None
    assert list(result.definition.template.resources) == ["r"]
    assert calls == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("components:\n  web: {type: Web}\n", True),
        ("heat_template_version: 2016-10-14\ncomponents: {}\n", False),
        ("components: [\n", False),  # does not load: the blueprint reader decides, as before
    ],
)
def test_the_shared_read_leaves_the_answer_as_it_was(tmp_path, text: str, expected: bool) -> None:
    from stoker.cli.blueprint import looks_like_blueprint
    from stoker.definition import TemplateReads

    path = tmp_path / "b.yaml"
    path.write_text(text)
    assert looks_like_blueprint(str(path)) is expected
    assert looks_like_blueprint(str(path), TemplateReads()) is expected
