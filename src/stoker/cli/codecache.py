"""Compiled dataclass and named-tuple methods, and regular expressions, kept from one
``stoker`` process to the next.

`dataclasses` writes the source of each class's ``__init__``, ``__repr__``, ``__eq__``
(and ``__hash__``, ``__setattr__`` ...) and compiles it with ``exec`` every time the class
is defined; `collections.namedtuple` does the same for ``__new__`` with ``eval``. A
``stoker stack create`` defines ~60 such classes on its way (~280 compilations): ~17 % of
the CPU time of creating a one-resource stack, ~12 % of a ``stack list``, the largest
single cost of a short command after reading bytecode (callgrind: the parser and
compiler behind ``exec`` were 23 % of the instructions of a one-resource create).

`install` gives both modules an ``exec`` / ``eval`` that look the source up in a cache
of code objects first, and compile (exactly as they would: ``"<string>"``, no inherited
``__future__`` flags) only what is not there. Source text in, the same code out: the
methods are the ones the modules would have made, whatever class the text came from.
The cache is read from the package's ``__pycache__`` directory and, if anything new was
compiled, written back when the process exits (atomically, as the import system writes
``.pyc`` files; not at all when writing bytecode is off). A cache that is missing,
unreadable or from another Python is ignored.

Regular expressions the same way: `re` parses each pattern and generates its matcher's
code in Python every time a process compiles it (``_sre.compile`` of that code is the
only native step), and the modules a ``stack create`` imports compile ~50 (PyYAML's
Reader alone has a pattern of every character YAML refuses): ~10 ms of each command.
The cache keeps, per pattern text and flags, what `re`'s compiler hands ``_sre.compile``,
so the same pattern object is made without parsing. Only patterns compiled while a
module is being imported are kept: they are the program's own text, whereas a pattern
compiled at run time may come from a user's template (``allowed_pattern``), which has no
place in the installation and would grow the cache without end. A pattern whose parse
could warn (a possible nested set, a bad group name: `re` warns while parsing) is never
kept, so its warning is given as before.
"""

from __future__ import annotations

import atexit
import builtins
import contextlib
import importlib
import marshal
import os
import sys
from importlib.machinery import ModuleSpec, PathFinder
from types import CodeType, FrameType, ModuleType
from typing import Any

# `re`'s compiler and `_sre` (private, not in typeshed): `typing` has imported them already
_re_compiler: Any = importlib.import_module("re._compiler")
_re_parser: Any = importlib.import_module("re._parser")
_sre: Any = importlib.import_module("_sre")
_re_compile = _re_compiler.compile

#: more distinct sources than stoker has classes: the cache is not written beyond this
#: (a process that defines classes from generated text must not grow it without end)
MAX_ENTRIES = 4000

#: patterns: (text, flags) -> what `re._compiler.compile` passes ``_sre.compile`` after
#: the text (flags, code, group count, group index, index group)
MAX_PATTERNS = 1000

_codes: dict[tuple[str, str], CodeType] = {}
_patterns: dict[tuple[str | bytes, int], tuple[Any, ...]] = {}
_new = False
_installed = False


def cache_path() -> str | None:
    """Where the cache lives, None when there is nowhere (no cache tag, or a
    ``sys.pycache_prefix`` elsewhere: left alone rather than guessed)."""
    tag = sys.implementation.cache_tag
    if tag is None or sys.pycache_prefix is not None:
        return None
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return os.path.join(package, "__pycache__", f"class-methods.{tag}.marshal")


def _compiled(source: str, mode: str) -> CodeType:
    global _new
    code = _codes.get((mode, source))
    if code is None:
        code = compile(source, "<string>", mode, dont_inherit=True)
        if len(_codes) < MAX_ENTRIES:
            _codes[mode, source] = code
            _new = True
    return code


def _exec(source: Any, scope: Any = None, local: Any = None, /) -> None:
    if type(source) is str:
        source = _compiled(source, "exec")
    builtins.exec(source, scope, local)


def _eval(source: Any, scope: Any = None, local: Any = None, /) -> Any:
    if type(source) is str:
        source = _compiled(source, "eval")
    return builtins.eval(source, scope, local)


# `re` warns while parsing only inside a set ("[[", "--", "&&", "~~", "||") or about a
# group name (a non-ASCII one in a bytes pattern, or a condition such as "(?(+1)"): a
# pattern with none of these texts compiles without a warning.
_MAY_WARN = ("[[", "--", "&&", "~~", "||", "(?(")
#: the file of the import system's frames ("<frozen importlib._bootstrap>"): one is below
#: the code of every module being imported
_IMPORTING: str = importlib.import_module(
    "importlib._bootstrap"
)._call_with_frames_removed.__code__.co_filename


