"""Shared output for every command: formats (table/json/yaml), masking, diagnostics.

Everything a command prints goes through `emit`, which masks hidden parameter values
wherever they appear, so no command can leak one by accident.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import click
import yaml
from rich.console import Console
from rich.table import Table
from rich.text import Text

from stoker.diagnostics import Diagnostic

MASK = "******"
FORMATS = ("table", "json", "yaml")


class _BlockDumper(yaml.SafeDumper):
    """Multi-line strings as literal blocks, as a person would write them in a template."""


_UNICODE_BREAKS = ("\x85", "\u2028", "\u2029")


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    # PyYAML writes Unicode line breaks unquoted, and its reader then splits on them:
    # only the double-quoted style escapes them.
    if any(brk in value for brk in _UNICODE_BREAKS):
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style='"')
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_BlockDumper.add_representer(str, _represent_str)
_BlockDumper.add_multi_representer(str, _represent_str)


def to_yaml(data: Any) -> str:
    return yaml.dump(
        data,
        Dumper=_BlockDumper,
        sort_keys=False,
        default_flow_style=False,
        allow_unicode=True,
        width=100,
    )


def to_json(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False, default=str)


def mask(data: Any, secrets: Sequence[str]) -> Any:
    """Replace every occurrence of a secret in any string of ``data``."""
    if not secrets:
        return data
    if isinstance(data, str):
        for secret in secrets:
            if secret and secret in data:
                data = data.replace(secret, MASK)
        return data
    if isinstance(data, dict):
        return {mask(k, secrets): mask(v, secrets) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [mask(v, secrets) for v in data]
    if isinstance(data, int | float) and not isinstance(data, bool) and str(data) in secrets:
        return MASK
    return data


def emit(
    data: Any,
    fmt: str,
    table: Callable[[Any, Console], None] | None = None,
    secrets: Sequence[str] = (),
) -> None:
    data = mask(data, secrets)
    if fmt == "json":
        click.echo(to_json(data))
    elif fmt == "yaml" or table is None:
        click.echo(to_yaml(data), nl=False)
    else:
        table(data, Console(soft_wrap=False))


def simple_table(
    rows: Iterable[dict[str, Any]],
    columns: Sequence[str],
    title: str | None = None,
    no_wrap: Sequence[str] = (),
) -> Table:
    """A table of ``rows``; ``no_wrap`` columns (names, types) are never broken mid-word."""
    result = Table(title=title, show_lines=False, title_justify="left")
    for column in columns:
        result.add_column(
            column.replace("_", " ").title(), overflow="fold", no_wrap=column in no_wrap
        )
    for row in rows:
        result.add_row(*(_cell(row.get(column)) for column in columns))
    return result


def _cell(value: Any) -> Text:
    """Cell text, never read as Rich markup (a pattern like ``[a-z]*`` must show as is)."""
    if value is None:
        return Text("")
    if isinstance(value, dict):
        return Text("\n".join(f"{k}={_plain_value(v)}" for k, v in value.items()))
    return Text(_plain_value(value))


def _plain_value(value: Any) -> str:
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def report(diagnostics: Iterable[Diagnostic], secrets: Sequence[str] = ()) -> None:
    """Print findings to stderr, errors first, one ``file:line:column: path: message`` each."""
    ordered = sorted(diagnostics, key=lambda d: (not d.is_error,))
    seen: set[tuple[str, tuple[str, ...]]] = set()
    for diagnostic in ordered:
        key = (diagnostic.render(), diagnostic.notes)
        if key in seen:
            continue  # the same template used in several places says the same thing once
        seen.add(key)
        click.echo(mask(diagnostic.render(), secrets), err=True)
        for note in diagnostic.notes:
            click.echo(mask(f"    note: {note}", secrets), err=True)


RECORD_FORMATS = ("table", "json", "yaml", "value")


def _select(data: dict[str, Any], columns: Sequence[str]) -> dict[str, Any]:
    if not columns:
        return data
    unknown = [c for c in columns if c not in data]
    if unknown:
        raise click.UsageError(
            f"unknown column(s) {', '.join(unknown)}; choose from {', '.join(data)}"
        )
    return {c: data[c] for c in columns}


def emit_record(
    data: dict[str, Any], fmt: str, columns: Sequence[str] = (), secrets: Sequence[str] = ()
) -> None:
    """One object (``stack show``): a Field/Value table, json, yaml, or bare values."""
    data = mask(_select(data, columns), secrets)
    if fmt == "value":
        for value in data.values():
            click.echo(_plain_value(value) if value is not None else "")
    elif fmt == "table":
        rows = [{"field": k, "value": v} for k, v in data.items()]
        Console(soft_wrap=False).print(simple_table(rows, ["field", "value"], no_wrap=["field"]))
    else:
        emit(data, fmt, None)


def emit_rows(
    rows: list[dict[str, Any]],
    fmt: str,
    columns: Sequence[str] = (),
    default_columns: Sequence[str] = (),
    secrets: Sequence[str] = (),
) -> None:
    """A list of objects (``stack list``): a table of the default columns, or all fields."""
    if columns:
        rows = [_select(row, columns) for row in rows]
    elif fmt in ("table", "value") and default_columns:
        rows = [{c: row.get(c) for c in default_columns} for row in rows]
    rows = mask(rows, secrets)
    if fmt == "value":
        for row in rows:
            click.echo(" ".join(_plain_value(v) if v is not None else "" for v in row.values()))
    elif fmt == "table":
        shown = list(columns or default_columns or (rows[0].keys() if rows else []))
        Console(soft_wrap=False).print(simple_table(rows, shown, no_wrap=shown[:1]))
    else:
        emit(rows, fmt, None)
