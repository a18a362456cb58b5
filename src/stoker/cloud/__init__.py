"""Choosing and opening the OpenStack cloud the OpenStack resource types talk to.

Nothing here imports openstacksdk at import time: a stack that uses no cloud type (and
``stoker --help``, ``stack list``) never pays for it.
"""

from stoker.cloud.backoff import Backoff
from stoker.cloud.choice import HOW_TO_CHOOSE, CloudChoice, choose_cloud
from stoker.cloud.connection import Cloud

__all__ = ["HOW_TO_CHOOSE", "Backoff", "Cloud", "CloudChoice", "choose_cloud"]
