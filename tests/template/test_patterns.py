"""`stoker.patterns.LazyPattern` answers as the compiled pattern does, compiling once."""

from __future__ import annotations

import re

import pytest

from stoker.patterns import LazyPattern


def test_a_lazy_pattern_compiles_at_its_first_use_and_answers_as_re_does() -> None:
    source = r"^(?P<vm>.+?)_(?P<index>\d+)$"
    lazy, compiled = LazyPattern(source, re.IGNORECASE), re.compile(source, re.IGNORECASE)
    assert "match" not in vars(lazy)  # nothing compiled at definition
    for text in ("db_0", "DB_12", "db", "_1", "a_b_3"):
        got, want = lazy.match(text), compiled.match(text)
        assert (got and got.groupdict()) == (want and want.groupdict())
        assert bool(lazy.fullmatch(text)) == bool(compiled.fullmatch(text))
        assert bool(lazy.search(text)) == bool(compiled.search(text))
    assert vars(lazy)["match"].__self__ is vars(lazy)["search"].__self__  # one compile
    assert LazyPattern(r"\d").sub("#", "a1b22") == "a#b##"
    assert LazyPattern(r",\s*").split("a, b,c") == ["a", "b", "c"]
    assert lazy.pattern == source


def test_a_bad_pattern_fails_when_used_and_other_names_are_errors() -> None:
    with pytest.raises(re.error):
        LazyPattern("(").match("x")
    with pytest.raises(AttributeError):
        _ = LazyPattern("x").groups
