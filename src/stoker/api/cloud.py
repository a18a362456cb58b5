"""``stoker serve --os-cloud NAME``: the cloud the API's stacks act in.

The CLI makes a cloud's constraint checks and ``Fn::GetAZs`` answers active for one
command (context variables, `stoker.parameters.cloud_checks`,
`stoker.definition.context.zones_from`); the server makes them active for every request
and for its lifespan, so the operations a request starts (tasks, which copy the
request's context) and the recovery sweeps of the lifespan see the same cloud.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.types import ASGIApp, Receive, Scope, Send

if TYPE_CHECKING:
    from stoker.cloud import Cloud


class CloudScope:
    """ASGI middleware: everything under it runs with ``cloud``'s checks and zones."""

    def __init__(self, app: ASGIApp, cloud: Cloud) -> None:
        from stoker.cloud.constraints import CloudNames, cloud_constraints

        self.app = app
        names = CloudNames(cloud)
        self.checks = cloud_constraints(cloud, names)
        self.zones = names.zones

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        from stoker.definition import zones_from
        from stoker.parameters import cloud_checks

        with cloud_checks(self.checks), zones_from(self.zones):
            await self.app(scope, receive, send)
