"""Choosing and opening the OpenStack cloud the OpenStack resource types talk to.

Nothing here imports openstacksdk at import time: a stack that uses no cloud type (and
``stoker --help``, ``stack list``) never pays for it. The names below are imported from
their modules on first use: every stack command asks `choice` whether a cloud is chosen,
and only a chosen cloud needs the connection (and its thread pool and retries).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stoker.lazy import names_from

if TYPE_CHECKING:
    from stoker.cloud.backoff import Backoff
    from stoker.cloud.choice import HOW_TO_CHOOSE, CloudChoice, choose_cloud
    from stoker.cloud.connection import Cloud

_WHERE = {
    "HOW_TO_CHOOSE": "stoker.cloud.choice",
    "Backoff": "stoker.cloud.backoff",
    "Cloud": "stoker.cloud.connection",
    "CloudChoice": "stoker.cloud.choice",
    "choose_cloud": "stoker.cloud.choice",
}

__all__ = ["HOW_TO_CHOOSE", "Backoff", "Cloud", "CloudChoice", "choose_cloud"]


__getattr__ = names_from(__name__, _WHERE)
