"""`stoker sandbox`: a local OpenStack that speaks the real REST APIs.

Built as moto builds its fakes: one subpackage per service, each a *backend* (the models and
the rules the real service enforces, kept in the sandbox's own database) plus thin REST
handlers over it. `stoker.sandbox.app.create_app` composes the services on one host:port,
devstack-style (``/identity/v3``, ``/compute/v2.1``, ``/image/v2``, ...), and Keystone's
catalog points at them, so openstacksdk and the ``openstack`` CLI work unchanged.

The sandbox imports nothing of the engine, the store or the resource types (an
import-linter contract): it is a cloud, not a part of stoker's engine.
"""
