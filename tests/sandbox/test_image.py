"""Glance v2 through openstacksdk, and its plain-text errors on the wire."""

from __future__ import annotations

import hashlib
import uuid
from pathlib import Path
from typing import Any

import httpx
import openstack.exceptions
import pytest

from .server import RunningSandbox


def test_seeded_images_and_property_filters(cloud: Any) -> None:
    names = {i.name for i in cloud.image.images()}
    assert {"cirros-0.6.2-x86_64-disk", "ubuntu-22.04-server-cloudimg-amd64"} <= names
    (ubuntu,) = list(cloud.image.images(os_distro="ubuntu"))
    assert (ubuntu.os_distro, ubuntu.status, ubuntu.visibility) == ("ubuntu", "active", "public")
    assert [i.name for i in cloud.image.images(name="cirros-0.6.2-x86_64-disk")] == [
        "cirros-0.6.2-x86_64-disk"
    ]


def test_create_upload_download_update_delete(
    sandbox: RunningSandbox, cloud: Any, demo: Any, tmp_path: Path
) -> None:
    data = uuid.uuid4().bytes * 1000
    path = tmp_path / "disk.qcow2"
    path.write_bytes(data)
    name = f"img-{uuid.uuid4().hex[:8]}"
    with path.open("rb") as stream:
        image = cloud.image.create_image(
            name=name, data=stream, disk_format="qcow2", container_format="bare", wait=True
        )
    image = cloud.image.get_image(image.id)
    assert (image.status, image.size) == ("active", len(data))
    assert image.checksum == hashlib.md5(data, usedforsecurity=False).hexdigest()
    assert image.hash_value == hashlib.sha512(data).hexdigest()
    assert cloud.image.download_image(image).content == data
    # private to its project: demo does not see it
    with pytest.raises(openstack.exceptions.NotFoundException):
        demo.image.get_image(image.id)
    cloud.image.update_image(image, min_ram=256, os_distro="cirros")
    image = cloud.image.get_image(image.id)
    assert (image.min_ram, image.os_distro) == (256, "cirros")
    cloud.image.add_tag(image, "golden")
    assert cloud.image.get_image(image.id).tags == ["golden"]
    cloud.image.update_image(image, is_protected=True)
    with pytest.raises(openstack.exceptions.ForbiddenException, match="protected"):
        cloud.image.delete_image(image)
    cloud.image.update_image(image, is_protected=False)
    cloud.image.delete_image(image)
    token = cloud.session.get_token()
    gone = httpx.get(f"{sandbox.url}/image/v2/images/{image.id}", headers={"X-Auth-Token": token})
    assert gone.status_code == 404
    assert "<h1>404 Not Found</h1>" in gone.text
    assert f"No image found with ID {image.id}" in gone.text


def test_read_only_attributes_and_bad_formats_are_refused(
    sandbox: RunningSandbox, cloud: Any
) -> None:
    headers = {"X-Auth-Token": cloud.session.get_token()}
    url = f"{sandbox.url}/image/v2/images"
    refused = httpx.post(url, json={"name": "x", "status": "active"}, headers=headers)
    assert (refused.status_code, "Attribute 'status' is read-only." in refused.text) == (403, True)
    bad = httpx.post(url, json={"name": "x", "disk_format": "floppy"}, headers=headers)
    assert bad.status_code == 400
    root = httpx.get(f"{sandbox.url}/image")
    assert root.status_code == 300
    assert root.json()["versions"][0]["status"] == "CURRENT"


def test_a_server_snapshot_is_a_private_image(cloud: Any, demo: Any) -> None:
    image = cloud.image.find_image("ubuntu-22.04-server-cloudimg-amd64")
    server = demo.compute.create_server(
        name=f"snap-{uuid.uuid4().hex[:6]}", flavor_id="1", image_id=image.id, networks="none"
    )
    snapshot_id = demo.compute.create_server_image(server, "snap", metadata={"k": "v"})
    snapshot = demo.image.get_image(snapshot_id)
    assert (snapshot.name, snapshot.status, snapshot.visibility) == ("snap", "active", "private")
    assert snapshot.instance_uuid == server.id
    assert snapshot.properties["k"] == "v"
    assert snapshot.disk_format == "qcow2"
    demo.image.delete_image(snapshot)
    demo.compute.delete_server(server)
