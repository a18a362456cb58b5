"""How one service's backend asks another's, when both run.

Nova boots a server on a network by asking Neutron's backend for a port, attaches a volume
by asking Cinder's, and checks an image with Glance's; each asks `Hub.find` for the
Protocol below and goes without when no backend provides it (a sandbox without Neutron
boots servers without addresses). Calls are in process, inside the caller's transaction:
when the server cannot be created, the port made for it is not left behind.

Every method raises `stoker.sandbox.http_errors.ApiError` subclasses for the caller's
user mistakes (`NotFound` for an unknown network or volume, `Conflict` for a port in use
or a volume not ``available``); the caller turns them into its own service's answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from stoker.sandbox.service import RequestContext


@runtime_checkable
class TokenAuthority(Protocol):
    """Keystone: who a token belongs to."""

    def context_for(self, token: str) -> RequestContext | None: ...


@dataclass(frozen=True)
class FixedIp:
    subnet_id: str
    ip_address: str
    version: int  # 4 or 6


@dataclass(frozen=True)
class PortAddress:
    """A port of a server as Nova shows it in ``addresses`` and ``os-interface``."""

    port_id: str
    network_id: str
    network_name: str
    mac_address: str
    fixed_ips: tuple[FixedIp, ...]
    #: floating IPs associated with the port
    floating_ips: tuple[str, ...] = field(default=())
    status: str = "ACTIVE"


@runtime_checkable
class PortProvider(Protocol):
    """Neutron, as Nova needs it."""

    def plug(
        self,
        project_id: str,
        server_id: str,
        *,
        network_id: str | None = None,
        port_id: str | None = None,
        fixed_ip: str | None = None,
        security_groups: tuple[str, ...] = (),
    ) -> str:
        """Bind the existing ``port_id`` to the server (``device_id``, ``device_owner
        compute:nova``), or create a port on ``network_id`` (with ``fixed_ip`` when given,
        in ``security_groups``, names or ids, else the project's ``default`` group) bound
        to it; return the port's id."""

    def unplug(self, port_id: str, *, delete: bool) -> None:
        """Unbind the port from its server; delete it when Nova created it. A port that
        is gone already is no error."""

    def addresses(self, port_ids: list[str]) -> list[PortAddress]:
        """The ports that still exist, in the order given."""

    def auto_network(self, project_id: str) -> str | None:
        """The network ``networks: auto`` boots on: the project's one network, else a
        shared one; None when there is none (the server then has no address)."""


@runtime_checkable
class VolumeProvider(Protocol):
    """Cinder, as Nova needs it."""

    def attach(self, project_id: str, volume_id: str, server_id: str, device: str) -> None:
        """Mark the volume ``in-use`` by the server at ``device``."""

    def detach(self, volume_id: str, server_id: str) -> None:
        """Make the volume ``available`` again; a volume that is gone is no error."""


@runtime_checkable
class ImageProvider(Protocol):
    """Glance, as Nova needs it."""

    def find_image(self, project_id: str, image_id: str) -> dict[str, Any] | None:
        """The image's Glance document if the project can use it."""

    def snapshot(
        self, project_id: str, name: str, server_id: str, base_image_id: str, metadata: Any
    ) -> str:
        """A new private, active image of a server (Nova's ``createImage``); its id."""
