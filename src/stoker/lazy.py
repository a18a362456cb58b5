"""A package's names imported from their modules on first use (PEP 562's ``__getattr__``).

A package that re-exports its modules' names would import all of them with itself; one
that names where each comes from imports a module only when one of its names is first
asked for (`stoker.store`: the store's SQL only once a store is opened; `stoker.cloud`:
the connection only once a cloud is chosen)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def names_from(package: str, where: Mapping[str, str]) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package`` for the names of ``where`` (name -> the module
    that defines it, or ``module:name`` for a name the package offers under another one):
    a name is imported when first asked for, then kept in the package's namespace, where
    later lookups find it directly."""

    def __getattr__(name: str) -> Any:
        found = where.get(name)
        if found is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, original = found.partition(":")  # "module:name": exported renamed
        value = getattr(importlib.import_module(module), original or name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
