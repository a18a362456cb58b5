"""The shell blocks of the documentation, and the markers that say how each one runs.

Every fenced block whose language is ``sh``, ``bash``, ``shell`` or ``console`` in
README.md, docs/*.md and examples/**/README.md is a command a reader will type, so
tests/docs/test_doc_blocks.py runs it. An HTML comment on the line just before the fence
changes how (the convention every page follows, see GUIDE):

- ``<!-- doctest: skip: REASON -->``: cannot run here; the test reports REASON;
- ``<!-- doctest: slow -->``: runs in the slow tier only (benchmarks, long runs);
- ``<!-- doctest: sandbox -->`` / ``<!-- doctest: serve -->``: the runner starts a
  ``stoker sandbox serve`` / ``stoker serve`` first (the block's own line that starts
  one in the background, when it has one) and waits until it answers.

Words may be combined (``<!-- doctest: sandbox, slow -->``). Unmarked blocks of
docs/benchmarks.md are benchmarks, so they are slow. A usage synopsis (placeholders such
as ``NAME|TEMPLATE``) is reference, not a command: it belongs in a ``text`` block. A
marker that is misspelt, stands before no shell block, or an unlabelled block that holds
commands is an error, so no block silently stops being run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

SHELL_LANGUAGES = frozenset({"sh", "bash", "shell", "console"})
WORDS = frozenset({"slow", "sandbox", "serve"})
#: pages whose unmarked blocks are slow
SLOW_PAGES = frozenset({"docs/benchmarks.md"})

_MARKER = re.compile(r"^\s*<!--\s*doctest:\s*(?P<body>.*?)\s*-->\s*$")
_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
#: the first words of a line that is a command (for unlabelled blocks that hold some)
_COMMAND = re.compile(r"^\s*(\$ |\.venv/bin/|stoker |openstack |curl |\./scripts/)")


class MarkerError(ValueError):
    """A marker or a block the runner cannot take as written."""


@dataclass(frozen=True)
class Block:
    page: str  # the page's path relative to the repository, with /
    line: int  # the line of the opening fence, from 1
    language: str
    script: str  # the commands, as the shell gets them
    skip: str | None = None
    slow: bool = False
    sandbox: bool = False
    serve: bool = False

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def pages(root: Path) -> list[Path]:
    """README.md, docs/*.md and examples/**/README.md, in a stable order."""
    found = [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    found += sorted((root / "examples").rglob("README.md"))
    return [page for page in found if page.is_file()]


def parse_marker(body: str) -> dict[str, object]:
    """The settings a marker's text gives: ``skip: REASON`` or words of WORDS."""
    if body == "skip" or body.startswith("skip:"):
        reason = body[len("skip") :].lstrip(":").strip()
        if not reason:
            raise MarkerError("`skip` needs a reason: <!-- doctest: skip: REASON -->")
        return {"skip": reason}
    words = [word for word in re.split(r"[,\s]+", body) if word]
    unknown = [word for word in words if word not in WORDS]
    if not words or unknown:
        raise MarkerError(
            f"unknown doctest marker {body!r}: use skip: REASON, or {', '.join(sorted(WORDS))}"
        )
    return {word: True for word in words}


def console_commands(lines: list[str]) -> list[str]:
    """The commands of a ``console`` block: ``$ `` lines and their continuations; the
    other lines are output shown to the reader."""
    commands: list[str] = []
    continued = False
    for line in lines:
        if continued:
            commands.append(line)
        elif line.startswith("$ "):
            commands.append(line[2:])
        else:
            continue
        continued = line.rstrip().endswith("\\")
    return commands


def blocks_of(page: str, text: str) -> list[Block]:
    """Every shell block of one page, with its marker applied. Raises MarkerError."""
    lines = text.splitlines()
    blocks: list[Block] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        marker = _MARKER.match(line)
        opening = _FENCE.match(line)
        if marker is not None:
            following = _FENCE.match(lines[index + 1]) if index + 1 < len(lines) else None
            if following is None or following["info"].strip() not in SHELL_LANGUAGES:
                raise MarkerError(
                    f"{page}:{index + 1}: a doctest marker must stand on the line just "
                    "before a ```sh, ```bash, ```shell or ```console fence"
                )
        if opening is None:
            index += 1
            continue
        indent, fence = opening["indent"], opening["fence"]
        language = opening["info"].strip().split(" ")[0] if opening["info"].strip() else ""
        body: list[str] = []
        end = index + 1
        while end < len(lines):
            closing = lines[end].strip()
            if closing.startswith(fence) and set(closing) == {fence[0]}:
                break
            raw = lines[end]
            body.append(raw[len(indent) :] if raw.startswith(indent) else raw.lstrip())
            end += 1
        if language == "" and any(_COMMAND.match(each) for each in body):
            raise MarkerError(
                f"{page}:{index + 1}: a block of commands without a language: label it "
                "```sh so the docs test runs it, or ```text if it is a synopsis"
            )
        if language in SHELL_LANGUAGES:
            settings: dict[str, object] = {}
            if index > 0 and (previous := _MARKER.match(lines[index - 1])) is not None:
                try:
                    settings = parse_marker(previous["body"])
                except MarkerError as error:
                    raise MarkerError(f"{page}:{index}: {error}") from None
            elif page in SLOW_PAGES:
                settings = {"slow": True}
            commands = console_commands(body) if language == "console" else body
            blocks.append(
                Block(page, index + 1, language, "\n".join(commands) + "\n", **settings)  # type: ignore[arg-type]
            )
        index = end + 1
    return blocks
