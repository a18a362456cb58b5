"""`stoker.collector`: the one helper that pauses the cyclic collector."""

from __future__ import annotations

import gc

from stoker.collector import collector_paused


def test_collector_paused_restores_the_collector_as_it_was() -> None:
    assert gc.isenabled()
    try:
        with collector_paused():
            assert not gc.isenabled()
            raise KeyError("an import that fails")
    except KeyError:
        pass
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # paused by someone else: left paused
    finally:
        gc.enable()
