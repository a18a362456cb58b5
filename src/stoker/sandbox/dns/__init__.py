"""Designate (DNS v2): zones (``PENDING`` → ``ACTIVE``) and their recordsets."""

from stoker.sandbox.dns.api import SERVICE

__all__ = ["SERVICE"]
