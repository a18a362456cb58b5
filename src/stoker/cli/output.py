"""Shared output for every command: formats, columns, masking, diagnostics.

Everything a command prints goes through `emit`, `emit_record` or `emit_rows`. Nothing here
rewrites strings to hide secrets: hidden parameter values are masked where they are shown
as parameters or quoted in a message (see `stoker.parameters`), and outputs derived from
them are marked by the caller (`stoker.definition.sensitive`), so machine output is never
corrupted by a search-and-replace.

The conventions are python-openstackclient's: ``-f table|json|yaml|value|csv`` and ``-c
COLUMN`` (the heading as shown, "Stack Name", or the JSON key, ``stack_name``) on every
listing and show command; ``-f value`` prints bare values, lists joined with commas. Tables
use the terminal's width on a terminal and are never wrapped when output is piped.
"""

from __future__ import annotations

import csv
import functools
import io
import json
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeVar

import click

from stoker.diagnostics import Diagnostic, Severity

if TYPE_CHECKING:
    import yaml

    # Rich is imported when a table is drawn: an import -f json never needs
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

FORMATS = ("table", "json", "yaml")
#: listing and show commands (python-openstackclient's formatters)
RECORD_FORMATS = ("table", "json", "yaml", "value", "csv")
#: the width of a table written to a pipe or file: no wrapping, whatever the rows hold
_UNLIMITED = 1_000_000


def console() -> Console:
    """Where tables go: the terminal's width on a terminal; unwrapped when piped."""
    from rich.console import Console

    if sys.stdout.isatty():
        return Console(soft_wrap=False)
    return Console(soft_wrap=False, width=_UNLIMITED, color_system=None)


_F = TypeVar("_F", bound=Callable[..., Any])


def output_format(choices: Sequence[str], default: str) -> Callable[[_F], _F]:
    """``-f/--format``: what ``-f`` means in every command (the output format)."""
    return click.option(
        "-f",
        "--format",
        "fmt",
        type=click.Choice(list(choices)),
        default=default,
        show_default=True,
        help="Output format.",
    )


format_option = output_format(RECORD_FORMATS, "table")
#: for commands that print a document (a template, an environment): YAML or JSON
document_format_option = output_format(("yaml", "json"), "yaml")
column_option = click.option(
    "-c",
    "--column",
    "columns",
    multiple=True,
    metavar="COLUMN",
    help="Show only this column (its heading or JSON key); repeatable.",
)


def record_options(command: _F) -> _F:
    """``-f`` and ``-c``: how a command prints its record or rows."""
    return format_option(column_option(command))


_UNICODE_BREAKS = ("\x85", "\u2028", "\u2029")


@functools.cache
def _block_dumper() -> type[yaml.SafeDumper]:
    """A dumper writing multi-line strings as literal blocks, as a person would write them
    in a template. Made on first use: PyYAML is imported only by the commands that print
    YAML (``stack list`` prints a table, and its start-up time is felt)."""
    import yaml

    class BlockDumper(yaml.SafeDumper):
        pass

    def represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
        # PyYAML writes Unicode line breaks unquoted, and its reader then splits on them:
        # only the double-quoted style escapes them.
        if any(brk in value for brk in _UNICODE_BREAKS):
            return dumper.represent_scalar("tag:yaml.org,2002:str", value, style='"')
        style = "|" if "\n" in value else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    BlockDumper.add_representer(str, represent_str)
    BlockDumper.add_multi_representer(str, represent_str)
    # Values read straight from a template (a Mappings entry that Fn::FindInMap returns,
    # say) are its position-keeping nodes: dicts and lists to everything else, so to YAML
    # too (PyYAML's safe representers match exact types only).
    BlockDumper.add_multi_representer(dict, yaml.SafeDumper.represent_dict)
    BlockDumper.add_multi_representer(list, yaml.SafeDumper.represent_list)
    return BlockDumper


def to_yaml(data: Any) -> str:
    import yaml

    return yaml.dump(
        data,
        Dumper=_block_dumper(),
        sort_keys=False,
        default_flow_style=False,
        allow_unicode=True,
        width=100,
    )


def to_json(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False, default=str)


