"""Hostile inputs, run as whole ``stoker`` processes: wall time, peak RSS, and the error.

Run: .venv/bin/python benchmarks/bombs.py [--only NAME]... [--cap-mb 4096] [--cap-seconds 60]

Each bomb of issue 11 is built in a temporary directory and run as the command a user or
a CI job would run. The figures are the wall time and the peak RSS of the ``stoker``
process (``os.wait4``'s rusage of that one child), and whether it ended as it should: a
non-zero exit, a located finding (``file:line:column: ...``) that names the limit it hit,
one ``error:`` line, and no traceback. The aim (issue 11) is at most 2 s and 256 MB each.

A runaway process is stopped by resource limits set in the child (``--cap-mb`` of
address space, ``--cap-seconds`` of CPU), so measuring the code before the budgets
existed does not take the machine down; such a run is reported as killed. Like
benchmarks/cli.py this process imports no part of stoker, so its own size never counts
in a child's peak RSS.
"""

from __future__ import annotations

import argparse
import compileall
import io
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STOKER = str(Path(sys.executable).with_name("stoker"))
HEADER = "heat_template_version: 2018-08-31\n"
LOCATED = re.compile(r"^\S.*:\d+:\d+: ", re.MULTILINE)


@dataclass(frozen=True)
class Bomb:
    name: str
    what: str
    #: builds the input in a directory and returns the stoker arguments
    build: Callable[[Path], list[str]]
    #: a word the located finding must contain: the limit's option
    expect: str


def _write(directory: Path, name: str, text: str) -> str:
    path = directory / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def alias_strings(directory: Path) -> list[str]:
    """Billion laughs of strings: 10 KB shared 10**5 times, under the node limit."""
    lines = [HEADER, "resources:\n  r:\n    type: OS::Heat::Value\n    properties:\n"]
    lines.append(f"      value:\n        - &s0 {'x' * 10_000}\n")
    lines.append("        - &l1 [" + ", ".join(["*s0"] * 10) + "]\n")
    for level in range(2, 6):
        lines.append(f"        - &l{level} [" + ", ".join([f"*l{level - 1}"] * 10) + "]\n")
    return ["template", "validate", _write(directory, "laughs.yaml", "".join(lines))]


def big_template(directory: Path) -> list[str]:
    """A 100 MB template (1 MB-long runs of small resources), the size limit raised."""
    path = directory / "big.yaml"
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(HEADER + "resources:\n")
        index = 0
        while handle.tell() < 100 * 1024 * 1024:
            handle.write(
                "".join(
                    f"  r{index + i}:\n    type: OS::Heat::Value\n"
                    f"    properties: {{value: item-{index + i}}}\n"
                    for i in range(10_000)
                )
            )
            index += 10_000
    return ["template", "validate", "--max-template-size", str(200 * 1024 * 1024), str(path)]


def big_json(directory: Path) -> list[str]:
    """The same as JSON: a strict JSON document is parsed whole, not streamed."""
    path = directory / "big.json"
    with open(path, "w", encoding="utf-8") as handle:
        handle.write('{"heat_template_version": "2018-08-31", "resources": {')
        index = 0
        while handle.tell() < 100 * 1024 * 1024:
            handle.write(
                ",".join(
                    f'"r{index + i}": {{"type": "OS::Heat::Value", '
                    f'"properties": {{"value": "item-{index + i}"}}}}'
                    for i in range(10_000)
                )
                + ","
            )
            index += 10_000
        handle.write('"last": {"type": "OS::Heat::None"}}}')
    return ["template", "validate", "--max-template-size", str(200 * 1024 * 1024), str(path)]


def join_aliased(directory: Path) -> list[str]:
    """``resolve`` of list_join over aliased lists of long strings (JSON-serialised items):
    12 MB of text once the aliases are expanded (under that limit), to be joined."""
    text = (
        HEADER
        + "parameters: {}\nresources:\n  r:\n    type: OS::Heat::Value\n    properties:\n"
        + "      value:\n        list_join:\n          - ','\n"
        + "          - &a ["
        + ", ".join(chr(97 + i) + "y" * 1000 for i in range(3))
        + "]\n"
        + "          - &b ["
        + ", ".join(["*a"] * 100)
        + "]\n"
        + "          - ["
        + ", ".join(["*b"] * 40)
        + "]\n"
    )
    return ["template", "resolve", _write(directory, "join.yaml", text)]


