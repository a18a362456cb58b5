"""Nova v2.1 (microversions 2.1 to 2.96): servers that build, resize and reboot on a
clock, flavors, keypairs (generated ones too), server groups, metadata, interfaces and
volume attachments (through Neutron's and Cinder's backends when they run), availability
zones, limits and quotas."""

from stoker.sandbox.compute.api import SERVICE

__all__ = ["SERVICE"]
