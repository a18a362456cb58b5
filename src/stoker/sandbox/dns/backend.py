"""Designate's backend: zones and their recordsets.

A zone is ``PENDING`` (``action: CREATE``) for the sandbox's build delay, then ``ACTIVE``
(``action: NONE``); a change to it or to one of its recordsets makes both ``PENDING``
again for the delay (``UPDATE``, and the zone's serial moves on); a deleted zone or
recordset is ``PENDING``/``DELETE`` for the delay, then gone (404). As everywhere in the
sandbox, each request settles first what the clock says is done. A new primary zone gets
its ``SOA`` and ``NS`` recordsets, as Designate makes them.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from typing import Any

from stoker.sandbox.http_errors import BadRequest, Conflict, NotFound, OverQuota
from stoker.sandbox.service import HubBackend, micro_time, new_id
from stoker.sandbox.store import Document

ZONE = "dns.zone"
RECORDSET = "dns.recordset"
POOL_ID = "794ccc2c-d751-44fe-b57f-8894c9f5c842"  # Designate's default pool id
NAMESERVER = "ns1.sandbox.stoker.test."
RECORD_TYPES = (
    "A", "AAAA", "CNAME", "MX", "SRV", "TXT", "SPF", "NS", "PTR", "SSHFP", "SOA", "CAA",
    "CERT", "NAPTR",
)  # fmt: skip
_LABEL = re.compile(r"^(?!-)[A-Za-z0-9_*-]{1,63}(?<!-)$")


class InvalidObject(BadRequest):
    """A body that does not fit Designate's JSON schema: ``invalid_object`` with the
    schema's complaints in ``errors``."""

    def __init__(self, path: list[str], message: str, validator: str, expected: Any) -> None:
        super().__init__("Provided object does not match schema", kind="invalid_object")
        self.errors = [
            {
                "path": path,
                "message": message,
                "validator": validator,
                "validator_value": expected,
            }
        ]


def _domain_name(value: Any, path: list[str], *, zone: bool) -> str:
    """A fully qualified name (ends with a dot; labels of letters, digits, hyphens)."""
    kind = "domainname" if zone else "hostname"
    if not isinstance(value, str) or not value.endswith(".") or len(value) > 255:
        raise InvalidObject(path, f"{value!r} is not a {kind!r}", "format", kind)
    labels = value[:-1].split(".")
    if (zone and len(labels) < 2) or not all(_LABEL.match(label) for label in labels):
        raise InvalidObject(path, f"{value!r} is not a {kind!r}", "format", kind)
    return value.lower()


def _ttl(value: Any, path: list[str]) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidObject(
            path, f"{value!r} is not of type 'integer', 'null'", "type", ["integer", "null"]
        )
    if not 1 <= value <= 2147483647:
        raise InvalidObject(path, f"{value} is less than the minimum of 1", "minimum", 1)
    return value


def _only(body: Mapping[str, Any], allowed: tuple[str, ...]) -> None:
    """The schema of an update: a property it does not name is refused."""
    for name in body:
        if name not in allowed:
            message = f"Additional properties are not allowed ('{name}' was unexpected)"
            raise InvalidObject([], message, "additionalProperties", False)


def check_records(kind: str, records: Any) -> list[str]:
    """The records, checked against their type as Designate's schema checks them."""
    if not isinstance(records, list) or not records:
        raise InvalidObject(["records"], f"{records!r} is too short", "minItems", 1)
    checked = []
    for index, record in enumerate(records):
        path = ["records", str(index)]
        if not isinstance(record, str):
            raise InvalidObject(path, f"{record!r} is not of type 'string'", "type", "string")
        if kind in ("A", "AAAA"):
            parse = ipaddress.IPv4Address if kind == "A" else ipaddress.IPv6Address
            format_name = "ipv4" if kind == "A" else "ipv6"
            try:
                parse(record)
            except ValueError:
                raise InvalidObject(
                    path, f"{record!r} is not a {format_name!r}", "format", format_name
                ) from None
        elif kind in ("CNAME", "NS", "PTR"):
            _domain_name(record, path, zone=False)
        elif kind == "MX":
            priority, _, host = record.partition(" ")
            if not priority.isdigit() or not host:
                raise InvalidObject(path, f"{record!r} is not a 'mx' record", "format", "mx")
            _domain_name(host, path, zone=False)
        elif kind in ("TXT", "SPF") and len(record) > 255 and not record.startswith('"'):
            raise InvalidObject(path, f"{record!r} is too long", "maxLength", 255)
        checked.append(record)
    if kind == "CNAME" and len(checked) > 1:
        raise BadRequest("CNAME recordsets may not have more than 1 record", kind="bad_request")
    return checked


