"""Choosing the cloud as OpenStack tools do, and the backoff arithmetic (pure parts)."""

from __future__ import annotations

import itertools

import pytest

from stoker.cloud import Backoff, CloudChoice, choose_cloud
from stoker.cloud.backoff import POLL, RETRIES, RETRY


def test_the_option_wins_over_os_cloud():
    assert choose_cloud("mine", {"OS_CLOUD": "theirs"}) == CloudChoice("mine")
    assert choose_cloud(None, {"OS_CLOUD": "theirs"}) == CloudChoice("theirs")


def test_os_variables_describe_a_cloud_without_a_name():
    assert choose_cloud(None, {"OS_AUTH_URL": "http://x/identity"}) == CloudChoice(None)
    assert choose_cloud(None, {"OS_USERNAME": "admin"}) is None
    assert choose_cloud(None, {}) is None


def test_descriptions_name_the_cloud():
    assert CloudChoice("sandbox").describe() == "cloud 'sandbox'"
    assert "OS_*" in CloudChoice(None).describe()


def test_backoff_grows_by_its_factor_up_to_its_cap():
    delays = list(itertools.islice(Backoff(first=1.0, factor=2.0, cap=5.0).delays(), 6))
    assert delays == [1.0, 2.0, 4.0, 5.0, 5.0, 5.0]
    assert Backoff(first=1.0, factor=2.0, cap=5.0).total(4) == 12.0


def test_backoff_holds_its_first_delay_steady_times():
    delays = list(itertools.islice(Backoff(first=1.0, factor=2.0, cap=5.0, steady=3).delays(), 6))
    assert delays == [1.0, 1.0, 1.0, 2.0, 4.0, 5.0]


def test_polling_sees_a_one_second_build_soon_after():
    # A server ready after 1 s is seen by the poll that follows it: the polls' times
    # (running sums of the delays) are 0.1 s apart up to 1 s and step past 1.05 s by
    # less than 0.2 s (it was 0.3 s when the delays grew from the first poll).
    times = list(itertools.accumulate(itertools.islice(POLL.delays(), 200)))
    assert times[9] == pytest.approx(1.0)
    after = next(t for t in times if t >= 1.05)
    assert after - 1.05 < 0.2
    assert sum(1 for t in times if t < 0.95) == 9
    # not hammering a cloud: over a minute, 42 polls (33 when the delays grew at once)
    assert sum(1 for t in times if t <= 60.0) == 42
    assert max(itertools.islice(POLL.delays(), 100)) == 3.0  # a slow volume: every 3 s


def test_transient_retries_give_up_within_a_minute():
    assert RETRY.total(RETRIES) == pytest.approx(0.5 + 1 + 2 + 4 + 8 + 8)


def test_a_cloud_that_cannot_be_used_is_one_line_saying_so(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from stoker.cli.main import cli

    template = tmp_path / "t.yaml"
    template.write_text(
        "heat_template_version: wallaby\nresources:\n  n: {type: OS::Neutron::Net}\n"
    )
    monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", str(tmp_path / "absent.yaml"))
    db = str(tmp_path / "s.db")
    unknown = CliRunner().invoke(
        cli, ["--db", db, "stack", "--os-cloud", "nope", "create", "s", "-t", str(template)]
    )
    assert unknown.exit_code == 1
    assert unknown.stderr.startswith(
        "error: cloud 'nope' cannot be used: Cloud nope was not found;"
    )
    assert "OS_CLOUD=NAME" in unknown.stderr and "Traceback" not in unknown.stderr
    monkeypatch.delenv("OS_CLOUD", raising=False)
    for key, value in {
        "OS_AUTH_URL": "http://127.0.0.1:9/identity", "OS_USERNAME": "u", "OS_PASSWORD": "p",
        "OS_PROJECT_NAME": "p", "OS_USER_DOMAIN_NAME": "Default",
        "OS_PROJECT_DOMAIN_NAME": "Default",
    }.items():  # fmt: skip
        monkeypatch.setenv(key, value)
    unreachable = CliRunner().invoke(cli, ["--db", db, "stack", "create", "s", "-t", str(template)])
    assert unreachable.exit_code == 1
    assert unreachable.stderr.startswith("error: the cloud of the OS_* variables cannot be reached")
    assert unreachable.stderr.count("\n") == 1
    listed = CliRunner().invoke(cli, ["--db", db, "stack", "list", "-f", "value"])
    assert listed.stdout == ""  # refused before the stack was written
