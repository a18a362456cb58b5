"""The language server's check of a changed buffer, in-process: for instruction counts.

Prints figures; asserts nothing. Run:
.venv/bin/python benchmarks/lsp_checks.py [--changes N] [--moves] [--where WHERE]

The same template and changes as `benchmarks/lsp.py` (1,000 resources; one property of
one resource edited per change, or with ``--where`` a parameter, the description or an
output; with ``--moves`` a line inserted or taken out at the top of that section), each
checked as ``stoker lsp`` checks a buffer (`stoker.lsp.analysis.analyse`, handed what
the last check carried), without the protocol around it. It prints the CPU
time per change; a shared machine makes that vary, so the figure to compare is the
instructions callgrind counts (they do not depend on the load): run it under
``valgrind --tool=callgrind`` with ``--changes 0`` and with ``--changes N``, and divide
the difference of the two totals by N.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lsp import RESOURCES, WHERE, template  # noqa: E402 - the benchmark's template
from stoker.lsp.analysis import analyse  # noqa: E402


def check(path: str, text: str, last: Any) -> Any:
    carried = getattr(last, "carried", None) if last is not None else None
    return analyse(path, text) if carried is None else analyse(path, text, None, carried)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=10)
    parser.add_argument("--moves", action="store_true", help="changes also move lines")
    parser.add_argument("--where", choices=WHERE, default="resources", help="what a change edits")
    arguments = parser.parse_args()
    gc.disable()  # as `stoker lsp` runs (see stoker.lsp.server.serve)
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "big.yaml")
        Path(path).write_text(template(RESOURCES))
        last = check(path, template(RESOURCES), None)
        start = time.process_time()
        for number in range(arguments.changes):
            moved = arguments.moves and number % 2 == 0
            edited = (number * 37) % RESOURCES
            text = template(RESOURCES, edited, moved, arguments.where)
            analysis = check(path, text, last)
            last.release()
            last = analysis
        spent = time.process_time() - start
    if arguments.changes:
        print(f"CPU per change: {spent / arguments.changes * 1000:.0f} ms")


if __name__ == "__main__":
    main()