def replace_aliased(directory: Path) -> list[str]:
    """``resolve`` of str_replace putting an aliased 100 KB value in 10,000 places."""
    text = (
        HEADER
        + "parameters: {}\nresources:\n  r:\n    type: OS::Heat::Value\n    properties:\n"
        + "      value:\n        str_replace:\n"
        + f"          template: {'$v' * 10_000}\n"
        + f"          params: {{$v: {'z' * 100_000}}}\n"
    )
    return ["template", "resolve", _write(directory, "replace.yaml", text)]


def repeat_product(directory: Path) -> list[str]:
    """``repeat`` over six lists of 100 items: 10**12 combinations."""
    lists = "".join(
        f"            '%{k}%': &l{k} [" + ", ".join(f"v{i}" for i in range(100)) + "]\n"
        if k == 0
        else f"            '%{k}%': *l0\n"
        for k in range(6)
    )
    text = (
        HEADER
        + "resources:\n  r:\n    type: OS::Heat::Value\n    properties:\n      value:\n"
        + "        repeat:\n          template: '%0%-%1%-%2%-%3%-%4%-%5%'\n"
        + "          for_each:\n"
        + lists
    )
    return ["template", "validate", _write(directory, "product.yaml", text)]


def repeat_nested(directory: Path) -> list[str]:
    """``repeat`` of ``repeat`` of ``repeat``: each level 1,000 copies of the one below."""
    items = "[" + ", ".join(f"v{i}" for i in range(1000)) + "]"
    inner = "'%a%'"
    for level in range(4):
        inner = f"{{repeat: {{template: [{inner}], for_each: {{'%x{level}%': {items}}}}}}}"
    text = (
        HEADER
        + "resources:\n  r:\n    type: OS::Heat::Value\n    properties:\n"
        + f"      value: {inner}\n"
    )
    return ["template", "validate", _write(directory, "nested.yaml", text)]


def group_fanout(directory: Path) -> list[str]:
    """One ResourceGroup whose 100,000 members fan out from a single definition."""
    text = (
        HEADER
        + "resources:\n  group:\n    type: OS::Heat::ResourceGroup\n    properties:\n"
        + "      count: 100000\n      resource_def:\n        type: OS::Heat::None\n"
        + "        properties: {name: 'member-%index%'}\n"
    )
    return ["stack", "create", "--dry-run", "fanout", "-t", _write(directory, "group.yaml", text)]


def many_resources(directory: Path) -> list[str]:
    """100,000 resources in one template (the size limit raised to let it in)."""
    body = "".join(f"  r{i}:\n    type: OS::Heat::None\n" for i in range(100_000))
    path = _write(directory, "many.yaml", HEADER + "resources:\n" + body)
    return ["template", "validate", "--max-template-size", str(50 * 1024 * 1024), path]


def zip_members(directory: Path) -> list[str]:
    """A VNF package of 100,000 small templates."""
    buffer = io.BytesIO()
    template = HEADER + "resources:\n  r:\n    type: OS::Heat::None\n"
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for index in range(100_000):
            archive.writestr(f"t{index}.yaml", template)
    path = directory / "members.zip"
    path.write_bytes(buffer.getvalue())
    return ["lint", str(path)]


