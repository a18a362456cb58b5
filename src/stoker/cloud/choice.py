"""Which cloud: as every OpenStack tool chooses it.

``--os-cloud NAME`` (or ``OS_CLOUD``) names an entry of clouds.yaml (found where
openstacksdk looks: ``OS_CLIENT_CONFIG_FILE``, ``./clouds.yaml``,
``~/.config/openstack/clouds.yaml``, ``/etc/openstack/clouds.yaml``); without a name, the
``OS_*`` variables (``OS_AUTH_URL`` and the rest) describe the cloud. Deciding this reads
only the environment, so a command can tell whether a cloud is chosen without importing
openstacksdk.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

HOW_TO_CHOOSE = (
    "choose a cloud with --os-cloud NAME or OS_CLOUD=NAME (an entry of clouds.yaml, found "
    "through OS_CLIENT_CONFIG_FILE or ~/.config/openstack/clouds.yaml; `stoker sandbox "
    "clouds-yaml` prints one for the local sandbox), or set OS_AUTH_URL and the other "
    "OS_* variables"
)


@dataclass(frozen=True, slots=True)
class CloudChoice:
    """The chosen cloud: a clouds.yaml entry by ``name``, or (``name`` None) the ``OS_*``
    variables."""

    name: str | None

    def describe(self) -> str:
        return f"cloud {self.name!r}" if self.name else "the cloud of the OS_* variables"


def choose_cloud(
    option: str | None, environ: Mapping[str, str] | None = None
) -> CloudChoice | None:
    """The cloud chosen by ``--os-cloud`` (``option``) or the environment; None if none."""
    env = os.environ if environ is None else environ
    name = option or env.get("OS_CLOUD")
    if name:
        return CloudChoice(name)
    if env.get("OS_AUTH_URL"):
        return CloudChoice(None)
    return None
