"""Octavia's backend: load balancers, listeners, pools, members and health monitors.

Octavia's rule that clients feel most is the lock: every change to a load balancer or to
anything under it puts the load balancer in ``PENDING_UPDATE`` (``PENDING_CREATE`` when it
is new, ``PENDING_DELETE`` when it goes) until the amphorae are configured, and any other
change asked meanwhile is refused with 409 ("... is immutable and cannot be updated").
Here the configuring takes the sandbox's build delay; as everywhere in the sandbox nothing
runs in the background: each request first settles the objects whose time has come
(``PENDING_*`` becomes ``ACTIVE``, or the object is gone after ``PENDING_DELETE``).

A load balancer's VIP is a real Neutron port (``octavia-lb-<id>``, owner ``Octavia``) with
an address from the subnet's pools, made on ``vip_subnet_id`` or ``vip_network_id``, or
the port given as ``vip_port_id``; the port Octavia made goes with the load balancer.

Relations are stored one way (a listener keeps its load balancer, a member its pool) and
the views compute the other (a load balancer's ``listeners``, a pool's ``members``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from stoker.sandbox.http_errors import BadRequest, Conflict, NotFound, OverQuota
from stoker.sandbox.loadbalancer import checks, updates, vip
from stoker.sandbox.loadbalancer.kinds import (
    KINDS,
    L7POLICY,
    L7RULE,
    LABELS,
    LISTENER,
    LOADBALANCER,
    MEMBER,
    MONITOR,
    POOL,
)
from stoker.sandbox.service import HubBackend, new_id
from stoker.sandbox.store import Document

PROVIDER = "amphora"


def octavia_time(seconds: float) -> str:
    """Octavia's timestamps: no zone, no fraction (``2026-11-25T02:18:08``)."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))