class DesignateBackend(HubBackend):
    """Zones and recordsets of one sandbox; see the module docstring."""

    def settle(self) -> None:
        now = self.hub.now()
        with self.store.transaction():
            for kind in (ZONE, RECORDSET):
                for document in self.store.list(
                    kind, where=lambda d: d["status"] == "PENDING" and d["_until"] <= now
                ):
                    if document["action"] == "DELETE":
                        self.store.delete(kind, document["id"])
                        continue
                    document["status"] = "ACTIVE"
                    document["action"] = "NONE"
                    self.store.put(kind, document["id"], document)

    def _pending(self, kind: str, document: Document, action: str) -> None:
        document["status"] = "PENDING"
        document["action"] = action
        document["_until"] = self.hub.now() + self.delay
        if action != "CREATE":
            document["updated_at"] = micro_time(self.hub.now())
            document["version"] = int(document["version"]) + 1
        self.store.put(kind, document["id"], document)

    def _touch_zone(self, zone: Document) -> None:
        """A zone whose contents change: its serial moves on and it is pushed again."""
        zone["serial"] = max(int(zone["serial"]) + 1, int(self.hub.now()))
        if zone["action"] != "CREATE":
            self._pending(ZONE, zone, "UPDATE")
        else:
            self.store.put(ZONE, zone["id"], zone)

    # zones

    def zone(self, id: str, project: str | None) -> Document:
        document = self.store.get(ZONE, str(id))
        if document is None or (project is not None and document["project_id"] != project):
            raise NotFound("Could not find Zone", kind="zone_not_found")
        return document

    def zones(self, project: str | None) -> list[Document]:
        return self.store.list(ZONE, project_id=project)

    def create_zone(self, project: str, body: Mapping[str, Any]) -> Document:
        if "name" not in body:
            raise InvalidObject([], "'name' is a required property", "required", ["name"])
        name = _domain_name(body.get("name"), ["name"], zone=True)
        kind = body.get("type") or "PRIMARY"
        if kind not in ("PRIMARY", "SECONDARY"):
            raise InvalidObject(
                ["type"],
                f"{kind!r} is not one of ['PRIMARY', 'SECONDARY']",
                "enum",
                ["PRIMARY", "SECONDARY"],
            )
        email = body.get("email")
        masters = list(body.get("masters") or [])
        if kind == "PRIMARY" and not email:
            raise InvalidObject([], "'email' is a required property", "required", ["email"])
        if kind == "SECONDARY" and not masters:
            raise InvalidObject([], "'masters' is a required property", "required", ["masters"])
        if email is not None and (not isinstance(email, str) or "@" not in email):
            raise InvalidObject(["email"], f"{email!r} is not a 'email'", "format", "email")
        if self.store.list(ZONE, where=lambda z: z["name"] == name):
            raise Conflict("Duplicate Zone", kind="duplicate_zone")
        limit = self.hub.quota("dns", "zones")
        if limit >= 0 and self.store.count(ZONE, project_id=project) >= limit:
            raise OverQuota("Quota exceeded for zones.", kind="over_quota", status=413)
        now = self.hub.now()
        zone: Document = {
            "id": new_id(),
            "pool_id": POOL_ID,
            "project_id": project,
            "name": name,
            "email": email,
            "ttl": _ttl(body.get("ttl", 3600), ["ttl"]),
            "serial": int(now),
            "status": "PENDING",
            "action": "CREATE",
            "description": body.get("description"),
            "masters": masters,
            "type": kind,
            "transferred_at": None,
            "version": 1,
            "created_at": micro_time(now),
            "updated_at": None,
            "attributes": dict(body.get("attributes") or {}),
            "shared": False,
            "_until": now + self.delay,
        }
        self.store.insert(ZONE, zone["id"], zone, project)
        if kind == "PRIMARY":
            admin = str(email).replace("@", ".") + "."
            soa = f"{NAMESERVER} {admin} {zone['serial']} 3584 600 86400 3600"
            self._insert_recordset(zone, name, "SOA", [soa], None, None, managed=True)
            self._insert_recordset(zone, name, "NS", [NAMESERVER], None, None, managed=True)
        return zone

    def update_zone(self, id: str, project: str | None, body: Mapping[str, Any]) -> Document:
        zone = self.zone(id, project)
        _only(body, ("email", "ttl", "description", "masters", "attributes"))
        if zone["action"] == "DELETE":
            raise BadRequest("Can not update a deleting zone", kind="bad_request")
        if "ttl" in body:
            zone["ttl"] = _ttl(body["ttl"], ["ttl"])
        for name in ("email", "description", "masters", "attributes"):
            if name in body:
                zone[name] = body[name]
        zone["serial"] = max(int(zone["serial"]) + 1, int(self.hub.now()))
        self._pending(ZONE, zone, "UPDATE")
        return zone

    def delete_zone(self, id: str, project: str | None) -> Document:
        zone = self.zone(id, project)
        if zone["action"] == "DELETE":
            raise BadRequest("Can not delete a deleting zone", kind="bad_request")
        self._pending(ZONE, zone, "DELETE")
        for recordset in self.store.list(RECORDSET, where=lambda r: r["zone_id"] == zone["id"]):
            self._pending(RECORDSET, recordset, "DELETE")
        return zone

    # recordsets

    def recordset(self, zone_id: str | None, id: str, project: str | None) -> Document:
        document = self.store.get(RECORDSET, str(id))
        if (
            document is None
            or (zone_id is not None and document["zone_id"] != zone_id)
            or (project is not None and document["project_id"] != project)
        ):
            raise NotFound("Could not find RecordSet", kind="recordset_not_found")
        return document

    def recordsets(self, zone_id: str | None, project: str | None) -> list[Document]:
        if zone_id is not None:
            self.zone(zone_id, project)
        return self.store.list(
            RECORDSET,
            project_id=project,
            where=lambda r: zone_id is None or r["zone_id"] == zone_id,
        )

    def create_recordset(
        self, zone_id: str, project: str | None, body: Mapping[str, Any]
    ) -> Document:
        zone = self.zone(zone_id, project)
        if zone["action"] == "DELETE":
            raise BadRequest("Can not update a deleting zone", kind="bad_request")
        for required in ("name", "type", "records"):
            if required not in body:
                raise InvalidObject(
                    [], f"'{required}' is a required property", "required", [required]
                )
        name = _domain_name(body["name"], ["name"], zone=False)
        kind = body["type"]
        if kind not in RECORD_TYPES:
            raise InvalidObject(
                ["type"], f"{kind!r} is not one of {list(RECORD_TYPES)}", "enum", list(RECORD_TYPES)
            )
        if kind == "SOA":
            raise BadRequest("Creating a SOA recordset is not allowed", kind="bad_request")
        if name != zone["name"] and not name.endswith("." + zone["name"]):
            raise BadRequest(
                "RecordSet is not contained within it's parent zone",
                kind="invalid_recordset_location",
            )
        records = check_records(kind, body["records"])
        same_name = self.store.list(
            RECORDSET, where=lambda r: r["zone_id"] == zone["id"] and r["name"] == name
        )
        if any(r["type"] == kind for r in same_name):
            raise Conflict("Duplicate RecordSet", kind="duplicate_recordset")
        if (kind == "CNAME" and same_name) or any(r["type"] == "CNAME" for r in same_name):
            raise BadRequest(
                "CNAME recordsets may not share a name with any other records",
                kind="invalid_recordset_location",
            )
        recordset = self._insert_recordset(
            zone, name, kind, records, _ttl(body.get("ttl"), ["ttl"]), body.get("description")
        )
        self._touch_zone(zone)
        return recordset

    def _insert_recordset(
        self,
        zone: Document,
        name: str,
        kind: str,
        records: list[str],
        ttl: int | None,
        description: Any,
        *,
        managed: bool = False,
    ) -> Document:
        now = self.hub.now()
        recordset: Document = {
            "id": new_id(),
            "project_id": zone["project_id"],
            "name": name,
            "zone_id": zone["id"],
            "zone_name": zone["name"],
            "type": kind,
            "records": records,
            "ttl": ttl,
            "status": "PENDING",
            "action": "CREATE",
            "description": description,
            "version": 1,
            "created_at": micro_time(now),
            "updated_at": None,
            "_managed": managed,
            "_until": now + self.delay,
        }
        self.store.insert(RECORDSET, recordset["id"], recordset, zone["project_id"])
        return recordset

    def update_recordset(
        self, zone_id: str, id: str, project: str | None, body: Mapping[str, Any]
    ) -> Document:
        recordset = self.recordset(zone_id, id, project)
        if recordset["_managed"] and recordset["type"] == "SOA":
            raise BadRequest("Updating SOA recordsets is not allowed", kind="bad_request")
        _only(body, ("records", "ttl", "description"))
        if "records" in body:
            recordset["records"] = check_records(recordset["type"], body["records"])
        if "ttl" in body:
            recordset["ttl"] = _ttl(body["ttl"], ["ttl"])
        if "description" in body:
            recordset["description"] = body["description"]
        self._pending(RECORDSET, recordset, "UPDATE")
        self._touch_zone(self.zone(recordset["zone_id"], None))
        return recordset

    def delete_recordset(self, zone_id: str, id: str, project: str | None) -> Document:
        recordset = self.recordset(zone_id, id, project)
        if recordset["_managed"]:
            raise BadRequest(
                f"Deleting a {recordset['type']} recordset managed by the zone is not allowed",
                kind="bad_request",
            )
        self._pending(RECORDSET, recordset, "DELETE")
        self._touch_zone(self.zone(recordset["zone_id"], None))
        return recordset
