"""Glance's images and their data.

An image's data is kept beside its document (kind ``image.data``, base64) so that an
image is one row to read when it is listed; the sandbox is for small test images (a few
MiB), not for a real cloud's.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from stoker.sandbox.http_errors import BadRequest, Conflict, Forbidden, NotFound
from stoker.sandbox.service import Hub, HubBackend, RequestContext, iso_time, new_id
from stoker.sandbox.store import Document

IMAGE = "image.image"
DATA = "image.data"

#: the import methods the sandbox runs (``GET /info/import``)
IMPORT_METHODS = ("web-download",)
#: the most image data a web-download fetches or an upload sends (the data lives in the
#: sandbox's database)
IMPORT_LIMIT = 64 * 1024 * 1024

DISK_FORMATS = ("ami", "ari", "aki", "vhd", "vhdx", "vmdk", "raw", "qcow2", "vdi", "iso", "ploop")
CONTAINER_FORMATS = ("ami", "ari", "aki", "bare", "ovf", "ova", "docker", "compressed")
VISIBILITIES = ("public", "private", "shared", "community")

#: set by Glance itself: a create or update naming them is refused (403)
READ_ONLY = frozenset(
    {
        "status",
        "checksum",
        "os_hash_algo",
        "os_hash_value",
        "size",
        "virtual_size",
        "created_at",
        "updated_at",
        "file",
        "self",
        "schema",
        "direct_url",
        "locations",
    }
)

#: (name, properties, data): what a devstack cloud starts with, small stand-ins for data
SEED_IMAGES = tuple(
    (
        name,
        {"os_distro": distro, "os_version": version, "hw_architecture": "x86_64"},
        f"stoker sandbox stand-in for the {what}\n".encode(),
    )
    for name, distro, version, what in (
        ("cirros-0.6.2-x86_64-disk", "cirros", "0.6.2", "cirros 0.6.2 disk image"),
        ("ubuntu-22.04-server-cloudimg-amd64", "ubuntu", "22.04", "ubuntu 22.04 cloud image"),
        ("fedora-40-x86_64", "fedora", "40", "fedora 40 cloud image"),
        ("centos-stream-9-x86_64", "centos", "9", "CentOS Stream 9 cloud image"),
        ("rhel-9.4-x86_64-kvm", "rhel", "9.4", "RHEL 9.4 KVM guest image"),
    )
)


class ImageBackend(HubBackend):
    def __init__(self, hub: Hub) -> None:
        super().__init__(hub)
        if not self.store.count(IMAGE):
            self._seed()

    def _seed(self) -> None:
        admin = RequestContext(user_id="", project_id="", roles=("admin",))
        with self.store.transaction():
            for name, properties, data in SEED_IMAGES:
                image = self.create(
                    admin,
                    {
                        "name": name,
                        "disk_format": "qcow2",
                        "container_format": "bare",
                        "visibility": "public",
                        **properties,
                    },
                )
                self.upload(admin, image["id"], data)

    # -- reading ----------------------------------------------------------------------

    def _visible(self, ctx: RequestContext, image: Mapping[str, Any]) -> bool:
        return ctx.reaches(image["owner"]) or image["visibility"] in ("public", "community")

    def image(self, ctx: RequestContext, image_id: str) -> Document:
        found = self.store.get(IMAGE, image_id)
        if found is None or not self._visible(ctx, found):
            raise NotFound(f"No image found with ID {image_id}")
        return found

    def images(self, ctx: RequestContext) -> list[Document]:
        """What a plain listing shows: public, the project's own, and shared ones; not
        community images (they are listed when asked for by ``visibility``)."""
        return self.store.list(
            IMAGE,
            where=lambda i: (
                i["owner"] == ctx.project_id
                or i["visibility"] in ("public", "shared")
                or (ctx.is_admin and i["visibility"] != "community")
            ),
        )

    def all_images(self, ctx: RequestContext) -> list[Document]:
        return self.store.list(IMAGE, where=lambda i: self._visible(ctx, i))

    def find_image(self, project_id: str, image_id: str) -> Document | None:
        """Nova's question (`stoker.sandbox.interfaces.ImageProvider`)."""
        found = self.store.get(IMAGE, image_id)
        if found is None:
            return None
        if found["owner"] in (project_id, None) or found["visibility"] != "private":
            return found
        return None

    def snapshot(
        self, project_id: str, name: str, server_id: str, base_image_id: str, metadata: Any
    ) -> str:
        """Nova's question (`stoker.sandbox.interfaces.ImageProvider`): an image of a
        server, made at once (a stand-in: the sandbox has no disks to copy)."""
        base = self.store.get(IMAGE, base_image_id) if base_image_id else None
        owner = RequestContext(user_id="", project_id=project_id, roles=())
        properties = {k: str(v) for k, v in (metadata or {}).items() if k not in READ_ONLY}
        image = self.create(
            owner,
            {
                **properties,
                "name": name,
                "visibility": "private",
                "disk_format": (base or {}).get("disk_format") or "qcow2",
                "container_format": (base or {}).get("container_format") or "bare",
                "image_type": "snapshot",
                "instance_uuid": server_id,
                "base_image_ref": base_image_id,
            },
        )
        self.upload(owner, image["id"], f"snapshot of {server_id}\n".encode())
        return str(image["id"])

    def data(self, ctx: RequestContext, image_id: str) -> bytes | None:
        image = self.image(ctx, image_id)
        if image["status"] == "deactivated" and not ctx.is_admin:
            raise Forbidden(
                "The requested image has been deactivated. Image data download is forbidden."
            )
        stored = self.store.get(DATA, image_id)
        return None if stored is None else base64.b64decode(stored["data"])

    # -- writing ----------------------------------------------------------------------

    def create(self, ctx: RequestContext, body: Document) -> Document:
        forbidden = sorted(READ_ONLY & set(body))
        if forbidden:
            raise Forbidden(f"Attribute '{forbidden[0]}' is read-only.")
        image_id = str(body.get("id") or new_id())
        if self.store.get(IMAGE, image_id) is not None:
            raise Conflict(f"Image with identifier {image_id} already exists!")
        now = iso_time(self.hub.now())
        image: Document = {
            "id": image_id,
            "name": None,
            "status": "queued",
            "visibility": "shared",
            "protected": False,
            "os_hidden": False,
            "checksum": None,
            "os_hash_algo": None,
            "os_hash_value": None,
            "size": None,
            "virtual_size": None,
            "min_disk": 0,
            "min_ram": 0,
            "disk_format": None,
            "container_format": None,
            "owner": ctx.project_id or None,
            "created_at": now,
            "updated_at": now,
            "tags": [],
            "self": f"/v2/images/{image_id}",
            "file": f"/v2/images/{image_id}/file",
            "schema": "/v2/schemas/image",
        }
        self._apply(ctx, image, {k: v for k, v in body.items() if k != "id"})
        self.store.insert(IMAGE, image_id, image, image["owner"])
        return image

    def _apply(self, ctx: RequestContext, image: Document, changes: Document) -> None:
        for key, value in changes.items():
            if key in READ_ONLY or key == "id":
                raise Forbidden(f"Attribute '{key}' is read-only.")
            if key == "visibility" and value not in VISIBILITIES:
                raise BadRequest(f"Invalid visibility value: {value}")
            if key == "visibility" and value == "public" and not ctx.is_admin:
                raise Forbidden("You are not authorized to complete publicize_image action.")
            if key == "disk_format" and value is not None and value not in DISK_FORMATS:
                raise BadRequest(f"Invalid disk format '{value}' for image.")
            if key == "container_format" and value is not None and value not in CONTAINER_FORMATS:
                raise BadRequest(f"Invalid container format '{value}' for image.")
            if key in ("min_disk", "min_ram") and (
                isinstance(value, bool) or not isinstance(value, int) or value < 0
            ):
                raise BadRequest(f"Invalid value for {key}: {value!r}")
            if key in ("protected", "os_hidden") and not isinstance(value, bool):
                raise BadRequest(f"Invalid value for {key}: {value!r}")
            if key == "tags":
                if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
                    raise BadRequest("Invalid value for tags")
                value = list(dict.fromkeys(value))
            image[key] = value
        image["updated_at"] = iso_time(self.hub.now())

    def update(self, ctx: RequestContext, image_id: str, patch: Any) -> Document:
        """A JSON patch (``add``/``replace``/``remove`` of ``/name`` ...), as Glance takes."""
        image = self._owned(ctx, image_id)
        if not isinstance(patch, list):
            raise BadRequest("Request body must be a JSON array of operation objects.")
        for change in patch:
            if not isinstance(change, dict) or change.get("op") not in ("add", "replace", "remove"):
                raise BadRequest("Unable to find 'op' in JSON Schema change")
            path = str(change.get("path") or "")
            parts = [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]
            if (
                not path.startswith("/")
                or len(parts) > 2
                or (len(parts) == 2 and parts[0] != "tags")
            ):
                raise BadRequest(f"Invalid JSON pointer for this resource: '{path}'")
            key = parts[0]
            if len(parts) == 2:
                self._patch_tags(image, change, parts[1])
                continue
            if change["op"] == "remove":
                if key in READ_ONLY or key in ("id", "name", "visibility", "tags"):
                    raise Forbidden(f"Attribute '{key}' is read-only.")
                if key not in image:
                    raise Conflict(f"Property {key} does not exist.")
                del image[key]
            else:
                if "value" not in change:
                    raise BadRequest("Unable to find 'value' in JSON Schema change")
                self._apply(ctx, image, {key: change["value"]})
        self.store.put(IMAGE, image_id, image)
        return image

    @staticmethod
    def _patch_tags(image: Document, change: Document, index: str) -> None:
        """``/tags/N`` (or ``/tags/-`` to append) in a JSON patch."""
        tags = image["tags"]
        if change["op"] == "remove":
            if not index.isdigit() or int(index) >= len(tags):
                raise Conflict(f"Tag index {index} does not exist.")
            del tags[int(index)]
            return
        value = change.get("value")
        if not isinstance(value, str):
            raise BadRequest("Invalid value for tags")
        if value not in tags:
            tags.insert(len(tags) if index == "-" or not index.isdigit() else int(index), value)

    def _owned(self, ctx: RequestContext, image_id: str) -> Document:
        """An image the caller may change: its owner's, or any for an admin."""
        image = self.image(ctx, image_id)
        if not ctx.reaches(image["owner"]):
            raise Forbidden("You are not permitted to modify this image.")
        return image

    def upload(self, ctx: RequestContext, image_id: str, data: bytes) -> Document:
        image = self._owned(ctx, image_id)
        if image["status"] != "queued":
            raise Conflict(
                f"Image status transition from {image['status']} to saving is not allowed"
            )
        self._formats_set(image, "saving data")
        return self._keep_data(image, data)

    @staticmethod
    def _formats_set(image: Document, what: str) -> None:
        if not image.get("disk_format") or not image.get("container_format"):
            raise BadRequest(
                f"Properties disk_format, container_format must be set prior to {what}."
            )

    def _keep_data(self, image: Document, data: bytes) -> Document:
        image.update(
            status="active",
            size=len(data),
            virtual_size=len(data),
            checksum=hashlib.md5(data, usedforsecurity=False).hexdigest(),
            os_hash_algo="sha512",
            os_hash_value=hashlib.sha512(data).hexdigest(),
            updated_at=iso_time(self.hub.now()),
        )
        image.pop("os_glance_import_task", None)
        with self.store.transaction():
            self.store.insert(
                DATA, image["id"], {"data": base64.b64encode(data).decode()}, image["owner"]
            )
            self.store.put(IMAGE, image["id"], image)
        return image

    def begin_import(self, ctx: RequestContext, image_id: str, body: Any) -> str:
        """Check an import request (``POST /images/{id}/import``) and mark the image
        ``importing``; the URI to fetch. Glance runs the import as a task after its 202;
        the sandbox fetches before answering, so the image is ``active`` (or back to
        ``queued`` with ``os_glance_failed_import``) once the call returns."""
        image = self._owned(ctx, image_id)
        method = body.get("method") if isinstance(body, dict) else None
        name = method.get("name") if isinstance(method, dict) else None
        if name not in IMPORT_METHODS:
            raise BadRequest(f"Import method {name} is not valid: it must be one of "
                             f"{', '.join(IMPORT_METHODS)}")  # fmt: skip
        uri = method.get("uri") if isinstance(method, dict) else None
        if not isinstance(uri, str) or not uri.startswith(("http://", "https://")):
            raise BadRequest("URI for web-download does not pass filtering: " + str(uri))
        if not import_allowed(uri, self.hub.config.import_allow):
            raise BadRequest(
                f"URI for web-download does not pass filtering: {uri} (its host is not on "
                "the sandbox's allow-list: stoker sandbox serve --import-allow HOST)"
            )
        if image["status"] != "queued":
            raise Conflict(
                f"Image status transition from {image['status']} to importing is not allowed"
            )
        self._formats_set(image, "importing data")
        image.update(status="importing", updated_at=iso_time(self.hub.now()))
        image["os_glance_import_task"] = new_id()
        image["os_glance_importing_to_stores"] = ""
        image["os_glance_failed_import"] = ""
        self.store.put(IMAGE, image_id, image)
        return uri

    def finish_import(self, image_id: str, data: bytes | None) -> None:
        """The fetched data (None: the fetch failed: the image is ``queued`` again and
        names the store it failed for, as Glance does)."""
        image = self.store.get(IMAGE, image_id)
        if image is None or image["status"] != "importing":
            return  # deleted meanwhile
        if data is None:
            image.update(status="queued", os_glance_failed_import="sandbox")
            image.pop("os_glance_import_task", None)
            image["updated_at"] = iso_time(self.hub.now())
            self.store.put(IMAGE, image_id, image)
            return
        self._keep_data(image, data)

    def set_tag(self, ctx: RequestContext, image_id: str, tag: str, present: bool) -> None:
        image = self._owned(ctx, image_id)
        if present and tag not in image["tags"]:
            image["tags"].append(tag)
        elif not present:
            if tag not in image["tags"]:
                raise NotFound(f"Tag {tag} not found")
            image["tags"].remove(tag)
        self.store.put(IMAGE, image_id, image)

    def set_active(self, ctx: RequestContext, image_id: str, active: bool) -> None:
        image = self._owned(ctx, image_id)
        if image["status"] not in ("active", "deactivated"):
            raise Conflict(f"Not allowed to deactivate image in status '{image['status']}'")
        image["status"] = "active" if active else "deactivated"
        self.store.put(IMAGE, image_id, image)

    def delete(self, ctx: RequestContext, image_id: str) -> None:
        image = self._owned(ctx, image_id)
        if image["protected"]:
            raise Forbidden(f"Image {image_id} is protected and cannot be deleted.")
        with self.store.transaction():
            self.store.delete(DATA, image_id)
            self.store.delete(IMAGE, image_id)


def import_allowed(uri: str, allowed: tuple[str, ...]) -> bool:
    """Whether a web-download may fetch ``uri``: its host is on ``allowed`` (checked for
    the URI asked for, and again for every redirect the fetch follows)."""
    try:
        host = urlsplit(uri).hostname
    except ValueError:
        return False
    return host is not None and host.lower() in allowed