def _compile_pattern(pattern: Any, flags: int = 0) -> Any:
    """`re._compiler.compile`, through the cache (see the module's docstring)."""
    global _new
    kind = type(pattern)
    if kind is not str and kind is not bytes:  # already parsed (`re.Scanner`)
        return _re_compile(pattern, flags)
    key = (pattern, int(flags))
    entry = _patterns.get(key)
    if entry is None:
        if not _keepable(pattern, key[1]):
            return _re_compile(pattern, flags)
        entry = _compiled_pattern(pattern, key[1])
        if len(_patterns) < MAX_PATTERNS:
            _patterns[key] = entry
            _new = True
    final_flags, code, groups, groupindex, indexgroup = entry
    return _sre.compile(pattern, final_flags, code, groups, dict(groupindex), indexgroup)


def _compiled_pattern(pattern: str | bytes, flags: int) -> tuple[Any, ...]:
    """What `re._compiler.compile` hands ``_sre.compile`` after the pattern (its own
    steps, in plain values that `marshal` writes: the opcodes are `int` subclasses)."""
    parsed = _re_parser.parse(pattern, flags)
    code = [int(word) for word in _re_compiler._code(parsed, flags)]
    groupindex = parsed.state.groupdict
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    return (
        flags | parsed.state.flags,
        code,
        parsed.state.groups - 1,
        dict(groupindex),
        tuple(indexgroup),
    )


def _same_steps() -> bool:
    """Whether `re`'s private steps are still those `_compiled_pattern` repeats (checked on
    one pattern): another Python keeps its own compiler rather than a wrong cache."""
    try:
        pattern = "(?P<a>x+)|[^y-z]"
        final_flags, code, groups, groupindex, indexgroup = _compiled_pattern(pattern, 0)
        made = _sre.compile(pattern, final_flags, code, groups, groupindex, indexgroup)
        return bool(made == _re_compile(pattern, 0))
    except Exception:  # noqa: BLE001 - any change there means: do not use the cache
        return False


def _keepable(pattern: str | bytes, flags: int) -> bool:
    """A pattern compiled while a module is imported (by its own code, or code it runs
    then), that cannot warn."""
    if flags & _re_compiler.SRE_FLAG_DEBUG:
        return False
    if isinstance(pattern, bytes):  # a bytes pattern warns of a non-ASCII group name
        if not pattern.isascii():
            return False
        text = pattern.decode("ascii")
    else:
        text = pattern
    if any(sign in text for sign in _MAY_WARN):
        return False
    frame: FrameType | None = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_filename == _IMPORTING:
            return True
        frame = frame.f_back
    return False


def _read(path: str) -> None:
    try:
        with open(path, "rb") as file:
            version, codes, patterns = marshal.loads(file.read())
    except (OSError, ValueError, EOFError, TypeError):
        return
    if version == sys.version and isinstance(codes, dict) and isinstance(patterns, dict):
        _codes.update(codes)
        _patterns.update(patterns)


def _write(path: str) -> None:
    if not _new or sys.dont_write_bytecode:
        return
    temporary = f"{path}.{os.getpid()}"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(temporary, "wb") as file:
            file.write(marshal.dumps((sys.version, _codes, _patterns)))
        os.replace(temporary, path)
    except (OSError, ValueError):  # a read-only install (or a value marshal refuses):
        # every process compiles, as without a cache
        with contextlib.suppress(OSError):
            os.unlink(temporary)


class _OnImport:
    """Gives `dataclasses` the caching ``exec`` as it is imported, if it ever is: a plain
    ``stoker lint`` defines no dataclass and does not import the module (nor `inspect`,
    which it imports)."""

    @staticmethod
    def find_spec(name: str, path: Any = None, target: Any = None) -> ModuleSpec | None:
        if name != "dataclasses":
            return None
        sys.meta_path.remove(_OnImport)
        spec = PathFinder.find_spec(name, path)
        loader = spec.loader if spec is not None else None
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        run = loader.exec_module

        def exec_module(module: ModuleType) -> None:
            run(module)
            module.exec = _exec  # type: ignore[attr-defined]

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def install() -> None:
    """Give `dataclasses` and `collections` the caching ``exec`` and ``eval``, and `re` the
    caching compiler (once)."""
    global _installed
    if _installed:
        return
    _installed = True
    import collections

    path = cache_path()
    if path is not None:
        _read(path)
        atexit.register(_write, path)
    collections.eval = _eval  # type: ignore[attr-defined]
    if _same_steps():
        _re_compiler.compile = _compile_pattern
    dataclasses = sys.modules.get("dataclasses")
    if dataclasses is not None:
        dataclasses.exec = _exec  # type: ignore[attr-defined]
    else:
        sys.meta_path.insert(0, _OnImport)
