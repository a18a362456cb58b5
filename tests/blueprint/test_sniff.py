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
