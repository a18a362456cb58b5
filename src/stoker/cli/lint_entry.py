"""``stoker lint`` read without Click, for the command lines CI jobs and users type most.

The ONAP lint of a package is measured as a whole process against a bare YAML load
(benchmarks/lint_process.py): importing Click and building its context is ~50 M of that
process's ~1,450 M instructions, all of it start-up. So `read` takes a command line made
only of paths that exist and can be read and the options ``--profile``, ``-f/--format``
(a report's format), ``--fail-level`` and ``--ignore``, each followed by its value (or
``--option=value``), and `run` lints it. Anything else returns None and Click reads the
line: help, every other option, a value Click would refuse, a missing path, a limit or
shell completion set in the environment, an output stream Click would re-encode. Click's
checks and messages therefore stay the only ones a user meets.

What `run` does is what the Click command does (both call `stoker.cli.lint_report`):
the report on stdout, the summary on stderr, exit status 1 when something is at or above
the fail level; and an error takes the path `stoker.cli.group.StokerGroup.main` and
Click's own ``main`` give it (``error: ...`` and its status). The tests run each
command line both ways and compare what they print and their status.
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import os
import sys
from typing import TextIO

from stoker.records import NamedRecord

#: the options read here, each taking one value; the first name is the canonical one
_OPTIONS = {
    "--profile": "--profile",
    "-f": "--format",
    "--format": "--format",
    "--fail-level": "--fail-level",
    "--ignore": "--ignore",
}


class Line(NamedRecord):
    """A ``stoker lint`` command line as the Click command would receive it."""

    paths: tuple[str, ...]
    profiles: tuple[str, ...]
    fmt: str
    fail_level: str | None
    ignore: tuple[str, ...]


def read(args: list[str]) -> Line | None:
    """The lint command line ``args`` (``sys.argv[1:]``), or None for Click to read."""
    if not args or args[0] != "lint" or not _plain_streams() or _environment_speaks():
        return None
    values: dict[str, list[str]] = {name: [] for name in set(_OPTIONS.values())}
    paths: list[str] = []
    words = args[1:]
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if not word.startswith("-"):
            paths.append(word)
            continue
        name, equals, value = word.partition("=")
        if name not in _OPTIONS or (equals and not name.startswith("--")):
            return None
        if not equals:
            if index == len(words):
                return None
            value = words[index]
            index += 1
        if not value or value.startswith("-"):
            return None
        values[_OPTIONS[name]].append(value)
    return _checked(paths, values)


def _checked(paths: list[str], values: dict[str, list[str]]) -> Line | None:
    """The line if Click would accept every value in it (its choices, its path checks).
    Its imports are most of the linter's: made with the collector paused, as `run` makes
    the rest (importing makes no garbage; ~20 collections walked it)."""
    from stoker.engine.heap import collector_paused

    with collector_paused():
        from stoker.diagnostics import Severity
        from stoker.lint.formats import FORMATTERS
        from stoker.lint.rule import Profile

    profiles = values["--profile"]
    formats = values["--format"]
    levels = values["--fail-level"]
    if not set(profiles) <= {profile.value for profile in Profile}:
        return None
    if not set(formats) <= set(FORMATTERS):  # --list-rules' formats: Click says no
        return None
    if not set(levels) <= {severity.value for severity in Severity}:
        return None
    if not paths or not all(_readable(path) for path in paths):
        return None
    return Line(
        tuple(paths),
        tuple(profiles),
        formats[-1] if formats else "text",
        levels[-1] if levels else None,
        tuple(values["--ignore"]),
    )


def _readable(path: str) -> bool:
    """What ``click.Path(exists=True)`` accepts: it can be stat'ed and read."""
    try:
        os.stat(path)
    except (OSError, ValueError):
        return False
    return os.access(path, os.R_OK)


def _plain_streams() -> bool:
    """stdout and stderr are text files Click would write to as they are (it re-wraps a
    stream whose encoding is ASCII)."""
    for stream in (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None)
        if stream is None or not encoding or getattr(stream, "errors", None) is None:
            return False
        try:
            if codecs.lookup(encoding).name == "ascii":
                return False
        except LookupError:
            return False
    return True


def _environment_speaks() -> bool:
    """A limit set by its variable, or Click's shell completion asked for."""
    from stoker.limits import LIMITS

    if any(limit.envvar in os.environ for limit in LIMITS.values()):
        return True
    return any(name.startswith("_") and name.endswith("_COMPLETE") for name in os.environ)


def run(line: Line) -> int:
    """Lint as ``stoker lint`` does; the exit status. Errors end the process as the Click
    path ends it."""
    from stoker.engine.heap import collector_paused
    from stoker.errors import StokerError, exit_status

    try:
        # The collector stays paused from the imports to the printed report: the lint
        # pauses it for its run anyway, and what is made around the run (the imports, the
        # report) is no garbage; resumed between them, it walked all of it once more.
        with collector_paused():
            from stoker.cli.lint_report import lint_paths
            from stoker.limits import Limits, applied

            with applied(Limits()):  # the default of every limit: none is set (`read`)
                printed = lint_paths(
                    line.paths, None, line.profiles, line.ignore, line.fail_level, line.fmt
                )
        echo(printed.text, sys.stdout)
        echo(printed.summary + "\n", sys.stderr)
    except (EOFError, KeyboardInterrupt):
        echo("\n", sys.stderr)
        echo("error: aborted\n", sys.stderr)
        return 1
    except OSError as error:
        if error.errno == errno.EPIPE:  # `stoker lint ... | head`: the reader left
            _silence_broken_pipes()
            return 1
        if isinstance(error, StokerError):
            echo(f"error: {error}\n", sys.stderr)
            return exit_status(error)
        where = f"{error.filename}: " if error.filename else ""
        echo(f"error: {where}{error.strerror or error}\n", sys.stderr)
        return 1
    except StokerError as error:
        echo(f"error: {error}\n", sys.stderr)
        return exit_status(error)
    return 1 if printed.failed else 0


def echo(text: str, stream: TextIO) -> None:
    """``click.echo``: ANSI escapes removed unless the stream is a terminal, then flushed."""
    if text:
        if "\x1b" in text and not _isatty(stream):
            import re

            text = re.sub(r"\033\[[0-?]*[ -/]*[@-~]", "", text)  # Click's pattern
        stream.write(text)
    stream.flush()


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except Exception:
        return False


def _silence_broken_pipes() -> None:
    """What Click does on a broken pipe: nothing more reaches the reader, and flushing the
    standard streams at exit raises nothing."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            os.dup2(devnull, stream.fileno())
    os.close(devnull)
