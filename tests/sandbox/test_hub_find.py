"""`Hub.find` remembers which backend provides a protocol, as long as the backends are
the same ones (a test or a service swapping one in is seen at once)."""

from __future__ import annotations

from typing import Any

from stoker.sandbox.app import create_app
from stoker.sandbox.interfaces import TokenAuthority


class Authority:
    def context_for(self, token: str) -> Any:
        return None


def test_find_remembers_until_the_backends_change() -> None:
    hub = create_app().state.hub
    keystone = hub.find(TokenAuthority)
    assert keystone is hub.backends["identity"] and hub.find(TokenAuthority) is keystone
    hub.backends["identity"] = other = Authority()
    assert hub.find(TokenAuthority) is other
    hub.backends.pop("identity")
    assert hub.find(TokenAuthority) is None
