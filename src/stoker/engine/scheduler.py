"""One traversal machine: run a job per node of a dependency graph, dependencies first.

Create walks the graph forward, delete and rollback walk it reversed; the scheduler knows
nothing about what a job does. Every node whose dependencies are done starts at once,
bounded by a concurrency limit, so the wall time approaches the graph's critical path.
After the first failure nothing new starts and the jobs in flight finish.
"""

from __future__ import annotations

import asyncio
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
    ready = sorted((n for n, count in waiting.items() if count == 0), key=order.__getitem__)
    ready.reverse()  # pop() from the end takes template order
    running: dict[asyncio.Task[None], str] = {}
    stopping = False

    try:
        while ready or running:
            while ready and not stopping and len(running) < concurrency:
                name = ready.pop()
                running[asyncio.create_task(job(name), name=name)] = name
            if not running:
                break
            finished_tasks, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            newly_ready: list[str] = []
            for task in finished_tasks:
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
            newly_ready.sort(key=order.__getitem__, reverse=True)
            ready[:0] = newly_ready  # later-found nodes after those already waiting
    except asyncio.CancelledError:
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)
        raise
    started = set(result.completed) | set(result.failed)
    result.not_started = [n for n in requires if n not in started and n not in finished]
    return result
