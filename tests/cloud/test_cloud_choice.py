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


def test_polling_sees_a_one_second_build_soon_after():
    # A server ready after 1 s is seen by the poll that follows it: the polls' times
    # (running sums of the delays) step past 1 s by less than 0.3 s, after six polls.
    times = list(itertools.accumulate(itertools.islice(POLL.delays(), 20)))
    after = next(t for t in times if t >= 1.0)
    assert after - 1.0 < 0.3
    assert sum(1 for t in times if t < 1.0) == 6
    assert max(itertools.islice(POLL.delays(), 100)) == 3.0  # a slow volume: every 3 s


def test_transient_retries_give_up_within_a_minute():
    assert RETRY.total(RETRIES) == pytest.approx(0.5 + 1 + 2 + 4 + 8 + 8)
