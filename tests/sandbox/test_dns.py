"""The sandbox's Designate driven by openstacksdk on a real server: zones and recordsets
PENDING until the clock says, Designate's refusals and error bodies."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import openstack.exceptions
import pytest

from .conftest import Clock
from .server import RunningSandbox


def _raw(sandbox: RunningSandbox, conn: Any, method: str, path: str, **kw: Any) -> httpx.Response:
    headers = {"X-Auth-Token": conn.session.get_token()}
    return httpx.request(method, f"{sandbox.url}/dns/v2{path}", headers=headers, **kw)


def test_zone_and_recordsets_pending_until_the_delay(demo: Any, clock: Clock) -> None:
    dns = demo.dns
    name = f"z{uuid.uuid4().hex[:8]}.example.net."
    zone = dns.create_zone(name=name, email="hostmaster@example.net", ttl=600)
    assert (zone.status, zone.action, zone.ttl) == ("PENDING", "CREATE", 600)
    clock.advance(10)
    zone = dns.get_zone(zone)
    assert (zone.status, zone.action) == ("ACTIVE", "NONE")
    managed = sorted((r.type, r.name) for r in dns.recordsets(zone))
    assert managed == [("NS", name), ("SOA", name)]
    first_serial = zone.serial

    www = dns.create_recordset(zone, name=f"www.{name}", type="A", records=["10.1.2.3"], ttl=60)
    assert (www.status, www.action) == ("PENDING", "CREATE")
    assert dns.get_zone(zone).status == "PENDING"  # pushed again, with a new serial
    clock.advance(10)
    assert dns.get_recordset(www, zone).status == "ACTIVE"
    assert dns.get_zone(zone).serial > first_serial
    www = dns.update_recordset(www, ttl=30, records=["10.1.2.4"])
    clock.advance(10)
    www = dns.get_recordset(www, zone)
    assert (www.ttl, www.records) == (30, ["10.1.2.4"])
    assert [r.id for r in dns.recordsets(zone, type="A")] == [www.id]
    assert dns.find_zone(name).id == zone.id

    dns.delete_recordset(www, zone)
    assert dns.get_recordset(www, zone).action == "DELETE"
    clock.advance(10)
    with pytest.raises(openstack.exceptions.NotFoundException):
        dns.get_recordset(www, zone)
    dns.delete_zone(zone)
    clock.advance(10)
    assert dns.find_zone(name) is None


@pytest.mark.slow  # ~0.6 s
def test_refusals_as_designate_writes_them(sandbox: RunningSandbox, cloud: Any, demo: Any) -> None:
    answer = _raw(sandbox, demo, "POST", "/zones", json={"name": "no-dot.org", "email": "a@b.c"})
    assert answer.status_code == 400
    body = answer.json()
    assert (body["code"], body["type"]) == (400, "invalid_object")
    assert body["errors"]["errors"][0]["path"] == ["name"]
    name = f"r{uuid.uuid4().hex[:8]}.example.net."
    zone = demo.dns.create_zone(name=name, email="a@example.net")
    answer = _raw(sandbox, cloud, "POST", "/zones", json={"name": name, "email": "a@b.c"})
    assert answer.status_code == 409
    assert (answer.json()["type"], answer.json()["message"]) == ("duplicate_zone", "Duplicate Zone")
    assert cloud.dns.find_zone(name) is None  # another project's zone (without all-projects)

    with pytest.raises(openstack.exceptions.BadRequestException, match="does not match schema"):
        demo.dns.create_recordset(zone, name=f"a.{name}", type="A", records=["not-an-ip"])
    with pytest.raises(openstack.exceptions.BadRequestException, match="parent zone"):
        demo.dns.create_recordset(zone, name="www.elsewhere.org.", type="A", records=["10.0.0.1"])
    demo.dns.create_recordset(zone, name=f"www.{name}", type="TXT", records=['"hello"'])
    with pytest.raises(openstack.exceptions.ConflictException, match="Duplicate RecordSet"):
        demo.dns.create_recordset(zone, name=f"www.{name}", type="TXT", records=['"again"'])
    with pytest.raises(openstack.exceptions.BadRequestException, match="CNAME"):
        demo.dns.create_recordset(zone, name=f"www.{name}", type="CNAME", records=[name])
    missing = str(uuid.uuid4())
    answer = _raw(sandbox, demo, "GET", f"/zones/{missing}")
    assert answer.json() == {
        "code": 404,
        "type": "zone_not_found",
        "message": "Could not find Zone",
    }
    demo.dns.delete_zone(zone)
