"""The long fuzz run: mutated corpus templates and environments through ``template validate``,
``resolve``, ``convert`` and ``lint``, in this process.

Input N of seed S is made by `random.Random(f"{S}:{N}")`, so any input can be made again
alone (``--seed S --start N --count 1 --show``). Prints inputs per second and the failures
by class (uncaught exceptions, internal errors, unlocated refusals), with the first input
of each class; exits 1 if there was any.

    .venv/bin/python benchmarks/fuzz.py --count 100000 [--seed 0] [--jobs 2]
"""

from __future__ import annotations

import argparse
import collections
import multiprocessing
import os
import random
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fuzzing.harness import COMMANDS, Failure, run_case, runner, workspace  # noqa: E402
from fuzzing.mutations import FAMILIES, corpus, make_case  # noqa: E402


def case_rng(seed: int, index: int) -> random.Random:
    return random.Random(f"{seed}:{index}")


def run_chunk(
    seed: int, start: int, count: int, family: str | None = None
) -> tuple[int, list[tuple[int, str, Failure]]]:
    """Inputs ``start .. start+count-1``: how many ran, and each failure with its input."""
    corpus()
    failures = []
    click_runner = runner()
    with workspace() as space:
        for index in range(start, start + count):
            case = make_case(case_rng(seed, index), family)
            for failure in run_case(click_runner, space, case, COMMANDS):
                failures.append((index, case.describe(), failure))
    return count, failures


def _chunk(
    arguments: tuple[int, int, int, str | None],
) -> tuple[int, list[tuple[int, str, Failure]]]:
    return run_chunk(*arguments)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1000, help="inputs to run")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--start", type=int, default=0, help="index of the first input")
    parser.add_argument("--jobs", type=int, default=1, help="processes (chunks in parallel)")
    parser.add_argument("--show", action="store_true", help="print each input's mutations")
    parser.add_argument(
        "--family",
        choices=FAMILIES,
        help="only this kind of mutation (default: drawn per input; 'nested' only when asked)",
    )
    options = parser.parse_args()
    if options.show:
        for index in range(options.start, options.start + options.count):
            case = make_case(case_rng(options.seed, index), options.family)
            print(f"input {index}: {case.describe()}")
            sys.stdout.buffer.write(case.template + b"\n")
            for text in case.environments:
                sys.stdout.buffer.write(b"--- environment\n" + text + b"\n")
    chunk = 100
    pieces = [
        (options.seed, start, min(chunk, options.start + options.count - start), options.family)
        for start in range(options.start, options.start + options.count, chunk)
    ]
    load_before = os.getloadavg()
    began = time.perf_counter()
    done = 0
    failures: list[tuple[int, str, Failure]] = []
    # SIGTERM stops the run after the chunk running, and it still prints what it found.
    # (Not an exception: raised inside a command, Click would turn it into that
    # command's "aborted" and the run would go on.)
    stop: list[int] = []
    signal.signal(signal.SIGTERM, lambda number, frame: stop.append(number))
    if options.jobs > 1:
        with multiprocessing.Pool(options.jobs) as pool:
            for ran, found in pool.imap_unordered(_chunk, pieces):
                done += ran
                failures += found
                _progress(done, options.count, began, len(failures))
                if stop:
                    pool.terminate()
                    break
    else:
        for piece in pieces:
            ran, found = _chunk(piece)
            done += ran
            failures += found
            _progress(done, options.count, began, len(failures))
            if stop:
                break
    if stop:
        print(f"\nstopped (SIGTERM) after {done} inputs", file=sys.stderr)
    elapsed = time.perf_counter() - began
    load_after = os.getloadavg()
    print(file=sys.stderr)
    print(
        f"{done} inputs x {len(COMMANDS)} commands ({', '.join(COMMANDS)}) in {elapsed:.0f} s: "
        f"{done / elapsed:.1f} inputs/s, {options.jobs} process(es); load average "
        f"{load_before[0]:.2f} before, {load_after[0]:.2f} after"
    )
    by_class: dict[tuple[str, str, str], list[tuple[int, str, Failure]]] = collections.defaultdict(
        list
    )
    for index, description, failure in failures:
        by_class[(failure.kind, failure.command, failure.signature)].append(
            (index, description, failure)
        )
    kinds = collections.Counter(failure.kind for _, _, failure in failures)
    print(
        f"internal errors: {kinds['internal error']}, uncaught exceptions: {kinds['uncaught']}, "
        f"unlocated refusals: {kinds['unlocated']}, other exit statuses: {kinds['exit status']}"
    )
    for (kind, command, signature), found in sorted(by_class.items(), key=lambda i: -len(i[1])):
        index, description, failure = min(found, key=lambda item: item[0])
        print(f"\n{len(found)} x {kind} in {command}: {signature}")
        print(f"  first: --seed {options.seed} --start {index} --count 1 ({description})")
        print("  " + failure.detail.strip().replace("\n", "\n  "))
    return 1 if failures else 0


def _progress(done: int, total: int, began: float, failed: int) -> None:
    rate = done / (time.perf_counter() - began)
    load = os.getloadavg()[0]
    print(
        f"\r{done}/{total} inputs, {rate:.1f}/s, {failed} failures, load {load:.2f}",
        end="",
        file=sys.stderr,
        flush=True,
    )


if __name__ == "__main__":
    sys.exit(main())
