"""requests reads the environment (proxies, CA bundle, netrc) on every request unless
told not to; stoker tells it not to only where those reads can find nothing but the CA
bundle, which keystoneauth's session is then given once."""

from __future__ import annotations

from pathlib import Path

import pytest
import requests

from stoker.cloud.connection import _environment_read_once


class Keystone:
    verify: object = True


def _clean(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy", "NETRC"):
        for variant in (name, name.upper()):
            monkeypatch.delenv(variant, raising=False)
    monkeypatch.delenv("REQUESTS_CA_BUNDLE", raising=False)
    monkeypatch.delenv("CURL_CA_BUNDLE", raising=False)
    monkeypatch.setenv("HOME", str(home))


def test_nothing_to_find_means_no_reads_and_the_bundle_given_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _clean(monkeypatch, tmp_path)
    monkeypatch.setenv("no_proxy", "localhost")  # alone, it changes nothing
    monkeypatch.setenv("CURL_CA_BUNDLE", "/etc/ca.pem")
    keystone, session = Keystone(), requests.Session()
    _environment_read_once(keystone, session)
    assert session.trust_env is False and keystone.verify == "/etc/ca.pem"
    own = Keystone()
    own.verify = "/mine.pem"  # a bundle of the cloud's own config stays
    _environment_read_once(own, requests.Session())
    assert own.verify == "/mine.pem"


@pytest.mark.parametrize("setting", ["https_proxy", "netrc"])
def test_a_proxy_or_a_netrc_keeps_requests_reading_the_environment(
    setting: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _clean(monkeypatch, tmp_path)
    if setting == "netrc":
        (tmp_path / ".netrc").write_text("machine cloud login a password b\n")
    else:
        monkeypatch.setenv(setting, "http://proxy:3128")
    keystone, session = Keystone(), requests.Session()
    _environment_read_once(keystone, session)
    assert session.trust_env is True and keystone.verify is True
