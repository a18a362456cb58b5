"""Facts rules work out once per file or package and share, kept in the context's memo.

Many rules read the same derived facts (a template's servers, its ports, the package's
vm-types); the first rule to ask computes them, the others read them back. The memo lives
on the context, so the facts are dropped with the file (`PackageContext.release`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from stoker.lint.context import FileContext, PackageContext

Ctx = TypeVar("Ctx", bound="FileContext | PackageContext")
T = TypeVar("T")


def memoized(compute: Callable[[Ctx], T]) -> Callable[[Ctx], T]:
    """``compute(ctx)``, worked out on the first call for a context and read back from its
    memo after (``None`` included), under a key naming the function."""
    key = f"{compute.__module__}.{compute.__qualname__}"

    @wraps(compute)
    def once(ctx: Ctx) -> T:
        memo = ctx.memo
        try:
            found: T = memo[key]
        except KeyError:
            found = memo[key] = compute(ctx)
        return found

    return once
