"""``stoker serve``'s own refusals, before any server starts."""

from __future__ import annotations

from click.testing import CliRunner

from stoker.cli.main import cli


def test_keystone_auth_without_a_keystone_is_refused_clearly() -> None:
    result = CliRunner().invoke(cli, ["serve", "--auth", "keystone"], env={"OS_AUTH_URL": None})
    assert result.exit_code == 2
    assert "--auth keystone needs --auth-url (or OS_AUTH_URL)" in result.output
    assert "Traceback" not in result.output


def test_an_unusable_database_is_one_line() -> None:
    result = CliRunner().invoke(
        cli, ["--db", "postgresql://nobody@127.0.0.1:1/none", "serve", "--port", "0"]
    )
    assert result.exit_code == 1
    assert result.output.startswith("error: cannot open database postgresql://nobody@")
    assert "Traceback" not in result.output


def test_help_names_the_options() -> None:
    result = CliRunner().invoke(cli, ["serve", "--help"])
    assert result.exit_code == 0
    options = ("--host", "--port", "--auth", "--auth-url", "--workers", "--max-stacks-per-project")
    for option in options:
        assert option in result.output
