"""Where a ``stoker stack create`` spends its CPU time, phase by phase. Asserts nothing.

Run: .venv/bin/python benchmarks/cli_phases.py [--count 10000] [--scenario independent]

Runs the command in this process (``stoker.cli.main.main``) against a new SQLite file,
with CPU time (``time.process_time``) taken around its phases: the imports of the
command's modules, loading and defining the template (``load_from_options``), the
pre-flight check (``StackEngine.check``), the engine's create (``asyncio.run``), and
showing the stack. CPU time rather than wall time: on a shared machine it moves much
less with the load. The template is the one ``benchmarks/engine.py`` makes.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from engine import chain, functions, independent  # noqa: E402

SCENARIOS: dict[str, Callable[[int], str]] = {
    "independent": independent,
    "chain": chain,
    "functions": functions,
}


def timed(phases: list[tuple[str, float]], label: str, call: Callable[..., Any]) -> Any:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return call(*args, **kwargs)
        finally:
            phases.append((label, time.process_time() - start))

    return wrapper


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenario", choices=sorted(SCENARIOS), default="independent")
    parser.add_argument("--count", type=int, default=10000)
    args = parser.parse_args()
    directory = tempfile.mkdtemp()
    template = Path(directory, "t.yaml")
    template.write_text(SCENARIOS[args.scenario](args.count))
    start = time.process_time()
    import stoker.cli.loading
    import stoker.cli.main
    import stoker.cli.stack
    import stoker.cli.template
    import stoker.engine.stacks

    phases: list[tuple[str, float]] = [("imports", time.process_time() - start)]
    stoker.cli.loading.load_from_options = timed(
        phases, "load and define the template", stoker.cli.loading.load_from_options
    )
    engine = stoker.engine.stacks.StackEngine
    engine.check = timed(phases, "pre-flight check", engine.check)  # type: ignore[method-assign]
    stoker.cli.stack.show_stack = timed(phases, "show the stack", stoker.cli.stack.show_stack)
    asyncio.run = timed(phases, "engine: create", asyncio.run)  # type: ignore[assignment]
    sys.argv = [
        "stoker",
        "--db",
        f"sqlite:///{Path(directory, 'phases.db')}",
        "stack",
        "--max-resources-per-stack",
        "-1",
        "create",
        "s",
        "-t",
        str(template),
        "--max-template-size",
        str(16 * 1024 * 1024),
    ]
    stdout, stderr = sys.stdout, sys.stderr
    with open("/dev/null", "w") as quiet:  # noqa: PTH123 - the progress lines and the table
        sys.stdout = sys.stderr = quiet
        try:
            stoker.cli.main.main()
        except SystemExit as exit:
            if exit.code not in (0, None):
                raise
        finally:
            sys.stdout, sys.stderr = stdout, stderr
    total = time.process_time() - start
    print(f"{args.scenario} {args.count}: CPU seconds by phase")
    for label, seconds in phases:
        print(f"  {label:32} {seconds:6.3f}")
    print(f"  {'(the rest: the store opening…)':32} {total - sum(s for _, s in phases):6.3f}")
    print(f"  {'total':32} {total:6.3f}")
    print(f"load average: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
