"""The sandbox's Cinder v3 driven by openstacksdk on a real server, and its backend on a
clock the test moves (the ``creating`` delay)."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import openstack.exceptions
import pytest

from stoker.sandbox.interfaces import VolumeProvider
from stoker.sandbox.service import Hub, SandboxConfig
from stoker.sandbox.store import SandboxStore
from stoker.sandbox.volume.backend import CinderBackend

from .server import RunningSandbox

pytestmark = pytest.mark.heavy


def _raw(sandbox: RunningSandbox, cloud: Any, method: str, path: str, **kw: Any) -> httpx.Response:
    headers = {"X-Auth-Token": cloud.session.get_token(), **kw.pop("headers", {})}
    url = f"{sandbox.url}/volume/v3/{cloud.current_project_id}{path}"
    return httpx.request(method, url, headers=headers, **kw)


def test_creating_until_the_build_delay_has_passed() -> None:
    now = [1000.0]
    hub = Hub(
        store=SandboxStore("sqlite://"), config=SandboxConfig(build_delay=5.0), clock=lambda: now[0]
    )
    cinder = CinderBackend(hub)
    volume = cinder.create("p1", "u1", {"size": 2, "name": "data"})
    assert volume["status"] == "creating"
    now[0] += 4.9
    assert cinder.get(volume["id"], "p1")["status"] == "creating"
    with pytest.raises(Exception, match="status must be available"):
        cinder.attach("p1", volume["id"], "server-1", "/dev/vdb")
    now[0] += 0.2
    assert cinder.get(volume["id"], "p1")["status"] == "available"
    assert [v["status"] for v in cinder.volumes("p1")] == ["available"]
    assert cinder.volumes("p2") == []


def test_version_discovery_and_microversions(sandbox: RunningSandbox, demo: Any) -> None:
    root = httpx.get(f"{sandbox.url}/volume")
    assert root.status_code == 300
    version = root.json()["versions"][0]
    assert (version["id"], version["min_version"], version["version"]) == ("v3.0", "3.0", "3.70")
    listed = _raw(
        sandbox, demo, "GET", "/volumes", headers={"OpenStack-API-Version": "volume 3.27"}
    )
    assert listed.headers["openstack-api-version"] == "volume 3.27"
    too_new = _raw(
        sandbox, demo, "GET", "/volumes", headers={"OpenStack-API-Version": "volume 3.99"}
    )
    assert too_new.status_code == 406


def test_volume_lifecycle_types_extend_and_404_after_delete(
    sandbox: RunningSandbox, demo: Any
) -> None:
    types = [t.name for t in demo.block_storage.types()]
    assert "__DEFAULT__" in types
    volume = demo.block_storage.create_volume(size=1, name=f"vol-{uuid.uuid4().hex[:6]}")
    volume = demo.block_storage.wait_for_status(volume, "available", wait=10, interval=0.05)
    assert (volume.size, volume.volume_type, volume.is_bootable) == (1, "__DEFAULT__", False)
    assert volume.project_id == demo.current_project_id
    demo.block_storage.extend_volume(volume, 3)
    assert demo.block_storage.get_volume(volume.id).size == 3
    shrink = _raw(
        sandbox, demo, "POST", f"/volumes/{volume.id}/action", json={"os-extend": {"new_size": 2}}
    )
    assert shrink.status_code == 400
    assert shrink.json() == {
        "badRequest": {
            "code": 400,
            "message": "Invalid input received: New size for extend must be greater than "
            "current size. (current: 3, extended: 2).",
        }
    }
    bad_type = _raw(
        sandbox, demo, "POST", "/volumes", json={"volume": {"size": 1, "volume_type": "gold"}}
    )
    assert bad_type.json() == {
        "itemNotFound": {"code": 404, "message": "Volume type with name gold could not be found."}
    }
    no_snapshot = _raw(
        sandbox, demo, "POST", "/volumes", json={"volume": {"size": 1, "snapshot_id": "s-1"}}
    )
    assert no_snapshot.json()["itemNotFound"]["message"] == "Snapshot s-1 could not be found."
    assert demo.block_storage.find_volume(volume.name).id == volume.id
    demo.block_storage.delete_volume(volume)
    gone = _raw(sandbox, demo, "GET", f"/volumes/{volume.id}")
    assert gone.json() == {
        "itemNotFound": {"code": 404, "message": f"Volume {volume.id} could not be found."}
    }
    with pytest.raises(openstack.exceptions.NotFoundException):
        demo.block_storage.get_volume(volume.id)


def test_attach_actions_in_use_and_detach(sandbox: RunningSandbox, demo: Any) -> None:
    volume = demo.block_storage.create_volume(size=1)
    demo.block_storage.wait_for_status(volume, "available", wait=10, interval=0.05)
    demo.block_storage.reserve_volume(volume)
    assert demo.block_storage.get_volume(volume.id).status == "attaching"
    demo.block_storage.attach_volume(volume, "/dev/vdb", instance="server-1")
    attached = demo.block_storage.get_volume(volume.id)
    assert attached.status == "in-use"
    (attachment,) = attached.attachments
    assert (attachment["server_id"], attachment["device"]) == ("server-1", "/dev/vdb")
    refused = _raw(sandbox, demo, "DELETE", f"/volumes/{volume.id}")
    assert refused.status_code == 400
    assert refused.json()["badRequest"]["message"].startswith(
        "Invalid volume: Volume status must be available or error"
    )
    demo.block_storage.begin_volume_detaching(volume)
    assert demo.block_storage.get_volume(volume.id).status == "detaching"
    demo.block_storage.detach_volume(volume, attachment["attachment_id"])
    detached = demo.block_storage.get_volume(volume.id)
    assert (detached.status, detached.attachments) == ("available", [])
    demo.block_storage.delete_volume(volume)


def test_attachments_api_as_nova_uses_it(sandbox: RunningSandbox, demo: Any) -> None:
    volume = demo.block_storage.create_volume(size=1)
    demo.block_storage.wait_for_status(volume, "available", wait=10, interval=0.05)
    attachment = demo.block_storage.create_attachment(volume.id, instance="server-2")
    assert attachment.status == "reserved"
    assert demo.block_storage.get_volume(volume.id).status == "reserved"
    connector = {"host": "compute-1", "initiator": "iqn.1993-08.org.debian:01:abc"}
    attachment = demo.block_storage.update_attachment(attachment.id, connector=connector)
    assert attachment.status == "attaching"
    assert attachment.connection_info["driver_volume_type"] == "iscsi"
    demo.block_storage.complete_attachment(attachment.id)
    in_use = demo.block_storage.get_volume(volume.id)
    assert in_use.status == "in-use"
    assert [a["server_id"] for a in in_use.attachments] == ["server-2"]
    demo.block_storage.delete_attachment(attachment.id)
    assert demo.block_storage.get_volume(volume.id).status == "available"
    old = _raw(
        sandbox, demo, "GET", "/attachments", headers={"OpenStack-API-Version": "volume 3.0"}
    )
    assert old.status_code == 404
    demo.block_storage.delete_volume(volume)


def test_nova_attaches_through_the_volume_provider(sandbox: RunningSandbox, demo: Any) -> None:
    cinder = sandbox.hub.find(VolumeProvider)
    assert cinder is not None
    volume = demo.block_storage.create_volume(size=1)
    demo.block_storage.wait_for_status(volume, "available", wait=10, interval=0.05)
    with sandbox.hub.store.transaction():
        cinder.attach(demo.current_project_id, volume.id, "server-3", "/dev/vdc")
    shown = demo.block_storage.get_volume(volume.id)
    assert shown.status == "in-use"
    assert shown.attachments[0]["device"] == "/dev/vdc"
    cinder.detach(volume.id, "server-3")
    assert demo.block_storage.get_volume(volume.id).status == "available"
    demo.block_storage.delete_volume(volume)
    cinder.detach(volume.id, "server-3")  # gone already: no error


def test_a_volume_from_a_glance_image_is_bootable(sandbox: RunningSandbox, demo: Any) -> None:
    image = next(iter(demo.image.images()))
    volume = demo.block_storage.create_volume(size=1, image_id=image.id)
    volume = demo.block_storage.wait_for_status(volume, "available", wait=10, interval=0.05)
    assert volume.is_bootable is True
    assert volume.volume_image_metadata["image_id"] == image.id
    assert volume.volume_image_metadata["image_name"] == image.name
    unknown = _raw(
        sandbox,
        demo,
        "POST",
        "/volumes",
        json={"volume": {"size": 1, "imageRef": str(uuid.uuid4())}},
    )
    assert unknown.json() == {
        "badRequest": {
            "code": 400,
            "message": "Invalid image identifier or unable to access requested image.",
        }
    }
    demo.block_storage.delete_volume(volume)


def test_retype_and_readonly(sandbox: RunningSandbox, cloud: Any) -> None:
    name = f"gold-{uuid.uuid4().hex[:6]}"
    gold = cloud.block_storage.create_type(name=name)
    volume = cloud.block_storage.create_volume(size=1)
    cloud.block_storage.wait_for_status(volume, "available", wait=10, interval=0.05)
    cloud.block_storage.retype_volume(volume, name)
    assert cloud.block_storage.get_volume(volume.id).volume_type == name
    cloud.block_storage.set_volume_readonly(volume, True)
    assert cloud.block_storage.get_volume(volume.id).metadata["readonly"] == "True"
    in_use = _raw(sandbox, cloud, "DELETE", f"/types/{gold.id}")
    assert in_use.json()["badRequest"]["message"] == "Target volume type is still in use."
    cloud.block_storage.delete_volume(volume)
    cloud.block_storage.delete_type(gold)
    assert name not in {t.name for t in cloud.block_storage.types()}


def test_malformed_volume_requests_are_400_not_500(sandbox: RunningSandbox, demo: Any) -> None:
    volume = demo.block_storage.create_volume(size=1)
    cases = [
        ("POST", "/volumes", {"volume": {"size": "big"}}),
        ("POST", "/volumes", {"volume": {"size": 1, "metadata": [1]}}),
        ("PUT", f"/volumes/{volume.id}", {"volume": {"metadata": "x"}}),
        ("POST", f"/volumes/{volume.id}/action", {"os-extend": {"new_size": "x"}}),
        ("POST", f"/volumes/{volume.id}/action", {"os-initialize_connection": {"connector": 1}}),
        ("POST", f"/volumes/{volume.id}/action", {"os-frobnicate": {}}),
    ]
    for method, path, body in cases:
        response = _raw(sandbox, demo, method, path, json=body)
        assert response.status_code == 400, (method, path, body, response.text)
        assert response.json()["badRequest"]["message"], (method, path, body)
    demo.block_storage.delete_volume(volume)
