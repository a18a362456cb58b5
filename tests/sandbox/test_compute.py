"""Nova as openstacksdk drives it, and its status codes and bodies on the wire."""

from __future__ import annotations

import base64
import uuid
from typing import Any

import httpx
import openstack.exceptions
import pytest

from .conftest import Clock
from .server import RunningSandbox

pytestmark = pytest.mark.heavy


def _name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def _cirros(cloud: Any) -> Any:
    return cloud.image.find_image("cirros-0.6.2-x86_64-disk")


def _token(sandbox: RunningSandbox, user: str = "admin") -> str:
    return str(sandbox.connect(user).session.get_token())


def test_seeded_flavors_and_flavor_create_delete(cloud: Any, demo: Any) -> None:
    names = [f.name for f in cloud.compute.flavors()]
    assert names[:2] == ["m1.tiny", "m1.small"]
    name = _name("flavor")
    flavor = cloud.compute.create_flavor(name=name, ram=256, vcpus=1, disk=1)
    assert cloud.compute.get_flavor(flavor.id).ram == 256
    cloud.compute.create_flavor_extra_specs(flavor, {"hw:cpu_policy": "dedicated"})
    assert cloud.compute.fetch_flavor_extra_specs(flavor).extra_specs == {
        "hw:cpu_policy": "dedicated"
    }
    with pytest.raises(openstack.exceptions.ConflictException, match="already exists"):
        cloud.compute.create_flavor(name=name, ram=256, vcpus=1, disk=1)
    with pytest.raises(openstack.exceptions.ForbiddenException):
        demo.compute.create_flavor(name=_name("nope"), ram=1, vcpus=1, disk=1)
    cloud.compute.delete_flavor(flavor)
    with pytest.raises(openstack.exceptions.NotFoundException):
        cloud.compute.get_flavor(flavor.id)


def test_keypairs_generated_and_imported(cloud: Any) -> None:
    generated = cloud.compute.create_keypair(name=_name("gen"))
    assert generated.private_key.startswith("-----BEGIN RSA PRIVATE KEY-----")
    assert generated.public_key.startswith("ssh-rsa ")
    imported = cloud.compute.create_keypair(name=_name("imp"), public_key=generated.public_key)
    assert imported.fingerprint == generated.fingerprint
    assert imported.private_key is None
    with pytest.raises(openstack.exceptions.ConflictException):
        cloud.compute.create_keypair(name=imported.name, public_key=generated.public_key)
    with pytest.raises(openstack.exceptions.BadRequestException, match="fingerprint"):
        cloud.compute.create_keypair(name=_name("bad"), public_key="ssh-rsa not-a-key")
    for keypair in (generated, imported):
        cloud.compute.delete_keypair(keypair)
    with pytest.raises(openstack.exceptions.NotFoundException):
        cloud.compute.get_keypair(generated.name)


def test_server_builds_resizes_reboots_and_is_gone_after_delete(cloud: Any, clock: Clock) -> None:
    server = cloud.compute.create_server(
        name=_name("vm"), flavor_id="1", image_id=_cirros(cloud).id, networks="none"
    )
    assert cloud.compute.get_server(server.id).status == "BUILD"
    clock.advance(10)
    server = cloud.compute.get_server(server.id)
    assert (server.status, server.vm_state, server.power_state) == ("ACTIVE", "active", 1)
    assert server.launched_at
    cloud.compute.resize_server(server, "2")
    assert cloud.compute.get_server(server.id).status == "RESIZE"
    with pytest.raises(openstack.exceptions.ConflictException, match="task_state"):
        cloud.compute.reboot_server(server, "SOFT")
    clock.advance(10)
    assert cloud.compute.get_server(server.id).status == "VERIFY_RESIZE"
    cloud.compute.confirm_server_resize(server)
    server = cloud.compute.get_server(server.id)
    assert (server.status, server.flavor.original_name) == ("ACTIVE", "m1.small")
    cloud.compute.reboot_server(server, "HARD")
    assert cloud.compute.get_server(server.id).status == "HARD_REBOOT"
    clock.advance(10)
    cloud.compute.set_server_metadata(server, role="web", tier="1")
    cloud.compute.delete_server_metadata(server, ["tier"])
    assert cloud.compute.get_server_metadata(server).metadata == {"role": "web"}
    cloud.compute.update_server(server, name="renamed")
    assert cloud.compute.get_server(server.id).name == "renamed"
    cloud.compute.delete_server(server)
    assert cloud.compute.get_server(server.id).task_state == "deleting"
    clock.advance(10)
    with pytest.raises(openstack.exceptions.NotFoundException):
        cloud.compute.get_server(server.id)
    assert server.id not in [s.id for s in cloud.compute.servers()]


