"""The groups whose commands are imported on use (`stoker.cli.group.LazyGroup`): ``stoker``
and ``stoker stack``. Their ``--help`` lists the commands from a table, without importing
them; it must read exactly as it does once they are imported."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest

from stoker.cli.group import LazyGroup, cli
from stoker.cli.stack import stack


@pytest.mark.parametrize("group", [cli, stack], ids=["stoker", "stack"])
def test_each_command_in_a_table_is_the_one_named_with_its_own_help(group: LazyGroup) -> None:
    ctx = click.Context(group)
    for name, (module, attribute, help_text) in group.lazy.items():
        command = group.get_command(ctx, name)
        assert command is getattr(importlib.import_module(module), attribute), name
        assert not command.hidden, name
        stand_in = click.Command(name, help=help_text)
        for limit in range(20, 200):  # Click shortens the help to fit the terminal
            shown = command.get_short_help_str(limit)
            assert stand_in.get_short_help_str(limit) == shown, (name, limit)


_LOADED = """
import sys
import click
from stoker.cli.group import cli
stack = cli.get_command(click.Context(cli), "stack")
for group in (cli, stack):
    for name in group.list_commands(click.Context(group)):
        group.get_command(click.Context(group), name)
cli(sys.argv[1:], prog_name="stoker")
"""


@pytest.mark.heavy
@pytest.mark.parametrize("args", [["--help"], ["stack", "--help"]])
@pytest.mark.parametrize("columns", ["60", "80", "200"])
def test_help_reads_the_same_before_and_after_the_commands_are_imported(
    args: list[str], columns: str
) -> None:
    env = {**os.environ, "COLUMNS": columns}
    lazy = [str(Path(sys.executable).with_name("stoker")), *args]
    fresh = subprocess.run(lazy, capture_output=True, text=True, check=True, env=env)
    every = [sys.executable, "-c", _LOADED, *args]
    loaded = subprocess.run(every, capture_output=True, text=True, check=True, env=env)
    assert fresh.stdout == loaded.stdout
