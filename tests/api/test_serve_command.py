"""``stoker serve``'s own refusals, before any server starts."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

from stoker.cli.main import cli

pytestmark = pytest.mark.heavy


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


def test_keystone_options_are_checked_before_serving(tmp_path: Path) -> None:
    broken = tmp_path / "policy.yaml"
    broken.write_text('"stacks:create": "role:member or"\n')
    keystone = ["serve", "--auth", "keystone", "--auth-url", "http://127.0.0.1:1/v3"]
    for args, message in (
        ([*keystone, "--policy-file", str(broken)], f"{broken}:1:18: rule 'stacks:create'"),
        ([*keystone, "--service-user", "heat"], "--service-user needs --service-password"),
        (["serve", "--policy-file", str(broken)], "apply to --auth keystone only"),
    ):
        result = CliRunner().invoke(cli, args, env={"STOKER_SERVICE_PASSWORD": None})
        assert result.exit_code == 2, result.output
        assert message in result.output
        assert "Traceback" not in result.output


@pytest.mark.slow  # loads openstacksdk's clouds.yaml reader (~0.4 s)
def test_an_unknown_cloud_is_refused_before_serving() -> None:
    result = CliRunner().invoke(cli, ["serve", "--os-cloud", "no-such-cloud"])
    assert result.exit_code == 2, result.output
    assert "--os-cloud no-such-cloud:" in result.output
    assert "Traceback" not in result.output


def test_idle_connections_outlive_the_clients_poll_period(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """python-heatclient's `--wait` polls every 5 s on a pooled connection: a server that
    closes idle connections at 5 s (uvicorn's default) races it, and the client fails with
    "Remote end closed connection without response" (seen in CI)."""
    from stoker.cli import listening

    seen: dict[str, object] = {}

    def record(listener: socket.socket, config: object) -> None:
        listener.close()
        seen["timeout_keep_alive"] = getattr(config, "timeout_keep_alive", None)

    monkeypatch.setattr(listening, "serve_on", record)
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "s.db"), "serve", "--port", "0"])
    assert result.exit_code == 0, result.output
    keep_alive = seen["timeout_keep_alive"]
    assert isinstance(keep_alive, int) and keep_alive >= 30
