"""Linter speed: the whole test corpus, and a generated 50-template VNF package (ONAP).

Prints figures; asserts nothing. Run: .venv/bin/python benchmarks/lint.py
The first run in a process also loads Heat's resource catalog (shared afterwards);
"warm" is the best of the following runs. For scale, the package's files are also only
loaded with PyYAML's CSafeLoader (no positions, no checks): the ONAP lint aims at well
within 3x that bare load, in one process.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

import yaml

from stoker.lint import LintConfig, LintOptions, LintReport, Profile, lint

sys.path.insert(0, str(Path(__file__).resolve().parent))
from vnf_package import write_package  # noqa: E402

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "corpus" / "data"
RUNS = 7


def against_bare_load(directory: Path, options: LintOptions) -> tuple[float, float]:
    """Best CPU times of a bare CSafeLoader load of the package's files and of the lint,
    runs interleaved so that a busy machine slows both alike."""
    paths = sorted(directory.iterdir())
    bare, linted = float("inf"), float("inf")
    for _ in range(RUNS * 4):
        start = time.process_time()
        for path in paths:
            with open(path, "rb") as handle:
                yaml.load(handle, Loader=yaml.CSafeLoader)
        bare = min(bare, time.process_time() - start)
        start = time.process_time()
        lint([str(directory)], options)
        linted = min(linted, time.process_time() - start)
    return bare, linted


def timed(action: Callable[[], LintReport]) -> tuple[float, list[float], LintReport]:
    """The first run's time, the following runs' times, and the last report."""
    start = time.perf_counter()
    report = action()
    first = time.perf_counter() - start
    warm = []
    for _ in range(RUNS):
        start = time.perf_counter()
        report = action()
        warm.append(time.perf_counter() - start)
    return first, warm, report


def show(label: str, first: float, warm: list[float], report: LintReport) -> None:
    print(
        f"{label}: first run {first * 1000:.0f} ms, warm best {min(warm) * 1000:.0f} ms "
        f"(median {statistics.median(warm) * 1000:.0f} ms); {len(report.files)} files, "
        f"{report.summary()}"
    )


def main() -> None:
    onap = LintOptions(config=LintConfig(profiles=(Profile.ONAP,)))
    with tempfile.TemporaryDirectory() as tmp:
        package = Path(tmp) / "vnf"
        package.mkdir()
        templates = write_package(package)
        archive = Path(tmp) / "vnf.zip"
        with zipfile.ZipFile(archive, "w") as handle:
            for path in sorted(package.iterdir()):
                handle.write(path, path.name)
        # the package first, in a fresh process: its first run pays for the catalog
        first, warm, report = timed(lambda: lint([str(package)], onap))
        show(
            f"ONAP profile, generated package ({templates} templates + envs, dir)",
            first,
            warm,
            report,
        )
        bare, linted = against_bare_load(package, onap)
        print(
            f"bare CSafeLoader load of the same {len(list(package.iterdir()))} files: best "
            f"{bare * 1000:.0f} ms CPU; ONAP lint, interleaved with it: best "
            f"{linted * 1000:.0f} ms CPU = {linted / bare:.1f}x"
        )
        first, warm, report = timed(lambda: lint([str(archive)], onap))
        show("ONAP profile, the same package as a .zip", first, warm, report)
        both = LintOptions(config=LintConfig(profiles=(Profile.DEFAULT, Profile.ONAP)))
        first, warm, report = timed(lambda: lint([str(package)], both))
        show("default + ONAP profiles, same package (dir)", first, warm, report)
    if not (CORPUS / "index.json").exists():
        print("the test corpus not found; skipping", file=sys.stderr)
        return
    first, warm, report = timed(lambda: lint([str(CORPUS)]))
    show("default profile, the whole test corpus (tests/corpus/data)", first, warm, report)


if __name__ == "__main__":
    main()
