"""`stoker.cli.codecache`: a dataclass or named tuple made through the cache has the
methods it would have had without it, and the cache survives only as what it was."""

from __future__ import annotations

import builtins
import collections
import dataclasses
import importlib.util
import marshal
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from stoker.cli import codecache

SOURCE = """
from dataclasses import dataclass, field

@dataclass(frozen=True, slots=True)
class Point:
    x: int
    y: int = 0
    tags: tuple[str, ...] = field(default_factory=tuple)
"""


def make(monkeypatch: pytest.MonkeyPatch, run: Any) -> type:
    monkeypatch.setattr(dataclasses, "exec", run, raising=False)
    namespace: dict[str, Any] = {"__name__": "made"}
    exec(compile(SOURCE, "<test>", "exec", dont_inherit=True), namespace)
    point: type = namespace["Point"]
    return point


@pytest.fixture
def empty_cache(monkeypatch: pytest.MonkeyPatch) -> dict[tuple[str, str], Any]:
    codes: dict[tuple[str, str], Any] = {}
    monkeypatch.setattr(codecache, "_codes", codes)
    monkeypatch.setattr(codecache, "_new", False)
    return codes


def test_the_methods_are_those_dataclasses_compiles(
    monkeypatch: pytest.MonkeyPatch, empty_cache: dict[tuple[str, str], Any]
) -> None:
    plain = make(monkeypatch, builtins.exec)
    first = make(monkeypatch, codecache._exec)  # compiled, and kept
    assert empty_cache and codecache._new
    kept = dict(empty_cache)
    second = make(monkeypatch, codecache._exec)  # from the cache
    assert empty_cache == kept
    for name in ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__"):
        expected = getattr(plain, name).__code__
        for made in (first, second):
            code = getattr(made, name).__code__
            assert code.co_code == expected.co_code, name
            assert code.co_consts == expected.co_consts, name
            assert code.co_flags == expected.co_flags, name  # no __future__ flags added
    assert repr(second(1, tags=("a",))) == "Point(x=1, y=0, tags=('a',))"
    assert second(1) == second(1) and hash(second(1, 2)) == hash(second(1, 2))
    with pytest.raises(dataclasses.FrozenInstanceError):
        second(1).x = 2  # type: ignore[misc]


def test_named_tuples_too(
    monkeypatch: pytest.MonkeyPatch, empty_cache: dict[tuple[str, str], Any]
) -> None:
    monkeypatch.setattr(collections, "eval", codecache._eval, raising=False)
    pair = collections.namedtuple("pair", "left right")
    again = collections.namedtuple("pair", "left right")
    assert ("eval", next(iter(empty_cache))[1]) in empty_cache
    assert pair(1, 2) == again(1, 2) == (1, 2) and again(1, 2).right == 2


def test_written_then_read_and_anything_else_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, empty_cache: dict[tuple[str, str], Any]
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    make(monkeypatch, codecache._exec)
    kept = dict(empty_cache)
    path = tmp_path / "__pycache__" / "cache.marshal"
    codecache._write(str(path))
    assert path.exists() and not list(path.parent.glob("*.marshal.*"))  # no temporary left

    empty_cache.clear()
    codecache._read(str(path))
    assert empty_cache.keys() == kept.keys()

    for content in (b"not marshal", marshal.dumps(("2.7.18", kept)), marshal.dumps([1, 2])):
        empty_cache.clear()
        path.write_bytes(content)
        codecache._read(str(path))
        assert not empty_cache
    codecache._read(str(tmp_path / "missing"))
    assert not empty_cache


def test_nothing_written_when_bytecode_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, empty_cache: dict[tuple[str, str], Any]
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    make(monkeypatch, codecache._exec)
    path = tmp_path / "cache.marshal"
    codecache._write(str(path))
    assert not path.exists()


def test_the_cache_stops_growing(
    monkeypatch: pytest.MonkeyPatch, empty_cache: dict[tuple[str, str], Any]
) -> None:
    monkeypatch.setattr(codecache, "MAX_ENTRIES", 3)
    for number in range(10):
        scope: dict[str, Any] = {}
        codecache._exec(f"value = {number}", scope)
        assert scope["value"] == number  # compiled all the same
    assert len(empty_cache) == 3


