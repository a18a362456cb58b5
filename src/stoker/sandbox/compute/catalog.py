"""Nova's shared and per-user things a server is made from: flavors, keypairs, server
groups. (Servers, which use them, are in `stoker.sandbox.compute.backend`.)"""

from __future__ import annotations

import re
from typing import Any

from stoker.sandbox.compute import keys
from stoker.sandbox.http_errors import BadRequest, Conflict, Forbidden, NotFound
from stoker.sandbox.service import HubBackend, RequestContext, iso_time, new_id
from stoker.sandbox.store import Document

FLAVOR = "compute.flavor"
KEYPAIR = "compute.keypair"
SERVER_GROUP = "compute.server_group"

#: devstack's flavors: (id, name, vcpus, ram MiB, disk GiB)
SEED_FLAVORS = (
    ("1", "m1.tiny", 1, 512, 1),
    ("2", "m1.small", 1, 2048, 20),
    ("3", "m1.medium", 2, 4096, 40),
    ("4", "m1.large", 4, 8192, 80),
    ("5", "m1.xlarge", 8, 16384, 160),
    ("c1", "cirros256", 1, 256, 1),
    ("d1", "ds512M", 1, 512, 5),
    ("d2", "ds1G", 1, 1024, 10),
)

POLICIES = ("affinity", "anti-affinity", "soft-affinity", "soft-anti-affinity")
_KEYPAIR_NAME = re.compile(r"^[a-zA-Z0-9 _.@-]{1,255}$")


def _integer(body: Document, key: str, *, low: int, default: int | None = None) -> int:
    value = body.get(key, default)
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise BadRequest(
            f"Invalid input for field/attribute {key}. Value: {value}. "
            f"{value!r} is not a valid integer >= {low}"
        )
    return value


