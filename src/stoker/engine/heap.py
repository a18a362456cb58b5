"""Keep Python's cyclic garbage collector off the objects an operation only reads.

A loaded stack definition is hundreds of thousands of objects (the template's nodes,
function trees, the graph) that live as long as the operation. Each full collection
walks all of them: on a 10,000-resource create, three or four full collections cost
about as much as the engine's own work. `frozen_heap` moves everything that
exists when an operation starts to the collector's permanent generation
(`gc.freeze`), so collections during the operation look only at what it creates, and
puts it back when the last running operation ends. Nothing is leaked: frozen objects
are still freed by reference counting, and cycles among them are found by the first
collection after the operation.

A process that runs one command also collects its young generation less often
(`one_command_process`): what a command allocates, from its imports on, is almost all
freed by reference counting or kept until the exit, and a collection every few hundred
allocations walked it first. A server gets the default back (`long_running_process`).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from stoker.collector import collector_paused

_lock = threading.Lock()
_depth = 0  # operations running in this process (concurrent ones, in any thread)
#: the process runs one command and exits (the `stoker` command line): what is frozen
#: stays frozen, as it lives until the exit anyway
_one_command = False
#: the young generation's threshold in a process that runs one command: most of what a
#: command allocates (modules' objects, events, rows, contexts) is freed by reference
#: counting soon after or lives until the exit; a collection every 700 allocations (the
#: default) walked it first
_ONE_COMMAND_YOUNG = 50_000
#: the young generation's threshold this process started with, for a server
_DEFAULT_YOUNG = gc.get_threshold()[0]


def one_command_process() -> None:
    """Declare this process a single command's (see `loading_kept`), and collect its young
    generation less often from now on: the `stoker` command line's entry point does, for
    every command, before it imports the command."""
    global _one_command
    _one_command = True
    _young_threshold(_ONE_COMMAND_YOUNG)


def long_running_process() -> None:
    """Undo `one_command_process` for a command that serves (`stoker serve`, `stoker
    sandbox serve`, `stoker lsp`): requests and operations come and go there, and what
    they leave must be collected as usual."""
    global _one_command
    _one_command = False
    _young_threshold(_DEFAULT_YOUNG)


def _young_threshold(young: int) -> None:
    gc.set_threshold(young, *gc.get_threshold()[1:])


@contextmanager
def loading_kept() -> Iterator[None]:
    """Run a block that builds what a single command keeps to its exit (its loaded
    definition, the tree check's subtrees) with the collector paused
    (`stoker.collector`), then freeze what it built, and everything else alive, for the
    rest of the process, while the collector is still paused: its first young collection
    after the pause would otherwise walk everything the block made. Letting the
    collector find it instead costs three passes over a few hundred thousand objects
    (young, middle, then full, after loading a 1,000-resource template with functions),
    and unfreezing it after an operation would make the next full collection walk it
    again. Elsewhere (a server, the tests' many commands in one process) the block only
    runs with the collector paused."""
    with collector_paused():
        try:
            yield
        finally:
            if _one_command:
                gc.freeze()


@contextmanager
def frozen_heap() -> Iterator[None]:
    """Freeze the heap while the outermost of the operations in this block runs."""
    global _depth
    with _lock:
        if _depth == 0:
            gc.freeze()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and not _one_command:
                gc.unfreeze()
