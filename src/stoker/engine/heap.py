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
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0  # operations running in this process (concurrent ones, in any thread)
#: the process runs one command and exits (the `stoker` command line): what is frozen
#: stays frozen, as it lives until the exit anyway
_one_command = False
#: the young generation's threshold while a single command's operation runs (700 by
#: default): most of what an operation allocates (events, rows, contexts) is freed by
#: reference counting soon after; a collection every 700 allocations walked it first
_ONE_COMMAND_YOUNG = 50_000


def one_command_process() -> None:
    """Declare this process a single command's (see `keep_loaded`): the `stoker` command
    line's entry point does, for every command."""
    global _one_command
    _one_command = True


def long_running_process() -> None:
    """Undo `one_command_process` for a command that serves (`stoker serve`): operations
    come and go there, and what they leave must be collected."""
    global _one_command
    _one_command = False


def keep_loaded() -> None:
    """A single command's definition is loaded: freeze it, and everything else alive
    now, for the rest of the process. Letting the collector find it instead costs three
    passes over a few hundred thousand objects (young, middle, then full, after loading
    a 1,000-resource template with functions), and unfreezing it after an
    operation would make the next full collection walk it again. Elsewhere (a server, the
    tests' many commands in one process) this does nothing."""
    if _one_command:
        gc.freeze()


@contextmanager
def frozen_heap() -> Iterator[None]:
    """Freeze the heap while the outermost of the operations in this block runs."""
    global _depth
    with _lock:
        if _depth == 0:
            gc.freeze()
            if _one_command:
                gc.set_threshold(_ONE_COMMAND_YOUNG, *gc.get_threshold()[1:])
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and not _one_command:
                gc.unfreeze()