class ComputeCatalog(HubBackend):
    """Flavors (shared), keypairs (per user) and server groups (per project)."""

    def seed(self) -> None:
        if self.store.count(FLAVOR):
            return
        for flavor_id, name, vcpus, ram, disk in SEED_FLAVORS:
            self.store.insert(FLAVOR, flavor_id, _flavor(flavor_id, name, vcpus, ram, disk), None)

    # -- flavors ----------------------------------------------------------------------

    def flavor(self, flavor_id: str) -> Document:
        found = self.store.get(FLAVOR, flavor_id)
        if found is None:
            raise NotFound(f"Flavor {flavor_id} could not be found.")
        return found

    def flavors(self) -> list[Document]:
        return self.store.list(FLAVOR)

    def create_flavor(self, ctx: RequestContext, body: Document) -> Document:
        ctx.require_admin("os_compute_api:os-flavor-manage:create")
        name = body.get("name")
        if not isinstance(name, str) or not name.strip() or len(name) > 255:
            raise BadRequest(f"Invalid input for field/attribute name. Value: {name}.")
        flavor_id = body.get("id")
        if flavor_id in (None, "auto"):
            flavor_id = new_id()
        flavor_id = str(flavor_id)
        if any(f["name"] == name for f in self.flavors()):
            raise Conflict(f"Flavor with name {name} already exists.")
        if self.store.get(FLAVOR, flavor_id) is not None:
            raise Conflict(f"Flavor with ID {flavor_id} already exists.")
        flavor = _flavor(
            flavor_id,
            name,
            _integer(body, "vcpus", low=1),
            _integer(body, "ram", low=1),
            _integer(body, "disk", low=0),
            ephemeral=_integer(body, "OS-FLV-EXT-DATA:ephemeral", low=0, default=0),
            swap=_integer(body, "swap", low=0, default=0),
            is_public=bool(body.get("os-flavor-access:is_public", True)),
            description=body.get("description"),
        )
        self.store.insert(FLAVOR, flavor_id, flavor, None)
        return flavor

    def delete_flavor(self, ctx: RequestContext, flavor_id: str) -> None:
        ctx.require_admin("os_compute_api:os-flavor-manage:delete")
        self.flavor(flavor_id)
        self.store.delete(FLAVOR, flavor_id)

    def set_extra_specs(self, ctx: RequestContext, flavor_id: str, specs: Any) -> Document:
        ctx.require_admin("os_compute_api:os-flavor-extra-specs:create")
        if not isinstance(specs, dict) or not all(
            isinstance(v, str | int | float | bool) for v in specs.values()
        ):
            raise BadRequest("Invalid input for field/attribute extra_specs.")
        flavor = self.flavor(flavor_id)
        flavor["extra_specs"].update({str(k): str(v) for k, v in specs.items()})
        self.store.put(FLAVOR, flavor_id, flavor)
        return dict(flavor["extra_specs"])

    def delete_extra_spec(self, ctx: RequestContext, flavor_id: str, key: str) -> None:
        ctx.require_admin("os_compute_api:os-flavor-extra-specs:delete")
        flavor = self.flavor(flavor_id)
        if key not in flavor["extra_specs"]:
            raise NotFound(f"Flavor {flavor_id} has no extra specs with key {key}.")
        del flavor["extra_specs"][key]
        self.store.put(FLAVOR, flavor_id, flavor)

    # -- keypairs ---------------------------------------------------------------------

    def create_keypair(self, ctx: RequestContext, body: Document) -> Document:
        name = body.get("name")
        if not isinstance(name, str) or not _KEYPAIR_NAME.match(name) or name.strip() != name:
            raise BadRequest(
                "Keypair data is invalid: Keypair name contains unsafe characters"
                if isinstance(name, str) and name
                else "Invalid input for field/attribute name."
            )
        user_id = str(body.get("user_id") or ctx.user_id)
        key = f"{user_id}:{name}"
        if self.store.get(KEYPAIR, key) is not None:
            raise Conflict(f"Key pair '{name}' already exists.")
        quota = self.hub.quota("compute", "key_pairs")
        if quota >= 0 and len(self.keypairs(user_id)) >= quota:
            raise Forbidden("Quota exceeded, too many key pairs.")
        public_key = body.get("public_key")
        private_key = None
        if public_key is None:
            if ctx.at_least(2, 92):
                raise BadRequest(
                    "Invalid input for field/attribute keypair. 'public_key' is a required property"
                )
            private_key, public_key = keys.generate()
        elif not isinstance(public_key, str):
            raise BadRequest("Keypair data is invalid: failed to generate fingerprint")
        keypair: Document = {
            "id": self.store.count(KEYPAIR) + 1,
            "name": name,
            "public_key": public_key,
            "fingerprint": keys.fingerprint(public_key),
            "type": str(body.get("type") or "ssh"),
            "user_id": user_id,
            "created_at": iso_time(self.hub.now()),
            "deleted": False,
            "deleted_at": None,
            "updated_at": None,
        }
        self.store.insert(KEYPAIR, key, keypair, ctx.project_id)
        return {**keypair, "private_key": private_key} if private_key else keypair

    def keypairs(self, user_id: str) -> list[Document]:
        return self.store.list(KEYPAIR, where=lambda k: k["user_id"] == user_id)

    def keypair(self, user_id: str, name: str) -> Document:
        found = self.store.get(KEYPAIR, f"{user_id}:{name}")
        if found is None:
            raise NotFound(f"Keypair {name} not found for user {user_id}")
        return found

    def delete_keypair(self, user_id: str, name: str) -> None:
        self.keypair(user_id, name)
        self.store.delete(KEYPAIR, f"{user_id}:{name}")

    # -- server groups ----------------------------------------------------------------

    def create_server_group(self, ctx: RequestContext, body: Document) -> Document:
        name = body.get("name")
        if not isinstance(name, str) or not name:
            raise BadRequest("Invalid input for field/attribute name.")
        if ctx.at_least(2, 64):
            policy = body.get("policy")
            rules = body.get("rules") or {}
        else:
            policies = body.get("policies")
            if not isinstance(policies, list) or len(policies) != 1:
                raise BadRequest("Invalid input for field/attribute policies.")
            policy, rules = policies[0], {}
        if policy not in POLICIES:
            raise BadRequest(f"Invalid input for field/attribute policy. Value: {policy}.")
        if rules and policy != "anti-affinity":
            raise BadRequest("Only anti-affinity policy supports rules.")
        group: Document = {
            "id": new_id(),
            "name": name,
            "policy": policy,
            "rules": rules,
            "members": [],
            "metadata": {},
            "project_id": ctx.project_id,
            "user_id": ctx.user_id,
        }
        self.store.insert(SERVER_GROUP, group["id"], group, ctx.project_id)
        return group

    def server_group(self, ctx: RequestContext, group_id: str) -> Document:
        found = self.store.get(SERVER_GROUP, group_id)
        if found is None or not ctx.reaches(found["project_id"]):
            raise NotFound(f"Instance group {group_id} could not be found.")
        return found

    def server_groups(self, ctx: RequestContext, all_projects: bool) -> list[Document]:
        project = None if all_projects and ctx.is_admin else ctx.project_id
        return self.store.list(SERVER_GROUP, project_id=project)

    def delete_server_group(self, ctx: RequestContext, group_id: str) -> None:
        self.server_group(ctx, group_id)
        self.store.delete(SERVER_GROUP, group_id)

    def join_group(self, ctx: RequestContext, group_id: str, server_id: str) -> None:
        group = self.server_group(ctx, group_id)
        group["members"].append(server_id)
        self.store.put(SERVER_GROUP, group_id, group)

    def leave_groups(self, server_id: str) -> None:
        for group in self.store.list(SERVER_GROUP, where=lambda g: server_id in g["members"]):
            group["members"].remove(server_id)
            self.store.put(SERVER_GROUP, group["id"], group)


def _flavor(
    flavor_id: str,
    name: str,
    vcpus: int,
    ram: int,
    disk: int,
    *,
    ephemeral: int = 0,
    swap: int = 0,
    is_public: bool = True,
    description: Any = None,
) -> Document:
    return {
        "id": flavor_id,
        "name": name,
        "vcpus": vcpus,
        "ram": ram,
        "disk": disk,
        "OS-FLV-EXT-DATA:ephemeral": ephemeral,
        "swap": swap,
        "rxtx_factor": 1.0,
        "os-flavor-access:is_public": is_public,
        "OS-FLV-DISABLED:disabled": False,
        "description": description,
        "extra_specs": {},
    }
