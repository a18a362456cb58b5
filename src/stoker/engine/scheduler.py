"""One traversal machine: run a job per node of a dependency graph, dependencies first.

Create walks the graph forward, delete and rollback walk it reversed; the scheduler knows
nothing about what a job does. Every node whose dependencies are done starts at once,
bounded by a concurrency limit, so the wall time approaches the graph's critical path.
After the first failure nothing new starts and the jobs in flight finish.
"""

from __future__ import annotations

import asyncio
import contextvars
import sys
import types
from collections import deque
from collections.abc import Callable, Coroutine, Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

#: how many jobs one turn of the event loop starts at most (see `traverse`'s ``start``)
ROUND_BUDGET = 200


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
    eager: bool = False,
) -> Traversal:
    """Run ``job(node)`` for every node not in ``done``, each after all it requires.

    ``requires`` may name nodes outside the graph; those count as done (a resumed
    operation passes what already completed as ``done``). A job signals failure by
    raising; the traversal then starts nothing new and waits for the jobs in flight.

    ``eager``: a job runs at once, up to its first real wait, rather than as a task of
    its own (see ``start``); only for jobs that never need to be a task until they wait
    (they use neither ``asyncio.current_task`` nor ``asyncio.timeout`` before).
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
    advancing = False  # an `advance` is due in this or the next turn of the loop
    stopping = False

    # Each waiting job's end is seen by a callback, not by asyncio.wait over every running
    # job (which would cost a pass over up to ``concurrency`` tasks for each end): the jobs
    # that ended in one turn of the loop are taken together, as asyncio.wait would give
    # them, and what they made ready starts in template order, after what already waited.
    def ended_one(task: asyncio.Task[None]) -> None:
        ended.append(task)
        soon()

    def soon() -> None:
        nonlocal advancing
        if not advancing:
            advancing = True
            loop.call_soon(advance)

    def record(name: str, error: BaseException | None, newly_ready: list[str]) -> None:
        nonlocal stopping
        if error is not None:
            result.failed[name] = error
            stopping = True
            return
        result.completed.append(name)
        for dependent in dependents[name]:
            waiting[dependent] -= 1
            if waiting[dependent] == 0:
                newly_ready.append(dependent)

    def advance() -> None:
        nonlocal advancing
        advancing = False
        try:
            newly_ready: list[str] = []
            for task in ended:
                name = running.pop(task)
                error = task.exception() if not task.cancelled() else asyncio.CancelledError()
                record(name, error, newly_ready)
            ended.clear()
            newly_ready.sort(key=order.__getitem__)
            ready.extend(newly_ready)
            start()
        except BaseException as error:  # never leave the traversal waiting forever
            if not over.done():
                over.set_exception(error)

    def start() -> None:
        """Start what is ready, in rounds. A round starts every ready job (within the
        concurrency limit), each at once up to its first real wait; a job that finishes
        without waiting (an effect-free resource's: `Recorder.defer`) ends within the
        round, and what it made ready starts in the next round, in template order: the
        order a task per job gave, whose ends the loop's next turns saw, without the task
        and those turns (a chain of such resources runs as a loop, not as a pass of the
        scheduler per link). After `ROUND_BUDGET` jobs the rest waits for the next turn,
        so timers (the deferred commit), other tasks and a cancellation still run."""
        budget = ROUND_BUDGET if eager else sys.maxsize
        while ready and not stopping and len(running) < concurrency:
            if budget <= 0:
                soon()
                return
            newly_ready: list[str] = []
            # A round starts as many jobs as a round of tasks would have: one that ended
            # at once held its place in the limit until the round was over.
            places = concurrency - len(running)
            while ready and not stopping and places > 0 and budget > 0:
                name = ready.popleft()
                budget -= 1
                places -= 1
                if not eager:
                    task = loop.create_task(job(name), name=name)
                    running[task] = name
                    task.add_done_callback(ended_one)
                    continue
                # In a copy of the current context, as a task would run it (the task that
                # goes on with the job, if it waits, keeps that copy).
                context = contextvars.copy_context()
                coroutine = job(name)
                try:
                    waited = context.run(coroutine.send, None)
                except StopIteration:
                    record(name, None, newly_ready)
                    continue
                except (KeyboardInterrupt, SystemExit):
                    raise
                except BaseException as error:
                    record(name, error, newly_ready)
                    continue
                task = loop.create_task(_resumed(coroutine, waited), name=name, context=context)
                running[task] = name
                task.add_done_callback(ended_one)
            newly_ready.sort(key=order.__getitem__)
            ready.extend(newly_ready)
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


@types.coroutine
def _resumed(coroutine: Coroutine[Any, Any, None], waited: Any) -> Generator[Any, Any, None]:
    """Go on with a job whose first step already ran and gave ``waited`` (what it waits
    for) to its task: each later step, and anything thrown in (a cancellation), is
    passed on to it, as its task would have."""
    while True:
        try:
            sent = yield waited
        except GeneratorExit:
            coroutine.close()
            raise
        except BaseException as error:
            try:
                waited = coroutine.throw(error)
            except StopIteration:
                return
        else:
            try:
                waited = coroutine.send(sent)
            except StopIteration:
                return
