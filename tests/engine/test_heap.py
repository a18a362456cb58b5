"""`engine/heap.py`: what an operation freezes is unfrozen after it, except in a process
that runs one command (`stoker`'s entry point), and never in a server; such a process
collects its young generation less often, a server as usual."""

from __future__ import annotations

import gc

from stoker.engine import heap


def _frozen_after_an_operation() -> int:
    with heap.frozen_heap():
        pass
    return gc.get_freeze_count()


def test_one_command_keeps_frozen_what_a_server_unfreezes() -> None:
    gc.unfreeze()
    try:
        assert _frozen_after_an_operation() == 0  # the default: a library, the tests
        heap.one_command_process()
        assert _frozen_after_an_operation() > 0  # the stoker command: frozen for good
        heap.long_running_process()  # stoker serve
        assert _frozen_after_an_operation() == 0
    finally:
        heap.long_running_process()
        gc.unfreeze()


def test_one_command_collects_its_young_generation_less_often_and_a_server_as_usual() -> None:
    default = gc.get_threshold()
    try:
        heap.one_command_process()
        assert gc.get_threshold() == (heap._ONE_COMMAND_YOUNG, *default[1:])
        with heap.frozen_heap():  # an operation leaves the threshold as it is
            assert gc.get_threshold()[0] == heap._ONE_COMMAND_YOUNG
        heap.long_running_process()  # stoker serve
        assert gc.get_threshold() == default
    finally:
        heap.long_running_process()
        gc.set_threshold(*default)
        gc.unfreeze()
