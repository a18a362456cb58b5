"""Octavia (load-balancer v2): load balancers with a VIP port from the sandbox's Neutron,
listeners, pools, members and health monitors, with Octavia's ``PENDING_*`` lock."""

from stoker.sandbox.loadbalancer.api import SERVICE

__all__ = ["SERVICE"]
