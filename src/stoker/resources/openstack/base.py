"""What every OpenStack resource type shares: Heat's two-step create, tolerant deletes,
and the resource as the cloud shows it.

A create is Heat's handle/check split made crash-safe. Before the create call the record
notes that a create is under way (with the name the resource will carry); the moment the
cloud answers with an id, that id is recorded (`ResourceContext.checkpoint`); only then is
completion polled, with backoff. A process killed anywhere in between resumes (`stack
recover`) by polling the recorded id, or, if it died between the call and the record, by
finding the resource under the name it was given; it never makes a second one.

A delete tolerates a resource that is already gone, retries the cloud's transient
refusals (409, 503), and waits until the cloud no longer shows the resource.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar

from stoker.cloud import Cloud
from stoker.cloud.backoff import POLL, RETRIES, RETRY
from stoker.cloud.connection import TRANSIENT, NotFoundError
from stoker.cloud.rest import request, send
from stoker.errors import CloudError, StokerError
from stoker.resources.base import ResourceContext, ResourcePlugin, ResourceView
from stoker.resources.catalog import heat_catalog

#: in a resource's data: the name a create under way gives the resource (no id yet)
PENDING = "creating"
#: in a resource's data: the resource as the cloud last showed it (Heat's ``show``)
SHOWN = "show"


def plain(value: Any) -> Any:
    """A JSON-native copy (records hold nothing else)."""
    return json.loads(json.dumps(value, default=str))


def given(properties: Mapping[str, Any], *names: str) -> dict[str, Any]:
    """The named properties that have a value (None means "not given")."""
    return {name: properties[name] for name in names if properties.get(name) is not None}


class CloudResource(ResourcePlugin):
    """Base of the OpenStack types. Subclasses name their calls and say what the cloud
    shows; the base drives create, poll, delete and attributes."""

    #: the call that shows the resource, for messages: "network.get_network"
    show_call: ClassVar[str]
    #: the statuses that mean ready and failed ("" means: ready once created)
    ready_statuses: ClassVar[frozenset[str]] = frozenset()
    failed_statuses: ClassVar[frozenset[str]] = frozenset({"ERROR"})
    #: the property that names the resource in the cloud (None: it has no name)
    name_property: ClassVar[str | None] = "name"
    #: for a type without a name: the attribute (``description``) that carries stoker's
    #: physical name instead, so a create cut off before its id was recorded can find it
    #: (None: such a create cannot be found, and may leave its resource behind)
    mark_attribute: ClassVar[str | None] = None
    #: Heat's hidden (deprecated) property names and the ones that replaced them
    aliases: ClassVar[Mapping[str, str]] = {}
    #: attributes that other resources change after this one is made (a volume's
    #: attachments, a network's subnets): read from the cloud when asked, as Heat does
    live_attributes: ClassVar[frozenset[str]] = frozenset()
    #: the refusals of a create that may be asked again (after looking for what it made):
    #: the cloud's "not now" answers, unless the type's service means more by one
    create_retried: ClassVar[frozenset[int]] = TRANSIENT

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A class naming its ``type_name`` gets that type's property and attribute
        schemas exactly as Heat's catalog has them, but with each aliased property
        optional: Heat translates a deprecated name (``network_id``) to the current one
        (``network``) before it checks that the property is given; `validate` checks it
        after the translation."""
        super().__init_subclass__(**kwargs)
        if "type_name" in cls.__dict__:
            schema = heat_catalog().get(cls.type_name)
            assert schema is not None, f"{cls.type_name} is not in Heat's catalog"
            replaced = set(cls.aliases.values())
            cls.properties_schema = {
                name: replace(prop, required=False) if name in replaced else prop
                for name, prop in schema.properties.items()
            }
            cls.attributes_schema = schema.attributes

    def __init__(self, cloud: Cloud) -> None:
        self.cloud = cloud

    # -- what subclasses provide (run on the cloud's threads) -----------------------
    def make(self, connection: Any, context: ResourceContext, name: str) -> dict[str, Any]:
        """Ask the cloud for the resource; return what it showed (with its ``id``)."""
        raise NotImplementedError

    def show(self, connection: Any, physical_id: str) -> dict[str, Any]:
        """The resource as the cloud shows it now (raises NotFoundError when gone)."""
        raise NotImplementedError

    def drop(self, connection: Any, physical_id: str, data: Mapping[str, Any]) -> None:
        """Ask the cloud to delete the resource (NotFoundError when already gone)."""
        raise NotImplementedError

    def find(self, connection: Any, name: str) -> str | None:
        """The id of the resource called ``name``, for a create that a crash cut off
        before its id was recorded; None when the type cannot be found by name."""
        return None

    def exists(self, connection: Any, physical_id: str) -> bool:
        """Whether the cloud shows the resource."""
        try:
            self.show(connection, physical_id)
        except NotFoundError:
            return False
        return True

    def show_for(
        self, connection: Any, physical_id: str, data: Mapping[str, Any]
    ) -> dict[str, Any]:
        """`show`, for a type whose resources live under a parent the id alone does not
        name (an Octavia member under its pool): ``data`` is the resource's record."""
        return self.show(connection, physical_id)

    def find_for(self, connection: Any, name: str, context: ResourceContext) -> str | None:
        """`find`, for a type that needs the resource's properties to look (a member is
        found in its pool by address and port)."""
        return self.find(connection, name)

    def calls(self) -> tuple[str, str]:
        """The names of the create and delete calls, for messages: the SDK's, named after
        the show call (``compute.get_server``: ``compute.create_server``, ...)."""
        service, _, kind = self.show_call.partition(".get_")
        return (f"{service}.create_{kind}", f"{service}.delete_{kind}")

    # -- the handlers ------------------------------------------------------------------
    def validate(self, properties: Mapping[str, Any]) -> list[str]:
        normalized = self.normalize(properties)
        catalog = heat_catalog().get(self.type_name)
        return [
            f"Property {new} not assigned"
            for new in dict.fromkeys(self.aliases.values())
            if catalog is not None
            and catalog.properties[new].required
            and normalized.get(new) is None
        ]

    def normalize(self, properties: Mapping[str, Any]) -> dict[str, Any]:
        """The properties under their current names (Heat translates the deprecated ones:
        a template's ``network_id`` is the ``network``)."""
        result = dict(properties)
        for old, new in self.aliases.items():
            if result.get(old) is not None and result.get(new) is None:
                result[new] = result[old]
            result.pop(old, None)
        return result

    def updating(
        self, context: ResourceContext, previous: ResourceView
    ) -> tuple[str, dict[str, Any], dict[str, Any]]:
        """What an update starts from: the resource's id, and its new and old properties
        under their current names (`normalize`; the new ones become the context's)."""
        assert context.physical_id is not None
        context.properties = self.normalize(context.properties)
        return context.physical_id, context.properties, self.normalize(previous.properties)

    def cloud_name(self, context: ResourceContext) -> str:
        """The name the resource gets: its ``name`` property, else stoker's physical name
        (Heat's ``<stack>-<resource>-<random>``)."""
        if self.name_property and context.properties.get(self.name_property):
            return str(context.properties[self.name_property])
        return context.physical_name

    async def create(self, context: ResourceContext) -> None:
        context.properties = self.normalize(context.properties)
        if context.physical_id is None and context.data.get(PENDING):
            context.physical_id = await self._find(context, str(context.data[PENDING]))
        shown: dict[str, Any] | None = None
        if context.physical_id is None:
            name = self.cloud_name(context)
            context.data[PENDING] = name
            context.data["physical_name"] = context.physical_name
            await checkpoint(context)
            shown = await self._make(context, name)
            context.physical_id = str(shown["id"])
            await checkpoint(context)
        shown = await self.wait_ready(context, shown)
        context.data.pop(PENDING, None)
        context.data[SHOWN] = plain(shown)

    async def _make(self, context: ResourceContext, name: str) -> dict[str, Any]:
        """The create call. A transient refusal (409, 429, 503) is retried with backoff
        only where the resource can be found by the name stoker gave it: the cloud may
        have made it before refusing, and a retry must adopt it, never make a second."""
        delays = RETRY.delays()
        for attempt in range(RETRIES + 1):
            try:
                if attempt == 0:
                    return await self.ask_create(context, name)
                return await self.ask_alone(context, name)  # a retry is this create's own
            except CloudError as error:
                if (
                    error.status not in self.create_retried
                    or attempt == RETRIES
                    or not self.findable(context)
                ):
                    raise
            await pause(context, next(delays))
            found = await self._find(context, name)
            if found is not None:
                return await self.read(found, context.data)
        raise AssertionError("unreachable")

    async def read(self, physical_id: str, data: Mapping[str, Any]) -> dict[str, Any]:
        """The resource as the cloud shows it now (`show_for`, on the cloud's threads);
        ``data`` is its record."""
        return await self.cloud.call(self.show_call, lambda c: self.show_for(c, physical_id, data))

    async def ask_create(self, context: ResourceContext, name: str) -> dict[str, Any]:
        """The create's first call, not retried: what the cloud answers (with the new
        ``id``), or its refusal as a `CloudError`. A type whose cloud makes many at once
        asks together with the creates under way (Neutron's ports: `bulk`)."""
        return await self.ask_alone(context, name)

    async def ask_alone(self, context: ResourceContext, name: str) -> dict[str, Any]:
        """One create call by itself (`make` on the cloud's threads), not retried."""
        create_call, _ = self.calls()
        return await self.cloud.call(
            create_call, lambda c: self.make(c, context, name), retry=False
        )

    def findable(self, context: ResourceContext) -> bool:
        """Whether a resource this create made can be found by the name it was given (or
        by the mark it carries, for a type without a name)."""
        kind = type(self)
        if kind.find is CloudResource.find and kind.find_for is CloudResource.find_for:
            return False
        if self.name_property is None:
            return self.mark_attribute is not None and self.template_mark(context) is None
        return not context.properties.get(self.name_property)

    def template_mark(self, context: ResourceContext) -> Any:
        """The value the template itself gives `mark_attribute` (None: stoker's to set)."""
        if self.mark_attribute is None:
            return None
        given_value = context.properties.get(self.mark_attribute)
        if given_value is None:
            given_value = dict(context.properties.get("value_specs") or {}).get(self.mark_attribute)
        return given_value

    async def _find(self, context: ResourceContext, name: str) -> str | None:
        if not self.findable(context):
            return None  # a name the template chose may be another's: never adopt by it
        return await self.cloud.call(
            f"{self.show_call} (by name)", lambda c: self.find_for(c, name, context)
        )

    async def wait_ready(
        self, context: ResourceContext, shown: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Poll until the resource is ready (with backoff; the operation's timeout ends it)."""
        assert context.physical_id is not None
        physical_id = context.physical_id
        delays = POLL.delays()
        while True:
            if shown is not None and self.is_ready(context, shown):
                return shown
            if shown is not None:
                await pause(context, next(delays))
            shown = await self.read(physical_id, context.data)

    def is_ready(self, context: ResourceContext, shown: Mapping[str, Any]) -> bool:
        status = str(shown.get("status") or "").upper()
        if status in self.failed_statuses:
            fault = shown.get("fault")
            detail = fault.get("message") if isinstance(fault, dict) else None
            raise CloudError(
                f"{self.show_call}: {context.physical_id} went to {status}"
                + (f": {detail}" if detail else "")
            )
        return not self.ready_statuses or status in self.ready_statuses

    async def delete(self, context: ResourceContext) -> None:
        physical_id = context.physical_id
        if physical_id is None and context.data.get(PENDING):
            physical_id = await self._find(context, str(context.data[PENDING]))
        if physical_id is None:
            return
        _, delete_call = self.calls()
        data = dict(context.data)
        try:
            await self.ask_change(context, delete_call, lambda c: self.drop(c, physical_id, data))
        except NotFoundError:
            return
        await self.wait_gone(context, physical_id)

    async def ask_change(self, context: ResourceContext, what: str, call: Any) -> Any:
        """``call`` through the cloud; a type whose cloud refuses changes while busy asks
        again (Octavia)."""
        return await self.cloud.call(what, call)

    async def wait_gone(self, context: ResourceContext, physical_id: str) -> None:
        delays = POLL.delays()
        while True:
            try:
                shown = await self.read(physical_id, context.data)
            except NotFoundError:
                return
            status = str(shown.get("status") or "").upper()
            if status in {"DELETED", "SOFT_DELETED"}:
                return
            # A server in ERROR stays ERROR while Nova deletes it: only a status that
            # says the delete itself failed ends the wait (else the operation's timeout)
            if status == "ERROR_DELETING":
                raise CloudError(f"{self.show_call}: {physical_id} went to {status} on delete")
            await pause(context, next(delays))

    async def refresh(self, context: ResourceContext) -> None:
        """Record the resource as the cloud shows it now (after an update)."""
        shown = await self.wait_ready(context)
        context.data[SHOWN] = plain(shown)

    async def adopt(self, physical_id: str, data: Mapping[str, Any]) -> None:
        """The cloud shows the resource to the adopting stack's owner, or the adopt
        fails with the cloud's answer (404 for another project's resource)."""
        await self.read(physical_id, data)

    # -- attributes --------------------------------------------------------------------
    def attribute(self, view: ResourceView, name: str) -> Any:
        shown = view.data.get(SHOWN)
        if not isinstance(shown, dict):
            return None
        if name == "show":
            return shown
        if name in self.live_attributes and view.physical_id:
            shown = self.live(view.physical_id) or shown
        return self.attribute_of(shown, name)

    def live(self, physical_id: str) -> dict[str, Any] | None:
        """The resource as the cloud shows it now; None if it cannot be asked (the last
        recorded view answers then)."""
        try:
            return self.cloud.run(self.show_call, lambda c: self.show(c, physical_id))
        except StokerError:
            return None

    def attribute_of(self, shown: Mapping[str, Any], name: str) -> Any:
        """An attribute from what the cloud showed: by default its field of that name."""
        return shown.get(name)


class ApiResource(CloudResource):
    """A resource at ``<collection>/<id>`` of one service's REST API, made, shown and
    deleted there by plain requests (`stoker.cloud.rest.request`)."""

    #: the service's name in the SDK ("compute", "block_storage")
    service: ClassVar[str]
    #: the collection's path segment and the key its listing answers under ("servers")
    collection: ClassVar[str]
    #: the key the API wraps one resource's body in (None: it does not wrap it)
    key: ClassVar[str | None] = None

    def base_path(self, data: Mapping[str, Any]) -> str:
        """The collection's path; ``data`` is the record, for a resource that lives under
        a parent its id alone does not name."""
        return f"/{self.collection}"

    def unwrap(self, answer: Any) -> dict[str, Any]:
        return dict(answer[self.key] if self.key else answer)

    def api(
        self,
        connection: Any,
        method: str,
        path: str,
        what: str,
        body: Any = None,
        *,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Any:
        """``method path`` on the type's service (`stoker.cloud.rest.request`): the
        answer's JSON, failures named by ``what``."""
        return request(connection, self.service, method, path, what, body, params, headers)

    async def ask_api(
        self,
        method: str,
        path: str,
        what: str,
        body: Any = None,
        *,
        headers: Mapping[str, str] | None = None,
        retry: bool = True,
    ) -> Any:
        """`api` through the cloud, on its threads (retried unless not ``retry``)."""
        return await self.cloud.call(
            what, lambda c: self.api(c, method, path, what, body, headers=headers), retry=retry
        )

    def show(self, connection: Any, physical_id: str) -> dict[str, Any]:
        return self.show_for(connection, physical_id, {})

    def show_for(
        self, connection: Any, physical_id: str, data: Mapping[str, Any]
    ) -> dict[str, Any]:
        path = f"{self.base_path(data)}/{physical_id}"
        return self.unwrap(self.api(connection, "GET", path, self.show_call))

    def drop(self, connection: Any, physical_id: str, data: Mapping[str, Any]) -> None:
        path = f"{self.base_path(data)}/{physical_id}"
        self.api(connection, "DELETE", path, self.calls()[1])

    def post(
        self,
        connection: Any,
        body: dict[str, Any],
        data: Mapping[str, Any] | None = None,
        beside: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The create call: ``body`` (wrapped in `key`) with ``beside`` next to it at the
        request's top (Nova's and Cinder's scheduler hints); what the API answers."""
        sent = {self.key: body, **(beside or {})} if self.key else body
        path = self.base_path(data or {})
        return self.unwrap(self.api(connection, "POST", path, self.calls()[0], sent))

    def listing(
        self,
        connection: Any,
        data: Mapping[str, Any],
        params: Mapping[str, Any],
        what: str | None = None,
    ) -> list[dict[str, Any]]:
        """The collection listed with the filters ``params`` (``what`` names the call,
        by default ``<service>.<collection>``)."""
        what = what or f"{self.service}.{self.collection}"
        path = self.base_path(data)
        answer = self.api(connection, "GET", path, what, params=dict(params))
        return list((answer or {}).get(self.collection) or [])


def scheduler_hints(properties: Mapping[str, Any], key: str) -> dict[str, Any]:
    """The template's scheduler hints under the key its service reads them from, beside
    the create's body (none when it gives none)."""
    hints = properties.get("scheduler_hints")
    return {key: dict(hints)} if hints else {}


def first_id(found: list[dict[str, Any]]) -> str | None:
    """The id of the first resource a lookup found (None: it found none)."""
    return str(found[0]["id"]) if found else None


async def checkpoint(context: ResourceContext) -> None:
    if context.checkpoint is not None:
        await context.checkpoint()


async def pause(context: ResourceContext, seconds: float) -> None:
    """Sleep, ending early when the operation stops."""
    await (context.sleep or asyncio.sleep)(seconds)


def raw_show(connection: Any, service: str, path: str, key: str) -> dict[str, Any]:
    """The resource's body as the service's API returns it (Heat's ``show`` is that)."""
    response = send(connection, service, "GET", path)
    if response.status_code == 404:
        raise NotFoundError(f"{service} GET {path}: not found", 404)
    if response.status_code >= 400:
        raise CloudError(f"{service} GET {path} failed (HTTP {response.status_code})")
    body = response.json()
    value = body.get(key) if isinstance(body, dict) else None
    if not isinstance(value, dict):
        raise CloudError(f"{service} GET {path}: the answer holds no {key!r}")
    return value
