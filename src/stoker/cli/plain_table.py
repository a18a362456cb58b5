"""A table written to a pipe or file without importing Rich, byte for byte as Rich draws it.

``stoker stack list | grep`` and CI jobs read tables from a pipe, where Rich draws them
unwrapped (see `stoker.cli.output.console`) and without colour. Importing Rich and
measuring cells is a large part of a short command, so the plain case is drawn here: a
``box.HEAVY_HEAD`` table, one space of padding each side, cells left-justified. It is
taken only where the result is certainly Rich's: cells of printable ASCII lines (one
column per character, nothing Rich would interpret; a cell of several lines, as a
``stack show`` of parameters, has no empty line) and headings of letters, digits and
single spaces (a heading is Rich markup, where ``[`` and ``:name:`` mean something).
Anything else returns None and Rich draws it; a test compares the two on random tables.
A title (``template validate``'s "Parameters") is taken when it is such a heading that
fits the table's width: Rich pads it to that width, and wraps a longer one.
A line of text (`plain_line`) is taken when it is printable ASCII and line breaks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_HEADING = re.compile(r"[A-Za-z0-9]+( [A-Za-z0-9]+)*")
_CELL = re.compile(r"[\x20-\x7e]*")
_LINE = re.compile(r"[\x20-\x7e\n]*")
#: longer lines are wrapped by Rich even on a pipe (`stoker.cli.output.console`'s width)
_WIDEST = 100_000


def plain_line(text: str) -> str | None:
    """What Rich prints for ``Text(text)`` (with its final newline), or None."""
    if len(text) > _WIDEST or not _LINE.fullmatch(text):
        return None
    return text + "\n"


def plain_table(
    headings: Sequence[str], rows: Sequence[Sequence[str]], title: str | None = None
) -> str | None:
    """The table Rich would print (with its final newline), or None where Rich must."""
    if not headings or not rows:
        return None
    if not all(_HEADING.fullmatch(h) for h in headings):
        return None
    if not all(len(row) == len(headings) for row in rows):
        return None
    split = [[cell.split("\n") for cell in row] for row in rows]
    for row in split:
        for cell in row:
            if len(cell) > 1 and not all(cell):
                return None  # an empty line in a cell: left to Rich
            if not all(map(_CELL.fullmatch, cell)):
                return None
    widths = [
        max(len(h), *(len(text) for row in split for text in row[i]))
        for i, h in enumerate(headings)
    ]
    if not all(widths) or sum(widths) > _WIDEST:
        return None
    total = sum(widths) + 3 * len(widths) + 1
    if title is not None and (not _HEADING.fullmatch(title) or len(title) > total):
        return None

    def line(cells: Sequence[str], vertical: str) -> str:
        padded = (f" {cell.ljust(width)} " for cell, width in zip(cells, widths, strict=True))
        return vertical + vertical.join(padded) + vertical

    def rule(left: str, middle: str, right: str, horizontal: str) -> str:
        return left + middle.join(horizontal * (w + 2) for w in widths) + right

    lines = [] if title is None else [title.ljust(total)]
    lines += [rule("┏", "┳", "┓", "━"), line(headings, "┃"), rule("┡", "╇", "┩", "━")]
    for row in split:
        height = max(map(len, row))
        for index in range(height):
            lines.append(line([c[index] if index < len(c) else "" for c in row], "│"))
    lines.append(rule("└", "┴", "┘", "─"))
    return "\n".join(lines) + "\n"
