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
from typing import Any, ClassVar, TypeVar

from stoker.cloud.backoff import Backoff
from stoker.cloud.rest import find_id, remember, request
from stoker.errors import CloudError
from stoker.resources.base import ResourceContext, ResourceView
from stoker.resources.openstack.base import CloudResource, catalog_schemas, pause
from stoker.resources.openstack.neutron import subnet_id

T = TypeVar("T")

#: waiting for a busy load balancer: soon at first, then every few seconds
BUSY = Backoff(first=0.2, factor=1.5, cap=3.0)
#: the key in a member's record of the pool it lives in
PARENT = "parent_id"


def busy(error: CloudError) -> bool:
    """Whether Octavia refused because the load balancer is busy (PENDING_*)."""
    return error.status == 409 and "immutable" in str(error)


def loadbalancer_id(connection: Any, name_or_id: str) -> str:
    return find_id(connection, "load_balancer", "load_balancer", name_or_id)


def listener_id(connection: Any, name_or_id: str) -> str:
    return find_id(connection, "load_balancer", "listener", name_or_id)


def pool_id(connection: Any, name_or_id: str) -> str:
    return find_id(connection, "load_balancer", "pool", name_or_id)


class OctaviaResource(CloudResource):
    """An Octavia object at ``/lbaas/<collection>/<id>`` under key ``<key>``."""

    collection: ClassVar[str]
    key: ClassVar[str]
    ready_statuses: ClassVar[frozenset[str]] = frozenset({"ACTIVE"})
    failed_statuses: ClassVar[frozenset[str]] = frozenset({"ERROR"})
    #: the properties passed through as they are, each as the API field of its name
    passed: ClassVar[tuple[str, ...]] = ()

    def calls(self) -> tuple[str, str]:
        kind = self.show_call.rpartition("get_")[2]
        return (f"load_balancer.create_{kind}", f"load_balancer.delete_{kind}")

    def base_path(self, data: Mapping[str, Any]) -> str:
        return f"/lbaas/{self.collection}"

    # -- the cloud's side -------------------------------------------------------------
    def body(self, connection: Any, context: ResourceContext, name: str) -> dict[str, Any]:
        """The create body: the passed-through fields, then the resolved references."""
        body = self.translate(connection, dict(context.properties))
        if self.name_property:
            body["name"] = name
        return body

    def translate(self, connection: Any, properties: Mapping[str, Any]) -> dict[str, Any]:
        """Properties (all, or the changed ones) as the API's fields."""
        body = {
            prop: properties[prop]
            for prop in self.passed
            if prop in properties and properties[prop] is not None
        }
        if properties.get("tenant_id"):
            body["project_id"] = properties["tenant_id"]
        return body

    def make(self, connection: Any, context: ResourceContext, name: str) -> dict[str, Any]:
        body = self.body(connection, context, name)
        create_call, _ = self.calls()
        answer = request(
            connection,
            "load_balancer",
            "POST",
            self.base_path(context.data),
            create_call,
            {self.key: body},
        )
        made = dict(answer[self.key])
        remember(connection, self.key, str(made["id"]), str(made["id"]))
        return made

    def show(self, connection: Any, physical_id: str) -> dict[str, Any]:
        return self.show_for(connection, physical_id, {})

    def show_for(
        self, connection: Any, physical_id: str, data: Mapping[str, Any]
    ) -> dict[str, Any]:
        path = f"{self.base_path(data)}/{physical_id}"
        answer = request(connection, "load_balancer", "GET", path, self.show_call)
        return dict(answer[self.key])

    def drop(self, connection: Any, physical_id: str, data: Mapping[str, Any]) -> None:
        _, delete_call = self.calls()
        path = f"{self.base_path(data)}/{physical_id}"
        request(connection, "load_balancer", "DELETE", path, delete_call)

    def find(self, connection: Any, name: str) -> str | None:
        return self.find_for(connection, name, None)

    def find_for(self, connection: Any, name: str, context: ResourceContext | None) -> str | None:
        data = context.data if context is not None else {}
        found = self.listing(connection, data, {"name": name})
        return str(found[0]["id"]) if found else None

    def listing(
        self, connection: Any, data: Mapping[str, Any], params: Mapping[str, Any]
    ) -> list[dict[str, Any]]:
        answer = request(
            connection,
            "load_balancer",
            "GET",
            self.base_path(data),
            f"load_balancer.{self.collection}",
            params=dict(params),
        )
        return list((answer or {}).get(self.collection) or [])

    # -- the handlers -----------------------------------------------------------------
    def is_ready(self, context: ResourceContext, shown: Mapping[str, Any]) -> bool:
        status = str(shown.get("provisioning_status") or "").upper()
        if status in self.failed_statuses:
            raise CloudError(f"{self.show_call}: {context.physical_id} went to {status}")
        return status in self.ready_statuses

    async def while_busy(
        self, context: ResourceContext, what: str, call: Any, *, retry: bool = True
    ) -> Any:
        """``call`` through the cloud, asked again while the load balancer is busy (and,
        with ``retry``, on the cloud's other "not now" answers, as every call)."""
        return await self.until_free(context, lambda: self.cloud.call(what, call, retry=retry))

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

    def create_retryable(self, error: CloudError) -> bool:
        """Only 429 and 503: Octavia's 409s say the load balancer is busy (nothing was
        made: `_make` asks again) or the port or address is taken (by another)."""
        return error.status in (429, 503)

    async def _make(self, context: ResourceContext, name: str) -> dict[str, Any]:
        """The create (see `CloudResource._make`), asked again while the load balancer is
        busy."""
        make = super()._make
        return await self.until_free(context, lambda: make(context, name))

    async def create(self, context: ResourceContext) -> None:
        if PARENT not in context.data:
            parent = await self.parent(context)
            if parent is not None:
                context.data[PARENT] = parent
        await super().create(context)

    async def parent(self, context: ResourceContext) -> str | None:
        """The id of the object this one lives under, when its path names it."""
        return None

    async def update(self, context: ResourceContext, previous: ResourceView) -> None:
        physical_id = context.physical_id
        assert physical_id is not None
        new, old = context.properties, previous.properties
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
    properties_schema, attributes_schema = catalog_schemas(type_name)
    show_call = "load_balancer.get_load_balancer"
    collection, key = "loadbalancers", "loadbalancer"
    passed = ("description", "admin_state_up", "vip_address", "provider", "availability_zone")
    live_attributes = frozenset({"pools"})

    def translate(self, connection: Any, properties: Mapping[str, Any]) -> dict[str, Any]:
        body = super().translate(connection, properties)
        if properties.get("vip_subnet"):
            body["vip_subnet_id"] = subnet_id(connection, str(properties["vip_subnet"]))
        if properties.get("flavor"):
            body["flavor_id"] = find_id(
                connection, "load_balancer", "flavor", str(properties["flavor"])
            )
        return body


