"""Octavia's types: the load balancer, its listeners, pools, members and health monitors.

Octavia locks a load balancer while it configures any change under it: a create, update
or delete asked meanwhile is refused with 409 "... is immutable and cannot be updated".
That refusal means "nothing was done, ask again", so these types ask again (with backoff,
until the operation's timeout), as Heat's Octavia resources do; any other 409 (a listener
port already in use) is a failure. Each resource is ready when its
``provisioning_status`` is ``ACTIVE`` (``ERROR`` fails it); a delete waits for the 404.

A member lives under its pool (``/lbaas/pools/{pool}/members/{id}``): the pool's id is
kept in the record before the create is asked, so polls and deletes after a restart find
it. Members and health monitors have no name in Heat's schema; a create cut off by a
crash finds its member by address and port in the pool, its monitor as the pool's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, ClassVar, NamedTuple, TypeVar

from stoker.cloud.backoff import Backoff
from stoker.cloud.rest import find_id, remember, request
from stoker.errors import CloudError
from stoker.resources.base import ResourceContext, ResourceView
from stoker.resources.openstack.base import (
    ApiResource,
    CloudResource,
    first_id,
    pause,
)

T = TypeVar("T")

#: waiting for a busy load balancer: soon at first, then every few seconds
BUSY = Backoff(first=0.2, factor=1.5, cap=3.0)
#: the key in a member's record of the pool it lives in
PARENT = "parent_id"


def busy(error: CloudError) -> bool:
    """Whether Octavia refused because the load balancer is busy (PENDING_*)."""
    return error.status == 409 and "immutable" in str(error)


class Reference(NamedTuple):
    """A property that names another object, sent as that object's id (looked up as
    `find_id` does, as a ``kind`` of ``service``)."""

    prop: str
    field: str
    kind: str
    #: whether an update may remove it (sent as null then); else it is sent only when given
    clearable: bool = False
    service: str = "load_balancer"


class Parent(NamedTuple):
    """The object another lives under (a member under its pool): the property naming it,
    its kind in the SDK's calls and its collection in the path."""

    prop: str
    kind: str
    collection: str


