"""Regular expressions compiled when first used, not when their module is imported.

``re.compile`` at module level runs at import, for every pattern: the ONAP lint's rules
and the parameter constraints hold dozens, most for forms a given package never
has (internal networks, IPv6, volumes, Contrail, MAC addresses, cron schedules), and a
one-shot ``stoker lint`` paid for every one. A `LazyPattern` is written and used as the
pattern would be (``FORM = LazyPattern(r"...")``, ``FORM.match(text)``); its first use
compiles it and puts the compiled pattern's methods on the instance, so each later call
goes straight to them.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

_METHODS = ("match", "fullmatch", "search", "sub", "split", "findall", "finditer")


class LazyPattern:
    """``re.compile(pattern, flags)``, done at the first call of one of its methods."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self._flags = flags

    def __getattr__(self, name: str) -> Any:
        if name not in _METHODS:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        compiled = re.compile(self.pattern, self._flags)
        for method in _METHODS:
            setattr(self, method, getattr(compiled, method))
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"LazyPattern({self.pattern!r})"

    if TYPE_CHECKING:

        def match(
            self, string: str, pos: int = 0, endpos: int = sys.maxsize
        ) -> re.Match[str] | None: ...

        def fullmatch(
            self, string: str, pos: int = 0, endpos: int = sys.maxsize
        ) -> re.Match[str] | None: ...

        def search(
            self, string: str, pos: int = 0, endpos: int = sys.maxsize
        ) -> re.Match[str] | None: ...

        def sub(
            self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0
        ) -> str: ...

        def split(self, string: str, maxsplit: int = 0) -> list[str | Any]: ...

        def findall(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]: ...

        def finditer(
            self, string: str, pos: int = 0, endpos: int = sys.maxsize
        ) -> Iterator[re.Match[str]]: ...
