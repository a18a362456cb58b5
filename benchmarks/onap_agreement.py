"""Agreement with ONAP's validation, per requirement, on pass/fail packages.

Run: .venv/bin/python benchmarks/onap_agreement.py [ROOT] [--requirement R-xxxxx]

ROOT (default: tests/fixtures/onap_agreement) holds packages in the shape ONAP's own
validation suite keeps its self-test fixtures: ``ROOT/<requirement>/pass/<case>/`` is a
package ONAP's check for that requirement accepts, ``ROOT/<requirement>/fail/<case>/`` one
it rejects. Each package is linted by a real ``stoker lint --profile onap -f json`` process;
a case agrees when stoker reports the requirement for a fail package and does not for a
pass package (other requirements' findings do not count: the packages are written to
break one thing). Prints a line per requirement, every disagreement (a false alarm is a
passing package stoker flags; a miss is a failing one it does not), and the total.
Exit status 1 when any case disagrees.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CASES = ROOT / "tests" / "fixtures" / "onap_agreement"
STOKER = str(Path(sys.executable).with_name("stoker"))


@dataclass(frozen=True)
class Case:
    requirement: str
    verdict: str  # "pass" or "fail": ONAP's verdict on the package
    path: Path

    @property
    def name(self) -> str:
        return f"{self.requirement}/{self.verdict}/{self.path.name}"


def cases(root: Path) -> Iterator[Case]:
    """Every package below ``root``, in name order."""
    for requirement in sorted(p for p in root.iterdir() if p.is_dir()):
        for verdict in ("pass", "fail"):
            folder = requirement / verdict
            if folder.is_dir():
                for package in sorted(p for p in folder.iterdir() if p.is_dir()):
                    yield Case(requirement.name, verdict, package)


def reported(package: Path) -> set[str]:
    """The rule ids ``stoker lint --profile onap`` reports for the package."""
    process = subprocess.run(
        [STOKER, "lint", "--profile", "onap", "-f", "json", str(package)],
        capture_output=True,
        text=True,
        check=False,
    )
    if process.returncode not in (0, 1):
        raise SystemExit(f"stoker lint failed on {package}:\n{process.stderr[-2000:]}")
    return {finding["rule"] for finding in json.loads(process.stdout)["findings"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", type=Path, default=DEFAULT_CASES)
    parser.add_argument("--requirement", action="append", default=[])
    args = parser.parse_args()
    per: dict[str, list[bool]] = {}
    wrong: list[str] = []
    for case in cases(args.root):
        if args.requirement and case.requirement not in args.requirement:
            continue
        flagged = case.requirement in reported(case.path)
        agrees = flagged == (case.verdict == "fail")
        per.setdefault(case.requirement, []).append(agrees)
        if not agrees:
            kind = "false alarm" if flagged else "miss"
            wrong.append(f"  {kind}: {case.name}")
    total = sum(len(v) for v in per.values())
    agreed = sum(sum(v) for v in per.values())
    for requirement, results in per.items():
        print(f"{requirement:10} {sum(results)}/{len(results)}")
    print("\n".join(wrong) or "  no disagreement")
    share = 100 * agreed / total if total else 0.0
    print(f"agreement: {agreed}/{total} cases ({share:.0f}%), {len(per)} requirements")
    return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
