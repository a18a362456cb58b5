"""The Rich-free table for pipes is byte for byte what Rich prints there, or declines."""

from __future__ import annotations

import io
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.text import Text

from stoker.cli.output import (
    _UNLIMITED,
    Line,
    TablePart,
    _cell_text,
    _plain_part,
    heading,
    simple_table,
)
from stoker.cli.plain_table import plain_table

pytestmark = pytest.mark.heavy


def rich_text(rows: list[dict[str, Any]], columns: list[str]) -> str:
    """What `stoker.cli.output.console` prints to a pipe."""
    buffer = io.StringIO()
    console = Console(file=buffer, soft_wrap=False, width=_UNLIMITED, color_system=None)
    console.print(simple_table(rows, columns, no_wrap=columns[:1]))
    return buffer.getvalue()


def plain_text(rows: list[dict[str, Any]], columns: list[str]) -> str | None:
    cells = [[_cell_text(row.get(column)) for column in columns] for row in rows]
    return plain_table([heading(column) for column in columns], cells)


def test_a_stack_list_is_drawn_plain_as_rich_draws_it() -> None:
    columns = ["id", "stack_name", "stack_status", "creation_time", "updated_time"]
    rows = [
        {
            "id": "00eecf2b-32b0-4442-b24f-dac32bb2a7f1",
            "stack_name": f"stack-{index}" * index,
            "stack_status": "CREATE_COMPLETE",
            "creation_time": "2026-11-23T14:12:40Z",
            "updated_time": None,
        }
        for index in range(4)
    ]
    text = plain_text(rows, columns)
    assert text is not None
    assert text == rich_text(rows, columns)


def test_what_rich_would_interpret_is_left_to_rich() -> None:
    row = {"a": "x"}
    assert plain_text([row], ["a"]) is not None
    assert plain_text([], ["a"]) is None  # Rich's empty table
    assert plain_text([{"a[b]": "x"}], ["a[b]"]) is None  # markup in a heading
    assert plain_text([{"a": "é"}], ["a"]) is None  # a wide or combining character
    assert plain_text([{"a": "x\n\ny"}], ["a"]) is None  # an empty line in a cell
    assert plain_text([{"a": "x\n"}], ["a"]) is None


_KEYS = st.text(alphabet="abcxyz_09:[]/ é", min_size=1, max_size=8)
_VALUES = st.one_of(
    st.none(),
    st.integers(),
    st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x7F), max_size=12),
    st.text(max_size=6),
    st.dictionaries(st.text(alphabet="kv", max_size=2), st.integers(), max_size=2),
)


@settings(max_examples=300, deadline=None)
@given(
    columns=st.lists(_KEYS, min_size=1, max_size=4, unique=True),
    values=st.lists(st.lists(_VALUES, min_size=4, max_size=4), max_size=4),
)
def test_plain_table_is_rich_or_declines(columns: list[str], values: list[list[Any]]) -> None:
    rows = [dict(zip(columns, row, strict=False)) for row in values]
    text = plain_text(rows, columns)
    if text is not None:
        assert text == rich_text(rows, columns)


_PLAIN_KEYS = st.from_regex(r"[a-z0-9]{1,5}(_[a-z0-9]{1,5}){0,2}", fullmatch=True)
_PLAIN_VALUES = st.one_of(
    st.none(),
    st.integers(),
    st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=12),
    st.dictionaries(st.sampled_from("kj"), st.integers(), max_size=2),  # lines: k=1, j=2
    st.lists(st.text(alphabet="ab ", min_size=1, max_size=4), max_size=3).map("\n".join),
)


@settings(max_examples=200, deadline=None)
@given(
    columns=st.lists(_PLAIN_KEYS, min_size=1, max_size=4, unique=True),
    values=st.lists(st.lists(_PLAIN_VALUES, min_size=4, max_size=4), min_size=1, max_size=4),
)
def test_plain_cells_are_drawn_plain(columns: list[str], values: list[list[Any]]) -> None:
    rows = [dict(zip(columns, row, strict=False)) for row in values]
    text = plain_text(rows, columns)
    assert text is not None
    assert text == rich_text(rows, columns)


def rich_view(parts: list[Line | TablePart]) -> str:
    """What `print_view` prints through Rich (on a terminal, or where plain declines)."""
    buffer = io.StringIO()
    console = Console(file=buffer, soft_wrap=False, width=_UNLIMITED, color_system=None)
    for part in parts:
        if isinstance(part, Line):
            console.print(Text(part.lead, style="bold") + Text(part.text))
        else:
            console.print(simple_table(part.rows, part.columns, part.title, part.no_wrap))
    return buffer.getvalue()


def plain_view(parts: list[Line | TablePart]) -> str | None:
    drawn = [_plain_part(part) for part in parts]
    return None if None in drawn else "".join(text for text in drawn if text is not None)


def test_template_validates_view_is_drawn_plain_as_rich_draws_it() -> None:
    parts: list[Line | TablePart] = [
        Line("Description: ", "A folded description.\n"),
        TablePart(
            [{"name": "port", "type": "Number", "constraints": {"MinValue": 1}}],
            ["name", "type", "constraints"],
            "Parameters",
            no_wrap=["name", "type"],
        ),
        Line("Group Site: ", "port, name"),
        Line("", "No parameters."),
    ]
    text = plain_view(parts)
    assert text is not None
    assert text == rich_view(parts)
    assert text.splitlines()[2].startswith("Parameters ")  # padded to the table's width


def test_a_title_rich_would_wrap_or_interpret_is_left_to_rich() -> None:
    table = TablePart([{"a": "x"}], ["a"], "Parameters")  # wider than the table
    assert _plain_part(table) is None
    assert _plain_part(TablePart([{"a": "x" * 20}], ["a"], "[b]x")) is None
    assert _plain_part(TablePart([{"a": "x" * 20}], ["a"], "Parameters")) is not None
    assert _plain_part(Line("Description: ", "é")) is None
    assert _plain_part(Line("Description: ", "tab\there")) is None


_LINE_TEXT = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x7F), max_size=30)
_TITLES = st.one_of(st.none(), st.text(alphabet="Pa rm[]:", min_size=1, max_size=14))


@settings(max_examples=200, deadline=None)
@given(
    lines=st.lists(st.tuples(_LINE_TEXT, _LINE_TEXT), max_size=3),
    title=_TITLES,
    columns=st.lists(_PLAIN_KEYS, min_size=1, max_size=3, unique=True),
    values=st.lists(st.lists(_PLAIN_VALUES, min_size=3, max_size=3), max_size=3),
)
def test_plain_view_is_rich_or_declines(
    lines: list[tuple[str, str]],
    title: str | None,
    columns: list[str],
    values: list[list[Any]],
) -> None:
    rows = [dict(zip(columns, row, strict=False)) for row in values]
    parts: list[Line | TablePart] = [Line(lead, text) for lead, text in lines]
    parts.insert(len(parts) // 2, TablePart(rows, columns, title, no_wrap=columns[:1]))
    text = plain_view(parts)
    if text is not None:
        assert text == rich_view(parts)
