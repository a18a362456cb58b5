"""Ports made together, asked for in one call: Neutron's bulk create.

A stack of a hundred servers, each on its own port, makes a hundred ports at once. One
POST each is a hundred requests at the start of the create, each costing the client's
CPU and the cloud's, and every server waits behind them for its port. Neutron
takes a list instead (``{"ports": [...]}``) and makes all of it or none of it (its API
guarantees a bulk create atomic). So the port creates asked while one is in flight go
out together in the next call (`Coalescer`: the first alone, at once, the rest in the
calls after it).

Nothing else about a create changes: each port's record notes the create under way
(with the name it will carry) before any call, and its id the moment the answer comes
(`CloudResource.create`); a process killed in between finds it by that name. A lone port
is made by the single call it always was. A bulk call the cloud refuses made nothing:
each of its ports is then asked for by itself, so each one succeeds or fails as it would
have alone (with the same retries and the same messages).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from stoker.cloud.batch import Coalescer
from stoker.cloud.rest import remember, send
from stoker.errors import CloudError
from stoker.resources.base import ResourceContext

if TYPE_CHECKING:
    from stoker.resources.openstack.neutron import NeutronResource

#: the most creates one call carries (its body, and the cloud's time on one request)
SIZE = 50


class _Create:
    """One create waiting for a bulk call (a key hashed by identity)."""

    __slots__ = ("context", "name")

    def __init__(self, context: ResourceContext, name: str) -> None:
        self.context = context
        self.name = name


async def create(resource: NeutronResource, context: ResourceContext, name: str) -> dict[str, Any]:
    """Make ``resource``'s cloud object for ``context`` with the creates of the same kind
    asked at the same time; what the cloud showed of it (with its ``id``)."""
    what = f"network.create_{resource.kind}"
    coalescer = resource.cloud.coalescer(
        f"{what} bulk",
        lambda: Coalescer(resource.cloud, what, functools.partial(_post, resource), size=SIZE),
    )
    answer = await coalescer.ask(_Create(context, name))
    if isinstance(answer, CloudError):
        raise answer
    if answer is None:  # the bulk call was refused, so made nothing: this one by itself
        return await resource.ask_alone(context, name)
    return dict(answer)


def _post(resource: NeutronResource, connection: Any, asks: list[_Create]) -> dict[_Create, Any]:
    """The creates of ``asks``: one POST of their bodies (a single one for a lone ask).
    Each ask's answer is what the cloud made of it, its own failure (a `CloudError`, not
    raised: the others go on), or None (the bulk call was refused: ask alone)."""
    what = f"network.create_{resource.kind}"
    answers: dict[_Create, Any] = {}
    bodies: dict[_Create, dict[str, Any]] = {}
    for ask in asks:
        try:
            bodies[ask] = resource.cloud.run(
                what, functools.partial(resource.create_body, context=ask.context, name=ask.name)
            )
        except CloudError as error:
            answers[ask] = error
    if len(bodies) == 1:
        [(ask, body)] = bodies.items()
        try:
            answers[ask] = resource.cloud.run(what, lambda c: resource.post(c, body))
        except CloudError as error:
            answers[ask] = error
    elif bodies:
        plural = resource.collection.replace("-", "_")
        path, body = f"/{resource.collection}", {plural: list(bodies.values())}
        response = send(connection, "network", "POST", path, body)
        if response.status_code < 400:
            made = response.json()[plural]
            for ask, item in zip(bodies, made, strict=True):
                remember(connection, resource.kind, str(item["id"]), str(item["id"]))
                answers[ask] = dict(item)
    return answers