class OctaviaBackend(HubBackend):
    """The load-balancing objects of one sandbox; see the module docstring."""

    # -- time -------------------------------------------------------------------------

    def settle(self) -> None:
        """Finish what the clock says is done: ``PENDING_*`` objects become ``ACTIVE``,
        or are removed after ``PENDING_DELETE``."""
        now = self.hub.now()
        with self.store.transaction():
            for kind in KINDS:
                for document in self.store.list(
                    kind,
                    where=lambda d: (
                        str(d["provisioning_status"]).startswith("PENDING") and d["_until"] <= now
                    ),
                ):
                    if document["provisioning_status"] == "PENDING_DELETE":
                        self.store.delete(kind, document["id"])
                    else:
                        document["provisioning_status"] = "ACTIVE"
                        self.store.put(kind, document["id"], document)

    def _pending(self, kind: str, document: Document, status: str) -> None:
        document["provisioning_status"] = status
        document["_until"] = self.hub.now() + self.delay
        if status != "PENDING_CREATE":
            document["updated_at"] = octavia_time(self.hub.now())
        self.store.put(kind, document["id"], document)

    def _lock(self, lb: Document) -> None:
        """Octavia's test-and-set: the load balancer must not be busy, then it is."""
        if str(lb["provisioning_status"]).startswith("PENDING"):
            raise checks.immutable(LABELS[LOADBALANCER], lb["id"])
        self._pending(LOADBALANCER, lb, "PENDING_UPDATE")

    # -- reading ----------------------------------------------------------------------

    def get(self, kind: str, id: str, project: str | None) -> Document:
        """The object if ``project`` (None: an admin) may see it, else 404."""
        document = self.store.get(kind, str(id))
        if document is None or (project is not None and document["project_id"] != project):
            raise checks.not_found(LABELS[kind], id)
        return document

    def _reference(self, kind: str, id: Any, project: str | None) -> Document:
        """An object a body names (400 when it is not there, as Octavia answers)."""
        try:
            return self.get(kind, id, project)
        except NotFound:
            raise checks.missing_subresource(LABELS[kind], str(id)) from None

    def listing(self, kind: str, project: str | None) -> list[Document]:
        return self.store.list(kind, project_id=project)

    def children(self, kind: str, field: str, id: str) -> list[Document]:
        return self.store.list(kind, where=lambda d: d.get(field) == id)

    # -- creating ---------------------------------------------------------------------

    def _new(
        self,
        kind: str,
        project: str,
        body: Mapping[str, Any],
        *,
        object_id: str | None = None,
        **fields: Any,
    ) -> Document:
        # the fault plan names a quota by the kind's own name (``quotas: {load-balancer:
        # {loadbalancer: 2, healthmonitor: 1}}``)
        limit = self.hub.quota("load-balancer", kind.partition(".")[2])
        if limit >= 0 and self.store.count(kind, project_id=project) >= limit:
            raise OverQuota(f"Quota has been met for resources: {LABELS[kind]}")
        document: Document = {
            "id": object_id or new_id(),
            "name": checks.text(body, "name"),
            "description": checks.text(body, "description"),
            "admin_state_up": checks.boolean(body, "admin_state_up", True),
            "project_id": project,
            "provisioning_status": "PENDING_CREATE",
            "created_at": octavia_time(self.hub.now()),
            "updated_at": None,
            "tags": checks.tags(body),
            "_until": self.hub.now() + self.delay,
        }
        document.update(fields)
        self.store.insert(kind, document["id"], document, project)
        return document

    def _new_under(
        self, kind: str, parent_field: str, parent: Document, body: Mapping[str, Any], **fields: Any
    ) -> Document:
        """A new object under ``parent`` (a pool, a policy), its load balancer locked."""
        lb = self.get(LOADBALANCER, parent["loadbalancer_id"], None)
        self._lock(lb)
        return self._new(
            kind,
            parent["project_id"],
            body,
            **{parent_field: parent["id"], "loadbalancer_id": lb["id"]},
            **fields,
        )

    @staticmethod
    def _owner(ctx_project: str, body: Mapping[str, Any], is_admin: bool) -> str:
        """The project a new object belongs to: the caller's, or the one an admin names."""
        asked = body.get("project_id") or body.get("tenant_id")
        if asked and asked != ctx_project:
            if not is_admin:
                raise checks.validation("project_id may only be set by an administrator")
            return str(asked)
        return ctx_project

    def create_loadbalancer(
        self, project: str, body: Mapping[str, Any], *, is_admin: bool = False
    ) -> Document:
        owner = self._owner(project, body, is_admin)
        provider = checks.text(body, "provider", PROVIDER) or PROVIDER
        if provider not in (PROVIDER, "octavia"):
            raise checks.validation(f"Provider '{provider}' is not enabled.")
        for name, label in (("flavor_id", "Flavor"), ("availability_zone", "Availability Zone")):
            if body.get(name):
                raise checks.missing_subresource(label, str(body[name]))
        lb_id = new_id()
        address = vip.allocate(self.hub, owner, body, lb_id)
        return self._new(
            LOADBALANCER,
            owner,
            body,
            object_id=lb_id,
            provider=PROVIDER,
            flavor_id=None,
            availability_zone=None,
            vip_qos_policy_id=body.get("vip_qos_policy_id"),
            **address,
        )

    def create_listener(self, project: str | None, body: Mapping[str, Any]) -> Document:
        lb = self._reference(LOADBALANCER, checks.required(body, "loadbalancer_id"), project)
        protocol = checks.choice(body, "protocol", checks.LISTENER_PROTOCOLS)
        checks.required(body, "protocol")
        port = checks.integer(body, "protocol_port", minimum=1, maximum=65535)
        checks.required(body, "protocol_port")
        if protocol == "TERMINATED_HTTPS" and not (
            body.get("default_tls_container_ref") or body.get("sni_container_refs")
        ):
            raise checks.validation(
                "An SNI or default certificate container reference must be provided for "
                "TERMINATED_HTTPS listeners."
            )
        for other in self.children(LISTENER, "loadbalancer_id", lb["id"]):
            if other["protocol_port"] == port and _transport(other["protocol"]) == _transport(
                protocol
            ):
                raise Conflict(
                    "Another Listener on this Load Balancer is already using protocol "
                    f"{protocol} and protocol_port {port}"
                )
        pool_id = body.get("default_pool_id")
        if pool_id:
            self._default_pool(lb, str(pool_id), protocol, project)
        self._lock(lb)
        return self._new(
            LISTENER,
            lb["project_id"],
            body,
            loadbalancer_id=lb["id"],
            protocol=protocol,
            protocol_port=port,
            connection_limit=checks.integer(body, "connection_limit", -1, minimum=-1),
            default_pool_id=pool_id,
            default_tls_container_ref=body.get("default_tls_container_ref"),
            sni_container_refs=list(body.get("sni_container_refs") or []),
            allowed_cidrs=checks.cidrs(body.get("allowed_cidrs")),
            insert_headers=dict(body.get("insert_headers") or {}),
            timeout_client_data=checks.integer(body, "timeout_client_data", 50000, minimum=0),
            timeout_member_connect=checks.integer(body, "timeout_member_connect", 5000, minimum=0),
            timeout_member_data=checks.integer(body, "timeout_member_data", 50000, minimum=0),
            timeout_tcp_inspect=checks.integer(body, "timeout_tcp_inspect", 0, minimum=0),
        )

    def _default_pool(
        self, lb: Document, pool_id: str, protocol: str, project: str | None
    ) -> Document:
        pool = self._reference(POOL, pool_id, project)
        if pool["loadbalancer_id"] != lb["id"]:
            raise checks.validation(f"Pool {pool_id} is not on load balancer {lb['id']}.")
        if pool["protocol"] not in checks.COMPATIBLE.get(protocol, ()):
            raise checks.validation(
                f"The pool protocol '{pool['protocol']}' is invalid while the listener "
                f"protocol is '{protocol}'."
            )
        return pool

    def create_pool(self, project: str | None, body: Mapping[str, Any]) -> Document:
        protocol = checks.choice(body, "protocol", checks.POOL_PROTOCOLS)
        checks.required(body, "protocol")
        algorithm = checks.choice(body, "lb_algorithm", checks.ALGORITHMS)
        checks.required(body, "lb_algorithm")
        listener: Document | None = None
        if body.get("listener_id"):
            listener = self._reference(LISTENER, body["listener_id"], project)
            if listener.get("default_pool_id"):
                raise Conflict("This listener already has a default pool")
            lb = self.get(LOADBALANCER, listener["loadbalancer_id"], None)
            if body.get("loadbalancer_id") and body["loadbalancer_id"] != lb["id"]:
                raise checks.validation("The listener is not on the given load balancer.")
            if protocol not in checks.COMPATIBLE.get(listener["protocol"], ()):
                raise checks.validation(
                    f"The pool protocol '{protocol}' is invalid while the listener protocol "
                    f"is '{listener['protocol']}'."
                )
        elif body.get("loadbalancer_id"):
            lb = self._reference(LOADBALANCER, body["loadbalancer_id"], project)
        else:
            raise checks.validation("loadbalancer_id or listener_id must be specified.")
        persistence = checks.persistence(body.get("session_persistence"))
        self._lock(lb)
        pool = self._new(
            POOL,
            lb["project_id"],
            body,
            loadbalancer_id=lb["id"],
            protocol=protocol,
            lb_algorithm=algorithm,
            session_persistence=persistence,
            tls_enabled=checks.boolean(body, "tls_enabled", False),
            tls_container_ref=body.get("tls_container_ref"),
            ca_tls_container_ref=body.get("ca_tls_container_ref"),
            crl_container_ref=body.get("crl_container_ref"),
        )
        if listener is not None:
            listener["default_pool_id"] = pool["id"]
            self._pending(LISTENER, listener, "PENDING_UPDATE")
        return pool

    def create_member(self, project: str | None, pool_id: str, body: Mapping[str, Any]) -> Document:
        pool = self.get(POOL, pool_id, project)
        ip = checks.address(body, "address")
        checks.required(body, "address")
        port = checks.integer(body, "protocol_port", minimum=1, maximum=65535)
        checks.required(body, "protocol_port")
        subnet_id = body.get("subnet_id")
        neutron = vip.neutron_of(self.hub)
        if subnet_id and neutron.subnets.records.find(str(subnet_id), None) is None:
            raise checks.missing_subresource("Subnet", str(subnet_id))
        for other in self.children(MEMBER, "pool_id", pool["id"]):
            if other["address"] == ip and other["protocol_port"] == port:
                raise Conflict(
                    f"Another member on this pool is already using ip address {ip} on "
                    f"protocol_port {port}"
                )
        return self._new_under(
            MEMBER,
            "pool_id",
            pool,
            body,
            address=ip,
            protocol_port=port,
            weight=checks.integer(body, "weight", 1, minimum=0, maximum=256),
            backup=checks.boolean(body, "backup", False),
            subnet_id=subnet_id,
            monitor_address=checks.address(body, "monitor_address"),
            monitor_port=checks.integer(body, "monitor_port", minimum=1, maximum=65535),
        )

    def create_monitor(self, project: str | None, body: Mapping[str, Any]) -> Document:
        pool = self._reference(POOL, checks.required(body, "pool_id"), project)
        kind = checks.choice(body, "type", checks.MONITOR_TYPES)
        checks.required(body, "type")
        for name in ("delay", "timeout", "max_retries"):
            checks.required(body, name)
        if self.children(MONITOR, "pool_id", pool["id"]):
            raise Conflict("This pool already has a health monitor")
        http = kind in ("HTTP", "HTTPS")
        if not http and any(body.get(n) for n in ("http_method", "url_path", "expected_codes")):
            raise checks.validation(
                "http_method, url_path and expected_codes are only valid for HTTP and HTTPS "
                "health monitors."
            )
        return self._new_under(
            MONITOR,
            "pool_id",
            pool,
            body,
            type=kind,
            delay=checks.integer(body, "delay", minimum=0),
            timeout=checks.integer(body, "timeout", minimum=0),
            max_retries=checks.integer(body, "max_retries", minimum=1, maximum=10),
            max_retries_down=checks.integer(body, "max_retries_down", 3, minimum=1, maximum=10),
            http_method=checks.choice(
                body, "http_method", checks.HTTP_METHODS, "GET" if http else None
            ),
            url_path=checks.text(body, "url_path", "/" if http else None),
            expected_codes=checks.text(body, "expected_codes", "200" if http else None),
            http_version=body.get("http_version"),
            domain_name=body.get("domain_name"),
        )

    def create_l7policy(self, project: str | None, body: Mapping[str, Any]) -> Document:
        listener = self._reference(LISTENER, checks.required(body, "listener_id"), project)
        action = checks.choice(body, "action", checks.L7_ACTIONS)
        checks.required(body, "action")
        pool_id = body.get("redirect_pool_id")
        if action == "REDIRECT_TO_POOL":
            pool = self._reference(POOL, checks.required(body, "redirect_pool_id"), project)
            if pool["loadbalancer_id"] != listener["loadbalancer_id"]:
                raise checks.validation("The redirect pool is not on the listener's load balancer.")
        elif action == "REDIRECT_TO_URL":
            checks.required(body, "redirect_url")
        elif action == "REDIRECT_PREFIX":
            checks.required(body, "redirect_prefix")
        position = checks.integer(body, "position", minimum=1)
        policy = self._new_under(
            L7POLICY,
            "listener_id",
            listener,
            body,
            action=action,
            position=position,
            redirect_pool_id=pool_id if action == "REDIRECT_TO_POOL" else None,
            redirect_url=body.get("redirect_url") if action == "REDIRECT_TO_URL" else None,
            redirect_prefix=body.get("redirect_prefix") if action == "REDIRECT_PREFIX" else None,
            redirect_http_code=checks.integer(
                body, "redirect_http_code", 302 if action.startswith("REDIRECT_TO_U") else None
            ),
        )
        self._order(listener["id"], policy)
        self._pending(LISTENER, listener, "PENDING_UPDATE")
        return policy

    def _order(self, listener_id: str, moved: Document | None) -> None:
        """Octavia's policy positions: 1..n in order, ``moved`` put where it asks (after
        the last when it asks for none or beyond)."""
        policies = [
            p
            for p in self.children(L7POLICY, "listener_id", listener_id)
            if p["provisioning_status"] != "PENDING_DELETE"
            and (moved is None or p["id"] != moved["id"])
        ]
        policies.sort(key=lambda p: int(p["position"] or 0))
        if moved is not None:
            wanted = moved["position"] or len(policies) + 1
            policies.insert(min(int(wanted), len(policies) + 1) - 1, moved)
        for index, policy in enumerate(policies, start=1):
            if policy["position"] != index or (moved is not None and policy["id"] == moved["id"]):
                policy["position"] = index
                self.store.put(L7POLICY, policy["id"], policy)

    def create_l7rule(
        self, project: str | None, policy_id: str, body: Mapping[str, Any]
    ) -> Document:
        policy = self.get(L7POLICY, policy_id, project)
        kind = checks.choice(body, "type", checks.L7_RULE_TYPES)
        checks.required(body, "type")
        compare = checks.choice(body, "compare_type", checks.L7_COMPARE_TYPES)
        checks.required(body, "compare_type")
        checks.required(body, "value")
        value = checks.text(body, "value", None)
        if kind in ("HEADER", "COOKIE", "SSL_DN_FIELD") and not body.get("key"):
            raise checks.validation(f"L7 rules of type {kind} need a key.")
        body = {k: v for k, v in body.items() if k != "name"}  # rules have no name
        rule = self._new_under(
            L7RULE,
            "l7policy_id",
            policy,
            body,
            type=kind,
            compare_type=compare,
            key=body.get("key"),
            value=value,
            invert=checks.boolean(body, "invert", False),
        )
        rule.pop("name")
        rule.pop("description")
        self.store.put(L7RULE, rule["id"], rule)
        return rule

    # -- updating ---------------------------------------------------------------------

    def update(self, kind: str, id: str, project: str | None, body: Mapping[str, Any]) -> Document:
        document = self.get(kind, id, project)
        changes = updates.checked(kind, body)
        lb = self.get(LOADBALANCER, str(document.get("loadbalancer_id", document["id"])), None)
        if kind == L7POLICY and "position" in changes:
            document.update(changes)
            self._order(document["listener_id"], document)
        if kind == LISTENER and changes.get("default_pool_id"):
            self._default_pool(lb, str(changes["default_pool_id"]), document["protocol"], project)
        self._lock(lb)
        if kind == LOADBALANCER:
            document = lb
        document.update(changes)
        self._pending(kind, document, "PENDING_UPDATE")
        return document

    # -- deleting ---------------------------------------------------------------------

    def delete(self, kind: str, id: str, project: str | None, *, cascade: bool = False) -> None:
        document = self.get(kind, id, project)
        if document["provisioning_status"] == "PENDING_DELETE":
            raise checks.immutable(LABELS[kind], id)
        if kind == LOADBALANCER:
            self._delete_loadbalancer(document, cascade)
            return
        lb = self.get(LOADBALANCER, document["loadbalancer_id"], None)
        self._lock(lb)
        doomed = [(kind, document)]
        if kind == LISTENER:
            policies = self.children(L7POLICY, "listener_id", id)
            doomed += [(L7POLICY, p) for p in policies]
            doomed += [
                (L7RULE, r) for p in policies for r in self.children(L7RULE, "l7policy_id", p["id"])
            ]
        if kind == L7POLICY:
            doomed += [(L7RULE, r) for r in self.children(L7RULE, "l7policy_id", id)]
        if kind == POOL:
            users = self.children(L7POLICY, "redirect_pool_id", id)
            if users:
                raise Conflict(f"Pool {id} is in use by L7 policy {users[0]['id']}.")
            doomed += [(MEMBER, m) for m in self.children(MEMBER, "pool_id", id)]
            doomed += [(MONITOR, m) for m in self.children(MONITOR, "pool_id", id)]
            for listener in self.children(LISTENER, "default_pool_id", id):
                listener["default_pool_id"] = None
                self._pending(LISTENER, listener, "PENDING_UPDATE")
        for doomed_kind, doomed_document in doomed:
            self._pending(doomed_kind, doomed_document, "PENDING_DELETE")
        if kind == L7POLICY:
            self._order(document["listener_id"], None)

    def _delete_loadbalancer(self, lb: Document, cascade: bool) -> None:
        if str(lb["provisioning_status"]).startswith("PENDING"):
            raise checks.immutable(LABELS[LOADBALANCER], lb["id"])
        children = [
            (kind, child)
            for kind in KINDS[1:]
            for child in self.children(kind, "loadbalancer_id", lb["id"])
        ]
        if children and not cascade:
            raise BadRequest(f"Cannot delete Load Balancer {lb['id']} - it has children")
        for kind, child in children:
            self._pending(kind, child, "PENDING_DELETE")
        self._pending(LOADBALANCER, lb, "PENDING_DELETE")
        # the port goes now, not when the delete settles: Neutron's listings must not
        # wait for someone to read Octavia again
        vip.release(self.hub, lb)


def _transport(protocol: str) -> str:
    """What a listener's protocol runs on: two listeners clash on a port when both use TCP
    (or both UDP, or SCTP)."""
    return protocol if protocol in ("UDP", "SCTP") else "TCP"
