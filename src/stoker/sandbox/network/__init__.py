"""Neutron v2.0: networks (provider and external attributes), subnets with real IP
allocation from their pools, ports, routers and their interfaces, floating IPs, security
groups and rules, answering as Neutron does (``{"NeutronError": ...}`` bodies with
Neutron's exception names). Its backend is also Nova's `PortProvider`."""

from stoker.sandbox.network.api import SERVICE

__all__ = ["SERVICE"]
