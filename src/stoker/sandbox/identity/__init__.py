"""Keystone v3: password and token authentication, a catalog of the sandbox's services,
domains, projects, users and roles, and trusts (OS-TRUST). Seeded with the ``Default``
domain, an ``admin`` user (role ``admin`` on project ``admin``) and a ``demo`` user
(``member`` on ``demo``), both with the sandbox's password (``--password``, default
``sandbox``)."""

from stoker.sandbox.identity.api import SERVICE

__all__ = ["SERVICE"]