class Listener(OctaviaResource):
    type_name = "OS::Octavia::Listener"
    properties_schema, attributes_schema = catalog_schemas(type_name)
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
    live_attributes = frozenset({"default_pool_id"})

    def translate(self, connection: Any, properties: Mapping[str, Any]) -> dict[str, Any]:
        body = super().translate(connection, properties)
        if properties.get("loadbalancer"):
            body["loadbalancer_id"] = loadbalancer_id(connection, str(properties["loadbalancer"]))
        if "default_pool" in properties:
            pool = properties["default_pool"]
            body["default_pool_id"] = pool_id(connection, str(pool)) if pool else None
        return body


class Pool(OctaviaResource):
    type_name = "OS::Octavia::Pool"
    properties_schema, attributes_schema = catalog_schemas(type_name)
    show_call = "load_balancer.get_pool"
    collection, key = "pools", "pool"
    passed = ("description", "admin_state_up", "protocol", "lb_algorithm", "tls_enabled")
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
        if properties.get("listener"):
            body["listener_id"] = listener_id(connection, str(properties["listener"]))
        if properties.get("loadbalancer"):
            body["loadbalancer_id"] = loadbalancer_id(connection, str(properties["loadbalancer"]))
        if "session_persistence" in properties:
            persistence = properties["session_persistence"]
            body["session_persistence"] = (
                {k: v for k, v in persistence.items() if v is not None} if persistence else None
            )
        return body