class OctaviaResource(ApiResource):
    """An Octavia object at ``/lbaas/<collection>/<id>`` under key ``<key>``."""

    service = "load_balancer"
    key: ClassVar[str]
    ready_statuses: ClassVar[frozenset[str]] = frozenset({"ACTIVE"})
    #: the properties passed through as they are, each as the API field of its name
    passed: ClassVar[tuple[str, ...]] = ()
    #: the properties naming other objects
    references: ClassVar[tuple[Reference, ...]] = ()
    #: the object this one lives under (its path names it; it belongs to its project)
    parent: ClassVar[Parent | None] = None

    def base_path(self, data: Mapping[str, Any]) -> str:
        if self.parent is None:
            return f"/lbaas/{self.collection}"
        return f"/lbaas/{self.parent.collection}/{data.get(PARENT)}/{self.collection}"

    # -- the cloud's side -------------------------------------------------------------
    def translate(self, connection: Any, properties: Mapping[str, Any]) -> dict[str, Any]:
        """Properties (all, or the changed ones) as the API's fields."""
        body = {
            prop: properties[prop]
            for prop in self.passed
            if prop in properties and properties[prop] is not None
        }
        if properties.get("tenant_id") and self.parent is None:
            body["project_id"] = properties["tenant_id"]
        for ref in self.references:
            value = properties.get(ref.prop)
            if value:
                body[ref.field] = find_id(connection, ref.service, ref.kind, str(value))
            elif ref.clearable and ref.prop in properties:
                body[ref.field] = None
        return body

    def make(self, connection: Any, context: ResourceContext, name: str) -> dict[str, Any]:
        body = self.translate(connection, dict(context.properties))
        if self.name_property:
            body["name"] = name
        made = self.post(connection, body, context.data)
        remember(connection, self.key, str(made["id"]), str(made["id"]))
        return made

    def find_for(self, connection: Any, name: str, context: ResourceContext) -> str | None:
        return first_id(self.listing(connection, context.data, {"name": name}))

    # -- the handlers -----------------------------------------------------------------
    def is_ready(self, context: ResourceContext, shown: Mapping[str, Any]) -> bool:
        status = str(shown.get("provisioning_status") or "").upper()
        if status in self.failed_statuses:
            raise CloudError(f"{self.show_call}: {context.physical_id} went to {status}")
        return status in self.ready_statuses

    async def while_busy(self, context: ResourceContext, what: str, call: Any) -> Any:
        """``call`` through the cloud, asked again while the load balancer is busy (and on
        the cloud's other "not now" answers, as every call)."""
        return await self.until_free(context, lambda: self.cloud.call(what, call))

    async def until_free(self, context: ResourceContext, ask: Callable[[], Awaitable[T]]) -> T:
        """``ask()``, asked again (with backoff) while the load balancer is busy."""
        delays = BUSY.delays()
        while True:
            try:
                return await ask()
            except CloudError as error:
                if not busy(error):
                    raise
            await pause(context, next(delays))

    async def ask_change(self, context: ResourceContext, what: str, call: Any) -> Any:
        """A change (the delete) is asked again while the load balancer is busy."""
        return await self.while_busy(context, what, call)

    #: only 429 and 503: Octavia's 409s say the load balancer is busy (nothing was made:
    #: `_make` asks again) or the port or address is taken (by another)
    create_retried = frozenset({429, 503})

    async def _make(self, context: ResourceContext, name: str) -> dict[str, Any]:
        """The create (see `CloudResource._make`), asked again while the load balancer is
        busy."""
        make = super()._make
        return await self.until_free(context, lambda: make(context, name))

    async def create(self, context: ResourceContext) -> None:
        parent = self.parent
        if parent is not None and PARENT not in context.data:
            named = str(context.properties[parent.prop])
            context.data[PARENT] = await self.cloud.call(
                f"load_balancer.find_{parent.kind}",
                lambda c: find_id(c, "load_balancer", parent.kind, named),
            )
        await super().create(context)

    async def update(self, context: ResourceContext, previous: ResourceView) -> None:
        physical_id, new, old = self.updating(context, previous)
        changed = {k: v for k, v in new.items() if old.get(k) != v}
        kind = self.show_call.rpartition("get_")[2]
        what = f"load_balancer.update_{kind}"
        data = dict(context.data)

        def apply(connection: Any) -> None:
            body = self.translate(connection, changed)
            for prop in self.passed:
                if prop in changed and changed[prop] is None:
                    body[prop] = None  # a property removed: back to the API's default
            if self.name_property and self.name_property in changed:
                body["name"] = self.cloud_name(context)
            if body:
                path = f"{self.base_path(data)}/{physical_id}"
                request(connection, "load_balancer", "PUT", path, what, {self.key: body})

        await self.while_busy(context, what, apply)
        await self.refresh(context)


class LoadBalancer(OctaviaResource):
    type_name = "OS::Octavia::LoadBalancer"
    show_call = "load_balancer.get_load_balancer"
    collection, key = "loadbalancers", "loadbalancer"
    passed = ("description", "admin_state_up", "vip_address", "provider", "availability_zone")
    references = (
        Reference("vip_subnet", "vip_subnet_id", "subnet", service="network"),
        Reference("flavor", "flavor_id", "flavor"),
    )
    live_attributes = frozenset({"pools"})


class Listener(OctaviaResource):
    type_name = "OS::Octavia::Listener"
    show_call = "load_balancer.get_listener"
    collection, key = "listeners", "listener"
    passed = (
        "description",
        "admin_state_up",
        "protocol",
        "protocol_port",
        "connection_limit",
        "default_tls_container_ref",
        "sni_container_refs",
        "allowed_cidrs",
    )
    references = (
        Reference("loadbalancer", "loadbalancer_id", "load_balancer"),
        Reference("default_pool", "default_pool_id", "pool", clearable=True),
    )
    live_attributes = frozenset({"default_pool_id"})


class Pool(OctaviaResource):
    type_name = "OS::Octavia::Pool"
    show_call = "load_balancer.get_pool"
    collection, key = "pools", "pool"
    passed = ("description", "admin_state_up", "protocol", "lb_algorithm", "tls_enabled")
    references = (
        Reference("listener", "listener_id", "listener"),
        Reference("loadbalancer", "loadbalancer_id", "load_balancer"),
    )
    live_attributes = frozenset({"healthmonitor_id", "listeners", "members"})

    def validate(self, properties: Mapping[str, Any]) -> list[str]:
        problems = super().validate(properties)
        if not properties.get("listener") and not properties.get("loadbalancer"):
            problems.append(
                "At least one of the following properties must be specified: "
                "loadbalancer, listener."
            )
        return problems

    def translate(self, connection: Any, properties: Mapping[str, Any]) -> dict[str, Any]:
        body = super().translate(connection, properties)
        if "session_persistence" in properties:
            persistence = properties["session_persistence"]
            body["session_persistence"] = (
                {k: v for k, v in persistence.items() if v is not None} if persistence else None
            )
        return body


