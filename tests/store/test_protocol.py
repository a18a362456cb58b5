"""`SqlStore` implements the engine's `Store` port exactly (names, kinds, defaults, types)."""

from __future__ import annotations

import inspect

import pytest

from stoker.engine.state import Store
from stoker.store import SqlStore

PORT_METHODS = sorted(
    name for name, value in vars(Store).items() if callable(value) and not name.startswith("_")
)


def test_the_port_has_methods() -> None:
    assert "create_stack" in PORT_METHODS and "acquire_lease" in PORT_METHODS


@pytest.mark.parametrize("name", PORT_METHODS)
def test_method_signature_matches_the_port(name: str) -> None:
    port = inspect.signature(getattr(Store, name))
    ours = inspect.signature(getattr(SqlStore, name))
    assert [(p.name, p.kind, p.default, p.annotation) for p in ours.parameters.values()] == [
        (p.name, p.kind, p.default, p.annotation) for p in port.parameters.values()
    ]
    assert ours.return_annotation == port.return_annotation
