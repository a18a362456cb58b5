"""Which properties a built-in type updates in place is Heat's: every ``update_allowed`` and
``immutable`` flag agrees with the catalog recorded from Heat 24.1.2 (the update plan reads
the plugin's schema, so a wrong flag would replace what Heat updates, or the reverse)."""

from __future__ import annotations

import pytest

from stoker.resources.builtin import BUILTIN_TYPES
from stoker.resources.catalog import heat_catalog


@pytest.mark.parametrize("plugin", BUILTIN_TYPES, ids=lambda p: p.type_name)
def test_update_flags_agree_with_heats_catalog(plugin) -> None:
    declared = heat_catalog().get(plugin.type_name)
    assert declared is not None
    ours = {k: (p.update_allowed, p.immutable) for k, p in plugin.properties_schema.items()}
    heats = {k: (p.update_allowed, p.immutable) for k, p in declared.properties.items()}
    if plugin.traits.dynamic_properties:
        assert ours == {}
    else:
        assert ours == heats
