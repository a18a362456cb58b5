"""Glance v2: images (seeded with a cirros and an ubuntu image), upload and download of
their data, JSON-patch updates, tags, deactivation, listing with filters."""

from stoker.sandbox.image.api import SERVICE

__all__ = ["SERVICE"]