def zip_ratio(directory: Path) -> list[str]:
    """A VNF package whose one member inflates 1,000-fold (a zip bomb)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("base.yaml", HEADER + "description: " + "z" * (200 * 1024 * 1024))
    path = directory / "ratio.zip"
    path.write_bytes(buffer.getvalue())
    return ["lint", str(path)]


BOMBS = (
    Bomb("alias-strings", "YAML billion laughs of 10 KB strings", alias_strings, "max-"),
    Bomb("big-template", "100 MB template, --max-template-size raised", big_template, "max-"),
    Bomb("big-json", "100 MB JSON template, --max-template-size raised", big_json, "max-"),
    Bomb("join-aliased", "resolve: list_join over aliased lists", join_aliased, "max-"),
    Bomb("replace-aliased", "resolve: str_replace, 100 KB x 10,000", replace_aliased, "max-"),
    Bomb("repeat-product", "repeat: 10**12 combinations", repeat_product, "max-"),
    Bomb("repeat-nested", "repeat of repeat of repeat", repeat_nested, "max-"),
    Bomb("group-fanout", "stack create: ResourceGroup count 100,000", group_fanout, "max-"),
    Bomb("many-resources", "validate: 100,000 resources", many_resources, "max-"),
    Bomb("zip-members", "lint: zip of 100,000 members", zip_members, "max-"),
    Bomb("zip-ratio", "lint: zip member inflating 1,000x", zip_ratio, "max-"),
)


@dataclass
class Outcome:
    seconds: float
    cpu_seconds: float
    rss_mb: float
    status: int
    stderr: str  # with stdout after it: lint writes its findings there


def run(args: list[str], env: dict[str, str], cap_mb: int, cap_seconds: int) -> Outcome:
    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (cap_mb * 1024 * 1024,) * 2)
        resource.setrlimit(resource.RLIMIT_CPU, (cap_seconds, cap_seconds))

    with tempfile.TemporaryFile() as errors, tempfile.TemporaryFile() as output:
        start = time.perf_counter()
        process = subprocess.Popen(
            [STOKER, *args],
            env=env,
            stdout=output,
            stderr=errors,
            preexec_fn=limits,  # noqa: PLW1509 - no threads in this process
        )
        _, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        errors.seek(0)
        output.seek(0)
        text = errors.read().decode(errors="replace") + output.read(100_000).decode(
            errors="replace"
        )
    return Outcome(
        elapsed,
        usage.ru_utime + usage.ru_stime,
        usage.ru_maxrss / 1024,
        os.waitstatus_to_exitcode(status),
        text,
    )


def verdict(outcome: Outcome, bomb: Bomb) -> str:
    if outcome.status < 0:
        return f"killed (signal {-outcome.status})"
    if "Traceback" in outcome.stderr:
        return "traceback"
    if outcome.status == 0:
        return "accepted (exit 0)"
    finding = next((line for line in outcome.stderr.splitlines() if LOCATED.match(line)), "")
    if not finding:
        last = outcome.stderr.strip().splitlines()[-1:] or ["(nothing)"]
        return f"exit {outcome.status}, not located: {last[0][:100]}"
    if bomb.expect not in finding:
        return f"exit {outcome.status}, located, limit not named: {finding[:100]}"
    return f"exit {outcome.status}, located: {finding[:140]}"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", action="append", help="run only this bomb (repeatable)")
    parser.add_argument("--cap-mb", type=int, default=4096, help="address-space cap per run")
    parser.add_argument("--cap-seconds", type=int, default=60, help="CPU-time cap per run")
    args = parser.parse_args()
    compileall.compile_dir(str(ROOT / "src" / "stoker"), quiet=1)
    chosen = [bomb for bomb in BOMBS if not args.only or bomb.name in args.only]
    with tempfile.TemporaryDirectory() as directory:
        env = {**os.environ, "STOKER_DB_URL": f"sqlite:///{Path(directory, 'bombs.db')}"}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        print(f"load average before: {Path('/proc/loadavg').read_text().split()[:3]}")
        print("| bomb | command | wall | CPU | peak RSS | ending |")
        print("|---|---|---|---|---|---|")
        for bomb in chosen:
            where = Path(directory, bomb.name)
            where.mkdir()
            command = bomb.build(where)
            outcome = run(command, env, args.cap_mb, args.cap_seconds)
            shown = " ".join(
                os.path.relpath(part, where) if part.startswith(str(where)) else part
                for part in command
            )
            print(
                f"| {bomb.name}: {bomb.what} | `stoker {shown}` | {outcome.seconds:.2f} s "
                f"| {outcome.cpu_seconds:.2f} s | {outcome.rss_mb:.0f} MB "
                f"| {verdict(outcome, bomb)} |",
                flush=True,
            )
        print(f"load average after: {Path('/proc/loadavg').read_text().split()[:3]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
