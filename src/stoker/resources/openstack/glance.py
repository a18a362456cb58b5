"""Glance's web image: an image record Glance fills from a URL (its web-download import)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from stoker.errors import CloudError
from stoker.resources.base import ResourceContext, ResourceView
from stoker.resources.openstack.base import ApiResource, CloudResource, given

_FIELDS = (
    "container_format", "disk_format", "min_disk", "min_ram", "protected", "visibility",
    "tags", "architecture", "kernel_id", "ramdisk_id", "os_distro", "os_version", "owner",
)  # fmt: skip


class WebImage(ApiResource):
    type_name = "OS::Glance::WebImage"
    show_call = "image.get_image"
    service, collection = "image", "images"
    ready_statuses: ClassVar[frozenset[str]] = frozenset({"ACTIVE"})
    failed_statuses: ClassVar[frozenset[str]] = frozenset({"KILLED", "DELETED"})

    def make(self, connection: Any, context: ResourceContext, name: str) -> dict[str, Any]:
        p = context.properties
        body: dict[str, Any] = {"name": name, **given(p, *_FIELDS)}
        if p.get("id"):
            body["id"] = p["id"]
        for key, value in (p.get("extra_properties") or {}).items():
            body[key] = value
        shown = self.post(connection, body)
        download = {"method": {"name": "web-download", "uri": str(p["location"])}}
        path = f"/images/{shown['id']}/import"
        self.api(connection, "POST", path, "image.import_image", download)
        return shown

    def is_ready(self, context: ResourceContext, shown: Mapping[str, Any]) -> bool:
        """Glance puts an image whose import failed back to ``queued`` and names the
        stores it failed for: that is a failure, not a wait."""
        if str(shown.get("status")).lower() == "queued" and shown.get("os_glance_failed_import"):
            raise CloudError(
                f"image.import_image: the web-download of {context.properties.get('location')} "
                f"into image {context.physical_id} failed (os_glance_failed_import: "
                f"{shown['os_glance_failed_import']})"
            )
        return super().is_ready(context, shown)

    async def update(self, context: ResourceContext, previous: ResourceView) -> None:
        image = context.physical_id
        changes = [
            {"op": "replace", "path": f"/{key}", "value": context.properties.get(key)}
            for key in _FIELDS
            if key in context.properties
            and context.properties.get(key) != previous.properties.get(key)
            and context.properties.get(key) is not None
        ]
        if changes:
            patch = {"Content-Type": "application/openstack-images-v2.1-json-patch"}
            what = "image.update_image"
            await self.ask_api("PATCH", f"/images/{image}", what, changes, headers=patch)
        await self.refresh(context)


TYPES: tuple[type[CloudResource], ...] = (WebImage,)
