"""One traversal machine: run a job per node of a dependency graph, dependencies first.

Create walks the graph forward, delete and rollback walk it reversed; the scheduler knows
nothing about what a job does. Every node whose dependencies are done starts at once,
bounded by a concurrency limit, so the wall time approaches the graph's critical path.
After the first failure nothing new starts and the jobs in flight finish.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class Traversal:
    """What happened: which nodes finished, which failed (with the error), which never ran."""

    completed: list[str] = field(default_factory=list)
    failed: dict[str, BaseException] = field(default_factory=dict)
    not_started: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failed and not self.not_started


def reverse(requires: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """The graph for a reverse walk: a node waits for everything that required it."""
    result: dict[str, list[str]] = {name: [] for name in requires}
    for name, needs in requires.items():
        for need in needs:
            if need in result:
                result[need].append(name)
    return result


async def traverse(
    requires: Mapping[str, Sequence[str]],
    job: Callable[[str], Coroutine[Any, Any, None]],
    *,
    concurrency: int = 100,
    done: Iterable[str] = (),
) -> Traversal:
    """Run ``job(node)`` for every node not in ``done``, each after all it requires.

    ``requires`` may name nodes outside the graph; those count as done (a resumed
    operation passes what already completed as ``done``). A job signals failure by
    raising; the traversal then starts nothing new and waits for the jobs in flight.
    """
    result = Traversal()
    finished = set(done)
    waiting: dict[str, int] = {}
    dependents: dict[str, list[str]] = {name: [] for name in requires}
    for name, needs in requires.items():
        if name in finished:
            continue
        pending = [n for n in dict.fromkeys(needs) if n in requires and n not in finished]
        waiting[name] = len(pending)
        for need in pending:
            dependents[need].append(name)
    order = {name: index for index, name in enumerate(requires)}
    ready = deque(sorted((n for n, count in waiting.items() if count == 0), key=order.__getitem__))
    running: dict[asyncio.Task[None], str] = {}
    loop = asyncio.get_running_loop()
    over: asyncio.Future[None] = loop.create_future()
    ended: list[asyncio.Task[None]] = []  # since the last `advance`
    stopping = False

    # Each job's end is seen by a callback, not by asyncio.wait over every running job
    # (which would cost a pass over up to ``concurrency`` tasks for each end): the jobs
    # that ended in one turn of the loop are taken together, as asyncio.wait would give
    # them, and what they made ready starts in template order, after what already waited.
    def ended_one(task: asyncio.Task[None]) -> None:
        if not ended:
            loop.call_soon(advance)
        ended.append(task)

    def advance() -> None:
        nonlocal stopping
        try:
            newly_ready: list[str] = []
            for task in ended:
                name = running.pop(task)
                error = task.exception() if not task.cancelled() else asyncio.CancelledError()
                if error is not None:
                    result.failed[name] = error
                    stopping = True
                    continue
                result.completed.append(name)
                for dependent in dependents[name]:
                    waiting[dependent] -= 1
                    if waiting[dependent] == 0:
                        newly_ready.append(dependent)
            ended.clear()
            newly_ready.sort(key=order.__getitem__)
            ready.extend(newly_ready)
            start()
        except BaseException as error:  # never leave the traversal waiting forever
            if not over.done():
                over.set_exception(error)

    def start() -> None:
        while ready and not stopping and len(running) < concurrency:
            name = ready.popleft()
            task = loop.create_task(job(name), name=name)
            running[task] = name
            task.add_done_callback(ended_one)
        if not running and not over.done():
            over.set_result(None)

    try:
        start()
        await over
    except asyncio.CancelledError:
        stopping = True
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)
        raise
    started = set(result.completed) | set(result.failed)
    result.not_started = [n for n in requires if n not in started and n not in finished]
    return result