def test_dataclasses_is_given_the_cache_only_when_imported() -> None:
    """A plain lint imports neither `dataclasses` nor `inspect`: the cache must not import
    them either, yet a later import gets the caching ``exec``."""
    import subprocess

    script = (
        "import sys, stoker.cli\n"
        "assert 'dataclasses' not in sys.modules and 'inspect' not in sys.modules\n"
        "import dataclasses\n"
        "from stoker.cli import codecache\n"
        "assert dataclasses.exec is codecache._exec\n"
        "@dataclasses.dataclass(frozen=True)\n"
        "class P:\n"
        "    x: int\n"
        "assert P(1) == P(1) and repr(P(2)) == 'P(x=2)'\n"
        "assert any('class P' not in s and '__init__' in s for _, s in codecache._codes)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


# ------------------------------------------------------------------ regular expressions
PATTERNS: list[tuple[str | bytes, int]] = [
    (r"^(?P<year>[0-9]{4})-(?P<month>[0-9][0-9]?)(?:T(?P<hour>\d+))?$", 0),
    (r"(a|b)*?c\1", re.IGNORECASE),
    ("[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]", 0),
    (r"\n  # a comment\n  (?P<word>\w+) \s* = \s* (?P<value>.*)", re.VERBOSE | re.MULTILINE),
    (rb"^[ \t\f]*(?:[#\r\n]|$)", 0),
    (r"(?i:straße)|[ǅ-ǆ]", re.UNICODE),
    (r"(?<=x)y(?!z)|(?s:.)", re.ASCII),
]


@pytest.fixture
def no_patterns(monkeypatch: pytest.MonkeyPatch) -> dict[tuple[Any, int], Any]:
    patterns: dict[tuple[Any, int], Any] = {}
    monkeypatch.setattr(codecache, "_patterns", patterns)
    monkeypatch.setattr(codecache, "_new", False)
    return patterns


def imported(directory: Path, *patterns: tuple[str | bytes, int]) -> list[re.Pattern[Any]]:
    """``patterns`` compiled by a module's own code as it is imported (through the cache's
    compiler: `re.compile` would answer from `re`'s cache of this process)."""
    source = (
        "import re\nfrom stoker.cli.codecache import _compile_pattern\n"
        f"MADE = [_compile_pattern(p, f) for p, f in {patterns!r}]\n"
    )
    path = directory / f"made_{len(list(directory.glob('made_*.py')))}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    made: list[re.Pattern[Any]] = module.MADE
    return made


@pytest.mark.parametrize(("pattern", "flags"), PATTERNS)
def test_patterns_are_those_re_compiles(
    tmp_path: Path, pattern: str | bytes, flags: int, no_patterns: dict[tuple[Any, int], Any]
) -> None:
    """Pattern equality compares the matcher's code, not only the text and flags."""
    plain = codecache._re_compile(pattern, flags)
    [first] = imported(tmp_path, (pattern, flags))
    assert list(no_patterns) == [(pattern, int(flags))] and codecache._new  # compiled, kept
    kept = dict(no_patterns)
    second = codecache._compile_pattern(pattern, flags)  # from the cache, at run time
    assert no_patterns == kept
    for made in (first, second):
        assert made == plain
        assert (made.pattern, made.flags, made.groups, made.groupindex) == (
            plain.pattern,
            plain.flags,
            plain.groups,
            plain.groupindex,
        )
    marshal.dumps(kept)  # what is kept can be written


def test_only_patterns_compiled_by_an_import_are_kept(
    no_patterns: dict[tuple[Any, int], Any],
) -> None:
    """A pattern compiled at run time may be a user's (a template's allowed_pattern)."""
    assert codecache._compile_pattern("[a-z]+@example", 0).fullmatch("me@example")
    assert not no_patterns and not codecache._new


def test_a_pattern_that_may_warn_is_never_kept(
    tmp_path: Path, no_patterns: dict[tuple[Any, int], Any]
) -> None:
    for _ in range(2):
        with pytest.warns(FutureWarning, match="nested set"):
            [made] = imported(tmp_path, ("[[a]", 0))
        assert made.match("[")
    assert not no_patterns


def test_patterns_are_written_and_read_back(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    empty_cache: dict[tuple[str, str], Any],
    no_patterns: dict[tuple[Any, int], Any],
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    imported(tmp_path, *PATTERNS)
    kept = dict(no_patterns)
    assert len(kept) == len(PATTERNS)
    path = tmp_path / "cache.marshal"
    codecache._write(str(path))
    no_patterns.clear()
    codecache._read(str(path))
    assert no_patterns == kept
    for pattern, flags in PATTERNS:
        assert codecache._compile_pattern(pattern, flags) == codecache._re_compile(pattern, flags)


def test_re_compiles_through_the_cache_once_installed() -> None:
    import subprocess

    script = (
        "import re, stoker.cli\n"
        "from stoker.cli import codecache\n"
        "assert re._compiler.compile is codecache._compile_pattern\n"
        "assert re.compile('a+b', re.I).fullmatch('AAb')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_re_keeps_its_own_compiler_if_its_steps_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache repeats `re`'s private steps; another Python's must not be trusted."""
    assert codecache._same_steps()
    real = codecache._re_compiler._code
    monkeypatch.setattr(codecache._re_compiler, "_code", lambda parsed, flags: real(parsed, 0)[1:])
    assert not codecache._same_steps()
    monkeypatch.setattr(codecache._re_compiler, "_code", None)
    assert not codecache._same_steps()
