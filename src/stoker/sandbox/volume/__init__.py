"""Cinder v3: volumes (``creating`` → ``available`` → ``in-use``), the attach actions and
the attachments API as Nova uses them, volume types, extend. Its backend is also Nova's
`VolumeProvider`."""

from stoker.sandbox.volume.api import SERVICE

__all__ = ["SERVICE"]
