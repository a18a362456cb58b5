"""The names a mistyped one is closest to: one helper for every "did you mean" hint.

A misspelt resource type (``OS::Cinder::Volum``), property (``flavour``), parameter
reference (``get_param: imag``), function (``get_parm``) or cloud name (a flavor that does
not exist) is answered with the nearest names known, by difflib's similarity ratio
(`difflib.get_close_matches`), given only the names that pass its two quick upper bounds,
which most words fail against most names: the common case (no typo anywhere) costs no
ratio.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Iterable

#: how alike two names must be (difflib's ratio, 0..1) to offer one for the other
CUTOFF = 0.6


def nearest(word: str, names: Iterable[str], n: int = 1, cutoff: float = CUTOFF) -> list[str]:
    """Up to ``n`` of ``names`` closest to ``word``, closest first (ties: difflib's order);
    ``word`` itself is never offered."""
    candidates = [name for name in names if name != word and _may_be_close(word, name, cutoff)]
    if not candidates:
        return []  # what difflib would answer

    return difflib.get_close_matches(word, candidates, n=n, cutoff=cutoff)


def did_you_mean(word: str, names: Iterable[str], cutoff: float = CUTOFF) -> str:
    """``"; did you mean `NAME`?"`` for the nearest name, or ``""`` when none is near: for
    appending to a message."""
    found = nearest(word, names, 1, cutoff)
    return f"; did you mean `{found[0]}`?" if found else ""


def _may_be_close(word: str, name: str, cutoff: float) -> bool:
    """difflib's two upper bounds on the ratio (`real_quick_ratio`: the lengths;
    `quick_ratio`: the characters in common, counted), computed as difflib computes them:
    `get_close_matches` drops a name that fails either."""
    length = len(word) + len(name)
    if not length or 2.0 * min(len(word), len(name)) / length < cutoff:
        return False
    common = (Counter(word) & Counter(name)).total()
    return 2.0 * common / length >= cutoff