def emit(
    data: Any,
    fmt: str,
    table: Callable[[Any, Console], None] | None = None,
) -> None:
    if fmt == "json":
        click.echo(to_json(data))
    elif fmt == "yaml" or table is None:
        click.echo(to_yaml(data), nl=False)
    else:
        table(data, console())


def simple_table(
    rows: Iterable[dict[str, Any]],
    columns: Sequence[str],
    title: str | None = None,
    no_wrap: Sequence[str] = (),
) -> Table:
    """A table of ``rows``; ``no_wrap`` columns (names, types) are never broken mid-word."""
    from rich.table import Table

    result = Table(title=title, show_lines=False, title_justify="left")
    for column in columns:
        result.add_column(heading(column), overflow="fold", no_wrap=column in no_wrap)
    for row in rows:
        result.add_row(*(_cell(row.get(column)) for column in columns))
    return result


@dataclass(slots=True)
class Line:
    """A line of a view: a lead-in shown bold on a terminal (a label), then plain text."""

    lead: str
    text: str = ""


@dataclass(slots=True)
class TablePart:
    """A table of a view: `simple_table`'s arguments."""

    rows: Sequence[dict[str, Any]]
    columns: Sequence[str]
    title: str | None = None
    no_wrap: Sequence[str] = ()


def print_view(parts: Sequence[Line | TablePart]) -> None:
    """Lines and tables on stdout, drawn by Rich (`console`)."""
    from rich.text import Text

    out = console()
    for part in parts:
        if isinstance(part, Line):
            out.print(Text(part.lead, style="bold") + Text(part.text))
        else:
            out.print(simple_table(part.rows, part.columns, part.title, part.no_wrap))


def heading(column: str) -> str:
    """The table heading of a JSON key: ``stack_name`` → ``Stack Name``."""
    return column.replace("_", " ").title()


def _cell(value: Any) -> Text:
    """Cell text, never read as Rich markup (a pattern like ``[a-z]*`` must show as is)."""
    from rich.text import Text

    if value is None:
        return Text("")
    if isinstance(value, dict):
        return Text("\n".join(f"{k}={_plain_value(v)}" for k, v in value.items()))
    return Text(_plain_value(value))


def _plain_value(value: Any) -> str:
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


#: ``stack create``'s and ``stack update``'s --verbose (`shown`)
verbose_option = click.option(
    "--verbose",
    is_flag=True,
    help="Also print informational findings: parameter_defaults no template declares "
    "(Heat drops them silently; `stoker lint` reports them too), custom constraints not "
    "checked offline.",
)


def shown(found: Iterable[Diagnostic], verbose: bool) -> list[Diagnostic]:
    """What a create or an update prints: informational findings only when asked (Heat
    prints nothing for them; a TripleO create would list some two hundred
    parameter_defaults that no template declares)."""
    return [d for d in found if verbose or d.severity is not Severity.INFO]


def report(diagnostics: Iterable[Diagnostic], given: str | None = None) -> None:
    """Print findings to stderr, errors first, one ``file:line:column: path: message`` each.

    ``given`` is the template path as the user typed it: when it is relative, files found
    from it (nested templates, get_file) are shown relative too, so every path in the
    report is one the user can paste.
    """
    relative = given is not None and not os.path.isabs(given)
    ordered = sorted(diagnostics, key=lambda d: (not d.is_error,))
    seen: set[tuple[str, tuple[str, ...]]] = set()
    for diagnostic in ordered:
        if relative:
            diagnostic = _relative(diagnostic)
        key = (diagnostic.render(), diagnostic.notes)
        if key in seen:
            continue  # the same template used in several places says the same thing once
        seen.add(key)
        click.echo(diagnostic.render(), err=True)
        for note in diagnostic.notes:
            click.echo(f"    note: {note}", err=True)


def _relative(diagnostic: Diagnostic) -> Diagnostic:
    span = diagnostic.span
    if span is None or not os.path.isabs(span.file):
        return diagnostic
    shown = os.path.relpath(span.file)
    if shown.startswith(os.pardir):
        return diagnostic  # outside the working directory: the absolute path is clearer
    return replace(diagnostic, span=span._replace(file=shown))


def _key(column: str, keys: Sequence[str]) -> str | None:
    """The key ``column`` names: the key itself or its heading, in any case."""
    if column in keys:
        return column
    wanted = column.strip().lower().replace(" ", "_").replace("-", "_")
    return next((k for k in keys if k.lower() == wanted or heading(k).lower() == wanted), None)