class PoolMember(OctaviaResource):
    type_name = "OS::Octavia::PoolMember"
    show_call = "load_balancer.get_member"
    collection, key = "members", "member"
    parent = Parent("pool", "pool", "pools")
    name_property = None
    passed = (
        "address",
        "protocol_port",
        "weight",
        "admin_state_up",
        "monitor_address",
        "monitor_port",
        "tags",
    )
    references = (Reference("subnet", "subnet_id", "subnet", service="network"),)

    def findable(self, context: ResourceContext) -> bool:
        return True  # Octavia allows one member per address and port in a pool

    def find_for(self, connection: Any, name: str, context: ResourceContext) -> str | None:
        if PARENT not in context.data:
            return None
        p = context.properties
        params = {"address": p["address"], "protocol_port": p["protocol_port"]}
        return first_id(self.listing(connection, context.data, params))


class HealthMonitor(OctaviaResource):
    type_name = "OS::Octavia::HealthMonitor"
    show_call = "load_balancer.get_health_monitor"
    collection, key = "healthmonitors", "healthmonitor"
    name_property = None
    passed = (
        "admin_state_up",
        "delay",
        "timeout",
        "max_retries",
        "type",
        "http_method",
        "url_path",
        "expected_codes",
    )
    references = (Reference("pool", "pool_id", "pool"),)

    def findable(self, context: ResourceContext) -> bool:
        return True  # a pool has at most one health monitor

    def find_for(self, connection: Any, name: str, context: ResourceContext) -> str | None:
        pool = find_id(connection, "load_balancer", "pool", str(context.properties["pool"]))
        return first_id(self.listing(connection, {}, {"pool_id": pool}))


class L7Policy(OctaviaResource):
    type_name = "OS::Octavia::L7Policy"
    show_call = "load_balancer.get_l7_policy"
    collection, key = "l7policies", "l7policy"
    passed = ("description", "admin_state_up", "action", "position", "redirect_url")
    references = (
        Reference("listener", "listener_id", "listener"),
        Reference("redirect_pool", "redirect_pool_id", "pool", clearable=True),
    )
    live_attributes = frozenset({"rules"})

    def validate(self, properties: Mapping[str, Any]) -> list[str]:
        problems = super().validate(properties)
        action = properties.get("action")
        for needed, prop in (
            ("REDIRECT_TO_POOL", "redirect_pool"),
            ("REDIRECT_TO_URL", "redirect_url"),
        ):
            if action == needed and properties.get(prop) is None:
                problems.append(f"Property {prop} is required when action type is set to {needed}.")
            if action != needed and properties.get(prop) is not None:
                problems.append(
                    f"Property {prop} is only valid when action type is set to {needed}."
                )
        return problems

    def translate(self, connection: Any, properties: Mapping[str, Any]) -> dict[str, Any]:
        body = super().translate(connection, properties)
        if isinstance(body.get("position"), float):
            body["position"] = int(body["position"])
        return body


class L7Rule(OctaviaResource):
    type_name = "OS::Octavia::L7Rule"
    show_call = "load_balancer.get_l7_rule"
    collection, key = "rules", "rule"
    parent = Parent("l7policy", "l7_policy", "l7policies")
    name_property = None
    passed = ("admin_state_up", "type", "compare_type", "key", "value", "invert")

    def validate(self, properties: Mapping[str, Any]) -> list[str]:
        problems = super().validate(properties)
        if properties.get("type") in ("HEADER", "COOKIE") and not properties.get("key"):
            problems.append(
                "Property key is missing. This property should be specified for rules of "
                "HEADER and COOKIE types."
            )
        return problems

    def findable(self, context: ResourceContext) -> bool:
        return True  # by what it matches, in its policy

    def find_for(self, connection: Any, name: str, context: ResourceContext) -> str | None:
        if PARENT not in context.data:
            return None
        p = context.properties
        wanted = {k: p.get(k) for k in ("type", "compare_type", "key", "value")}
        for rule in self.listing(connection, context.data, {}):
            if all(rule.get(k) == v for k, v in wanted.items() if v is not None):
                return str(rule["id"])
        return None


TYPES: tuple[type[CloudResource], ...] = (
    LoadBalancer,
    Listener,
    Pool,
    PoolMember,
    HealthMonitor,
    L7Policy,
    L7Rule,
)