def test_create_refusals_have_novas_status_and_body(sandbox: RunningSandbox, cloud: Any) -> None:
    headers = {"X-Auth-Token": _token(sandbox)}
    url = f"{sandbox.url}/compute/v2.1/servers"
    image = _cirros(cloud).id
    bad_flavor = {"server": {"name": "x", "flavorRef": "nope", "imageRef": image}}
    response = httpx.post(url, json=bad_flavor, headers=headers)
    assert response.status_code == 400
    assert response.json() == {
        "badRequest": {"code": 400, "message": "Flavor nope could not be found."}
    }
    assert response.headers["x-compute-request-id"] == response.headers["x-openstack-request-id"]
    no_image = {"server": {"name": "x", "flavorRef": "1", "imageRef": str(uuid.uuid4())}}
    assert httpx.post(url, json=no_image, headers=headers).status_code == 400
    missing = httpx.get(f"{url}/{uuid.uuid4()}", headers=headers)
    assert missing.status_code == 404
    assert list(missing.json()) == ["itemNotFound"]
    # microversions: required networks from 2.37; the version is echoed; out of range 406
    at_237 = {**headers, "OpenStack-API-Version": "compute 2.37"}
    no_networks = {"server": {"name": "x", "flavorRef": "1", "imageRef": image}}
    refused = httpx.post(url, json=no_networks, headers=at_237)
    assert refused.status_code == 400
    assert "'networks' is a required property" in refused.json()["badRequest"]["message"]
    assert refused.headers["openstack-api-version"] == "compute 2.37"
    too_new = httpx.get(url, headers={**headers, "OpenStack-API-Version": "compute 2.200"})
    assert too_new.status_code == 406
    assert "Minimum is 2.1 and maximum is 2.96" in too_new.text
    latest = httpx.get(url, headers={**headers, "X-OpenStack-Nova-API-Version": "latest"})
    assert latest.headers["x-openstack-nova-api-version"] == "2.96"
    assert httpx.get(url).status_code == 401


def test_servers_are_scoped_to_their_project(cloud: Any, demo: Any) -> None:
    server = cloud.compute.create_server(
        name=_name("admin-vm"), flavor_id="1", image_id=_cirros(cloud).id, networks="none"
    )
    with pytest.raises(openstack.exceptions.NotFoundException):
        demo.compute.get_server(server.id)
    assert server.id not in [s.id for s in demo.compute.servers()]
    assert server.id in [s.id for s in cloud.compute.servers(all_projects=True)]
    cloud.compute.delete_server(server)


def test_server_groups_by_microversion_and_membership(cloud: Any) -> None:
    group = cloud.compute.create_server_group(name=_name("grp"), policy="anti-affinity")
    assert group.policy == "anti-affinity"
    server = cloud.compute.create_server(
        name=_name("member"),
        flavor_id="1",
        image_id=_cirros(cloud).id,
        networks="none",
        scheduler_hints={"group": group.id},
    )
    assert cloud.compute.get_server_group(group.id).member_ids == [server.id]
    cloud.compute.delete_server(server)
    assert cloud.compute.get_server_group(group.id).member_ids == []
    cloud.compute.delete_server_group(group)
    with pytest.raises(openstack.exceptions.NotFoundException):
        cloud.compute.get_server_group(group.id)


def test_zones_limits_and_version_discovery(sandbox: RunningSandbox, cloud: Any) -> None:
    assert [z.name for z in cloud.compute.availability_zones()] == ["nova"]
    limits = cloud.compute.get_limits()
    assert limits.absolute.instances == -1
    root = httpx.get(f"{sandbox.url}/compute").json()
    (version,) = root["versions"]
    assert (version["id"], version["min_version"], version["version"]) == ("v2.1", "2.1", "2.96")
    assert version["links"][0]["href"] == f"{sandbox.url}/compute/v2.1/"


def test_user_data_must_be_base64_and_tags_need_2_26(sandbox: RunningSandbox, cloud: Any) -> None:
    image = _cirros(cloud).id
    with pytest.raises(openstack.exceptions.BadRequestException, match="user_data"):
        cloud.compute.create_server(
            name=_name("ud"), flavor_id="1", image_id=image, networks="none", user_data="#!/bin/sh"
        )
    server = cloud.compute.create_server(
        name=_name("ud"),
        flavor_id="1",
        image_id=image,
        networks="none",
        user_data=base64.b64encode(b"#!/bin/sh\necho hi\n").decode(),
    )
    headers = {"X-Auth-Token": _token(sandbox), "OpenStack-API-Version": "compute 2.26"}
    url = f"{sandbox.url}/compute/v2.1/servers/{server.id}/tags"
    assert httpx.put(f"{url}/web", headers=headers).status_code == 201
    assert httpx.put(f"{url}/web", headers=headers).status_code == 204
    replaced = httpx.put(url, json={"tags": ["a", "b"]}, headers=headers)
    assert replaced.json() == {"tags": ["a", "b"]}
    assert httpx.delete(f"{url}/a", headers=headers).status_code == 204
    assert httpx.get(f"{url}/a", headers=headers).status_code == 404
    assert cloud.compute.get_server(server.id).tags == ["b"]
    old = {**headers, "OpenStack-API-Version": "compute 2.25"}
    assert httpx.get(url, headers=old).status_code == 404
    cloud.compute.delete_server(server)


def test_action_status_codes(sandbox: RunningSandbox, cloud: Any, clock: Clock) -> None:
    server = cloud.compute.create_server(
        name=_name("acts"), flavor_id="1", image_id=_cirros(cloud).id, networks="none"
    )
    clock.advance(10)
    headers = {"X-Auth-Token": _token(sandbox)}
    url = f"{sandbox.url}/compute/v2.1/servers/{server.id}/action"

    def act(body: dict[str, Any]) -> int:
        return httpx.post(url, json=body, headers=headers).status_code

    assert act({"resize": {"flavorRef": "2"}}) == 202
    clock.advance(10)
    assert act({"confirmResize": None}) == 204
    assert act({"os-stop": None}) == 202
    assert act({"os-stop": None}) == 409  # stopped already
    assert act({"os-start": None}) == 202
    assert act({"migrate": None}) == 400
    cloud.compute.delete_server(server)
