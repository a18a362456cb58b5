"""Compiled dataclass and named-tuple methods kept from one ``stoker`` process to the next.

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
"""

from __future__ import annotations

import atexit
import builtins
import contextlib
import marshal
import os
import sys
from importlib.machinery import ModuleSpec, PathFinder
from types import CodeType, ModuleType
from typing import Any

#: more distinct sources than stoker has classes: the cache is not written beyond this
#: (a process that defines classes from generated text must not grow it without end)
MAX_ENTRIES = 4000

_codes: dict[tuple[str, str], CodeType] = {}
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


def _read(path: str) -> None:
    try:
        with open(path, "rb") as file:
            version, codes = marshal.loads(file.read())
    except (OSError, ValueError, EOFError, TypeError):
        return
    if version == sys.version and isinstance(codes, dict):
        _codes.update(codes)


def _write(path: str) -> None:
    if not _new or sys.dont_write_bytecode:
        return
    temporary = f"{path}.{os.getpid()}"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(temporary, "wb") as file:
            file.write(marshal.dumps((sys.version, _codes)))
        os.replace(temporary, path)
    except OSError:  # a read-only install: every process compiles, as without a cache
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
    """Give `dataclasses` and `collections` the caching ``exec`` and ``eval`` (once)."""
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
    dataclasses = sys.modules.get("dataclasses")
    if dataclasses is not None:
        dataclasses.exec = _exec  # type: ignore[attr-defined]
    else:
        sys.meta_path.insert(0, _OnImport)
