"""Run the cases through stoker and print, per case, the fields that differ from the
followed engine's recording (and whether stoker matches the other engine instead):

    .venv/bin/python -m tests.fidelity.updates.compare [--only PREFIX]... [-v]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from . import suite
from .stoker_side import Stoker, run_case


def show(what: str, theirs: object, mine: object) -> None:
    print(f"   {what}:\n     heat   {json.dumps(theirs)}\n     stoker {json.dumps(mine)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("-v", "--verbose", action="store_true", help="print both sides")
    args = parser.parse_args()
    recorded = suite.load_recordings()
    cases = [
        c for c in suite.load_cases() if not args.only or any(c.id.startswith(p) for p in args.only)
    ]
    matched = 0
    with tempfile.TemporaryDirectory() as directory:
        stoker = Stoker(f"sqlite:///{directory}/stoker.db", Path(directory))
        for case in cases:
            entry = recorded.get(case.id) or {}
            if suite.FOLLOWED not in entry:
                print(f"{case.id}: not recorded")
                continue
            skip = case.skip
            ours = run_case(case, stoker)
            found = list(
                suite.differences(entry[suite.FOLLOWED], ours, skip, case.spec.get("fragment"))
            )
            if not found:
                matched += 1
                continue
            other = entry.get("legacy")
            legacy = other is not None and not list(suite.differences(other, ours, skip))
            print(
                f"{case.id}: differs in {[f for f, _, _ in found]}"
                + (" (matches legacy)" if legacy else "")
            )
            for field, theirs, mine in found:
                if field == "events":
                    for name in sorted(set(theirs) | set(mine)):
                        if theirs.get(name) != mine.get(name):
                            show(f"events {name}", theirs.get(name), mine.get(name))
                elif args.verbose or len(json.dumps([theirs, mine])) < 400:
                    show(field, theirs, mine)
    print(f"{matched} of {len(cases)} match")


if __name__ == "__main__":
    main()