def select_columns(keys: Sequence[str], columns: Sequence[str]) -> list[str]:
    """The keys ``-c`` chose, in the order given; a usage error names the choices."""
    chosen, unknown = [], []
    for column in columns:
        key = _key(column, keys)
        if key is None:
            unknown.append(column)
        elif key not in chosen:
            chosen.append(key)
    if unknown:
        shown = ", ".join(f"{k} ({heading(k)})" for k in keys)
        raise click.UsageError(f"unknown column(s) {', '.join(unknown)}; choose from {shown}")
    return chosen


#: a null field as cliff's table and value formatters print it (``str(None)``): ``stack
#: list`` shows it in the Updated Time column of a stack never updated, as Heat's client does
NULL_TEXT = "None"


def _with_nulls_shown(row: dict[str, Any]) -> dict[str, Any]:
    """A record or row for a table: null fields as cliff prints them (`NULL_TEXT`). Only
    `emit_record` and `emit_rows` do this; stoker's own views (`simple_table` called
    directly) leave a cell empty where there is nothing to show."""
    return {k: NULL_TEXT if v is None else v for k, v in row.items()}


def value_text(value: Any) -> str:
    """A value as ``-f value`` prints it: lists of scalars joined with commas (``a,b``),
    mappings and nested lists as JSON, None as cliff prints it (`NULL_TEXT`)."""
    if value is None:
        return NULL_TEXT
    if isinstance(value, list | tuple) and all(
        not isinstance(item, dict | list | tuple) for item in value
    ):
        return ",".join("" if item is None else str(item) for item in value)
    return _plain_value(value)


def _csv(rows: list[dict[str, Any]], keys: Sequence[str]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n")
    writer.writerow([heading(k) for k in keys])
    for row in rows:
        # None and numbers go to the writer as they are, as cliff's csv formatter passes
        # them: it writes None as an empty field
        writer.writerow([_csv_field(row.get(k)) for k in keys])
    return buffer.getvalue()


def _csv_field(value: Any) -> Any:
    if value is None or isinstance(value, int | float):
        return value
    return value_text(value)


def emit_record(
    data: dict[str, Any],
    fmt: str,
    columns: Sequence[str] = (),
    table: Callable[[Any, Console], None] | None = None,
) -> None:
    """One object (``stack show``): a Field/Value table (or ``table``, when no column is
    chosen), json, yaml, csv, or bare values one a line."""
    if columns:
        data = {key: data[key] for key in select_columns(list(data), columns)}
    if fmt == "value":
        for value in data.values():
            click.echo(value_text(value))
    elif fmt == "csv":
        click.echo(_csv([data], list(data)), nl=False)
    elif fmt == "table" and table is not None and not columns:
        table(data, console())
    elif fmt == "table":
        rows = [{"field": k, "value": v} for k, v in _with_nulls_shown(data).items()]
        print_view([TablePart(rows, ["field", "value"], no_wrap=["field"])])
    else:
        emit(data, fmt, None)


def emit_rows(
    rows: list[dict[str, Any]],
    fmt: str,
    columns: Sequence[str] = (),
    default_columns: Sequence[str] = (),
    no_wrap: Sequence[str] | None = None,
) -> None:
    """A list of objects (``stack list``): a table of the default columns, or all fields."""
    keys: list[str] = list(default_columns)
    if rows:
        every = list(dict.fromkeys(k for row in rows for k in row))
        keys = select_columns(every, columns) if columns else keys or every
    elif columns:
        keys = select_columns(list(default_columns), columns) if default_columns else []
    if columns or fmt in ("table", "value", "csv"):
        rows = [{k: row.get(k) for k in keys} for row in rows]
    if fmt == "value":
        for row in rows:
            click.echo(" ".join(value_text(v) for v in row.values()))
    elif fmt == "csv":
        click.echo(_csv(rows, keys), nl=False)
    elif fmt == "table":
        shown = [_with_nulls_shown(row) for row in rows]
        print_view([TablePart(shown, keys, no_wrap=keys[:1] if no_wrap is None else no_wrap)])
    else:
        emit(rows, fmt, None)