class PoolMember(OctaviaResource):
    type_name = "OS::Octavia::PoolMember"
    properties_schema, attributes_schema = catalog_schemas(type_name)
    show_call = "load_balancer.get_member"
    collection, key = "members", "member"
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

    def base_path(self, data: Mapping[str, Any]) -> str:
        return f"/lbaas/pools/{data.get(PARENT)}/members"

    async def parent(self, context: ResourceContext) -> str | None:
        pool = str(context.properties["pool"])
        return await self.cloud.call("load_balancer.find_pool", lambda c: pool_id(c, pool))

    def translate(self, connection: Any, properties: Mapping[str, Any]) -> dict[str, Any]:
        body = super().translate(connection, properties)
        if properties.get("subnet"):
            body["subnet_id"] = subnet_id(connection, str(properties["subnet"]))
        body.pop("project_id", None)
        return body

    def findable(self, context: ResourceContext) -> bool:
        return True  # Octavia allows one member per address and port in a pool

    def find_for(self, connection: Any, name: str, context: ResourceContext | None) -> str | None:
        if context is None or PARENT not in context.data:
            return None
        p = context.properties
        found = self.listing(
            connection,
            context.data,
            {"address": p["address"], "protocol_port": p["protocol_port"]},
        )
        return str(found[0]["id"]) if found else None


class HealthMonitor(OctaviaResource):
    type_name = "OS::Octavia::HealthMonitor"
    properties_schema, attributes_schema = catalog_schemas(type_name)
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

    def translate(self, connection: Any, properties: Mapping[str, Any]) -> dict[str, Any]:
        body = super().translate(connection, properties)
        if properties.get("pool"):
            body["pool_id"] = pool_id(connection, str(properties["pool"]))
        return body

    def findable(self, context: ResourceContext) -> bool:
        return True  # a pool has at most one health monitor

    def find_for(self, connection: Any, name: str, context: ResourceContext | None) -> str | None:
        if context is None:
            return None
        pool = pool_id(connection, str(context.properties["pool"]))
        found = self.listing(connection, {}, {"pool_id": pool})
        return str(found[0]["id"]) if found else None


class L7Policy(OctaviaResource):
    type_name = "OS::Octavia::L7Policy"
    properties_schema, attributes_schema = catalog_schemas(type_name)
    show_call = "load_balancer.get_l7_policy"
    collection, key = "l7policies", "l7policy"
    passed = ("description", "admin_state_up", "action", "position", "redirect_url")
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
        if properties.get("listener"):
            body["listener_id"] = listener_id(connection, str(properties["listener"]))
        if "redirect_pool" in properties:
            pool = properties["redirect_pool"]
            body["redirect_pool_id"] = pool_id(connection, str(pool)) if pool else None
        if isinstance(body.get("position"), float):
            body["position"] = int(body["position"])
        return body


class L7Rule(OctaviaResource):
    type_name = "OS::Octavia::L7Rule"
    properties_schema, attributes_schema = catalog_schemas(type_name)
    show_call = "load_balancer.get_l7_rule"
    collection, key = "rules", "rule"
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

    def base_path(self, data: Mapping[str, Any]) -> str:
        return f"/lbaas/l7policies/{data.get(PARENT)}/rules"

    async def parent(self, context: ResourceContext) -> str | None:
        policy = str(context.properties["l7policy"])
        return await self.cloud.call(
            "load_balancer.find_l7_policy",
            lambda c: find_id(c, "load_balancer", "l7_policy", policy),
        )

    def translate(self, connection: Any, properties: Mapping[str, Any]) -> dict[str, Any]:
        body = super().translate(connection, properties)
        body.pop("project_id", None)
        return body

    def findable(self, context: ResourceContext) -> bool:
        return True  # by what it matches, in its policy

    def find_for(self, connection: Any, name: str, context: ResourceContext | None) -> str | None:
        if context is None or PARENT not in context.data:
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
