"""Running a fuzz case through ``stoker template validate|resolve|convert`` and ``lint``.

The commands run in this process through Click's runner on the real ``stoker`` entry point
(`stoker.cli.main.cli`): the error handler, the exit statuses and the output formats are
the ones users meet, and no process is started per input.

The oracle: every run ends in success, or in a refusal through stoker's own error path (a
`StokerError`, a Click usage error) whose findings are located (``file:line:column``).
A failure is any other exception escaping the command, an internal-error finding (E0100,
"internal error"), an exit status other than 0, 1 or 2, or a refusal that names no place.
"""

from __future__ import annotations

import json
import os
import tempfile
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner

from stoker.cli.main import cli

from .mutations import NESTED, Case

COMMANDS = ("validate", "resolve", "convert", "lint")
_LOCATED_SUFFIXES = (".yaml", ".json")


@dataclass(frozen=True)
class Failure:
    """What went wrong: a class to count it under, and the detail to fix it from."""

    command: str
    kind: str  # "uncaught", "internal error", "unlocated", "exit status"
    signature: str  # exception class and where it was raised, or the message
    detail: str

    def __str__(self) -> str:
        return f"{self.command}: {self.kind}: {self.signature}\n{self.detail}"


class Workspace:
    """Where cases are written: one directory per corpus directory, holding links to that
    directory's files, so a mutated template still finds what it reads with get_file."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.mirrors: dict[Path, Path] = {}

    def mirror(self, directory: Path) -> Path:
        found = self.mirrors.get(directory)
        if found is None:
            found = self.root / f"d{len(self.mirrors)}"
            found.mkdir()
            for entry in directory.iterdir():
                if not entry.name.startswith("fuzz_input"):
                    (found / entry.name).symlink_to(entry)
            self.mirrors[directory] = found
        return found

    def write(self, case: Case) -> tuple[Path, list[Path]]:
        directory = self.mirror(case.origin.parent)
        template = directory / f"fuzz_input{case.suffix}"
        template.write_bytes(case.template)
        environments = []
        for index, text in enumerate(case.environments):
            path = directory / f"fuzz_input{'_env' if index == 0 else f'_env{index}'}.yaml"
            path.write_bytes(text)
            environments.append(path)
        written = [template, *environments]
        if case.nested is not None:
            nested = directory / NESTED
            nested.write_bytes(case.nested)
            written.append(nested)
        for stale in directory.glob("fuzz_input*"):
            if stale not in written:
                stale.unlink()
        return template, environments


@contextmanager
def workspace() -> Iterator[Workspace]:
    with tempfile.TemporaryDirectory(prefix="stoker-fuzz-") as root:
        yield Workspace(Path(root))


def _arguments(command: str, template: Path, environments: list[Path], case: Case) -> list[str]:
    if command == "convert":
        return [
            "template",
            "convert",
            str(template),
            "--to",
            "json" if len(case.steps) % 2 else "yaml",
        ]
    if command == "lint":
        profile = ["--profile", "onap"] if len(case.template) % 5 == 0 else []
        nested = [str(template.with_name(NESTED))] if case.nested is not None else []
        return ["lint", *profile, "-f", "json", str(template), *map(str, environments), *nested]
    arguments = ["template", command, str(template)]
    for environment in environments:
        arguments += ["-e", str(environment)]
    for key, value in case.parameters.items():
        arguments += ["--parameter", f"{key}={value}"]
    # the output formats vary with the input (its size), so every printer sees odd values
    size = len(case.template)
    if command == "validate":
        shown = ["-f", ("json", "yaml", "table", "json")[size % 4]]
        return [*arguments, *shown, *(["--show-nested"] if size % 3 == 0 else [])]
    return [*arguments, "-f", ("yaml", "json")[size % 2]]


def _where(error: BaseException) -> str:
    """The innermost frame of stoker's own code that the exception passed through."""
    frames = traceback.extract_tb(error.__traceback__)
    ours = [frame for frame in frames if f"{os.sep}stoker{os.sep}" in frame.filename]
    frame = (ours or frames)[-1] if (ours or frames) else None
    if frame is None:
        return "?"
    return f"{Path(frame.filename).name}:{frame.lineno} ({frame.name})"


def _located(line: str) -> bool:
    """``path:line:column: ...`` for a file this run read."""
    head, _, rest = line.partition(":")
    parts = rest.split(":", 2)
    return (
        len(parts) == 3
        and parts[0].isdigit()
        and parts[1].isdigit()
        and (head.endswith(_LOCATED_SUFFIXES) or "/" in head)
    )


def run_command(
    runner: CliRunner, command: str, case: Case, template: Path, envs: list[Path]
) -> Failure | None:
    arguments = _arguments(command, template, envs, case)
    result = runner.invoke(cli, arguments, prog_name="stoker")
    error = result.exception
    if error is not None and not isinstance(error, SystemExit):
        detail = "".join(traceback.format_exception(error)[-12:])
        return Failure(command, "uncaught", f"{type(error).__name__} at {_where(error)}", detail)
    output = result.stdout + result.stderr
    if "internal error" in output or "E0100" in output:
        line = next(
            (line for line in output.splitlines() if "internal error" in line or "E0100" in line),
            "",
        )
        message = line
        if command == "lint":
            message = _lint_internal(result.stdout) or line
        signature = message.split("internal error", 1)[-1].strip()[:160]
        return Failure(command, "internal error", signature, output[-3000:])
    if result.exit_code not in (0, 1, 2):
        return Failure(command, "exit status", str(result.exit_code), output[-3000:])
    if command == "lint":
        unlocated = _lint_unlocated(result.stdout)
        if unlocated is not None:
            return Failure(command, "unlocated", unlocated, output[-3000:])
    elif result.exit_code == 1:
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        # a value given with --parameter has no place in a file: its name is its place
        given = tuple(f"parameters.{name}: " for name in case.parameters)
        excused = [line for line in lines if given and line.startswith(given)]
        findings = [
            line
            for line in lines
            if not line.startswith(("error:", "    note:")) and line not in excused
        ]
        if excused and not findings:
            return None
        if not any(_located(line) for line in findings) and not _names_file(lines):
            return Failure(
                command, "unlocated", lines[-1] if lines else "(nothing said)", output[-3000:]
            )
    return None


def _names_file(lines: list[str]) -> bool:
    """A one-line error that names the file it is about (a file that cannot be read)."""
    return any("fuzz_input" in line for line in lines)


def _lint_unlocated(stdout: str) -> str | None:
    """The first finding of a JSON lint report that names no line, or why the report
    cannot be read."""
    try:
        report = json.loads(stdout)
    except ValueError:
        return "the report is not JSON"
    for finding in report.get("findings", []):
        if finding.get("line") is None:
            return f"{finding.get('rule')}: {finding.get('message')}"[:160]
    return None


def _lint_internal(stdout: str) -> str | None:
    try:
        report = json.loads(stdout)
    except ValueError:
        return None
    findings = report.get("findings", report) if isinstance(report, dict) else report
    for finding in findings if isinstance(findings, list) else []:
        if isinstance(finding, dict) and finding.get("rule") == "E0100":
            return str(finding.get("message"))
    return None


def run_case(
    runner: CliRunner, space: Workspace, case: Case, commands: tuple[str, ...] = COMMANDS
) -> list[Failure]:
    template, environments = space.write(case)
    failures = []
    for command in commands:
        failure = run_command(runner, command, case, template, environments)
        if failure is not None:
            failures.append(failure)
    return failures


def runner() -> CliRunner:
    return CliRunner(env={"STOKER_DB_URL": None, "COLUMNS": "100"})
