"""Cinder's volume: creating -> available (polled), extended and renamed in place."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

from stoker.cloud.backoff import POLL
from stoker.errors import CloudError
from stoker.resources.base import ResourceContext, ResourceView, Traits
from stoker.resources.openstack.base import (
    ApiResource,
    CloudResource,
    checkpoint,
    first_id,
    given,
    pause,
    scheduler_hints,
)
from stoker.resources.openstack.nova import image_id


class Volume(ApiResource):
    type_name = "OS::Cinder::Volume"
    show_call = "block_storage.get_volume"
    service, collection, key = "block_storage", "volumes", "volume"
    aliases = {"imageRef": "image"}
    live_attributes = frozenset({"attachments", "attachments_list", "status"})
    ready_statuses: ClassVar[frozenset[str]] = frozenset({"AVAILABLE", "IN-USE"})
    traits = Traits(snapshot_delete=True)

    async def snapshot_and_delete(self, context: ResourceContext) -> None:
        """Heat's ``deletion_policy: Snapshot`` of a volume: a backup of it (forced, so an
        attached volume is backed up too), waited for until ``available``, then the
        delete. The backup's id is recorded before the wait, so a process killed there
        resumes by waiting on it rather than making a second; it is kept in the resource's
        data (``backup_id``) and the backup outlives the stack, as in Heat."""
        volume = context.physical_id
        if volume is not None and not context.data.get("backup_id"):
            backup_of = {"backup": {"volume_id": volume, "force": True}}
            answer = await self.ask_api(
                "POST", "/backups", "block_storage.create_backup", backup_of, retry=False
            )
            context.data["backup_id"] = str(answer["backup"]["id"])
            await checkpoint(context)
        backup = context.data.get("backup_id")
        if backup:
            delays = POLL.delays()
            while True:
                shown = await self.ask_api("GET", f"/backups/{backup}", "block_storage.get_backup")
                status = str(shown["backup"].get("status") or "")
                if status == "available":
                    break
                if status.startswith("error"):
                    reason = shown["backup"].get("fail_reason") or status
                    raise CloudError(f"block_storage.create_backup: backup {backup}: {reason}")
                await pause(context, next(delays))
        await self.delete(context)

    def make(self, connection: Any, context: ResourceContext, name: str) -> dict[str, Any]:
        p = context.properties
        body: dict[str, Any] = {"name": name}
        body.update(given(p, "size", "description", "volume_type", "availability_zone"))
        body.update(given(p, "snapshot_id", "source_volid", "backup_id", "metadata"))
        if p.get("image"):
            body["imageRef"] = image_id(connection, str(p["image"]))
        hints = scheduler_hints(p, "OS-SCH-HNT:scheduler_hints")
        return self.post(connection, body, beside=hints)

    def find(self, connection: Any, name: str) -> str | None:
        params = {"name": name}
        return first_id(self.listing(connection, {}, params, "block_storage.list_volumes"))

    async def update(self, context: ResourceContext, previous: ResourceView) -> None:
        volume, new, old = self.updating(context, previous)
        path = f"/volumes/{volume}"
        changes: dict[str, Any] = {}
        if new.get("name") != old.get("name"):
            changes["name"] = self.cloud_name(context)
        if new.get("description") != old.get("description"):
            changes["description"] = new.get("description") or ""
        if changes:
            await self.ask_api("PUT", path, "block_storage.update_volume", {"volume": changes})
        if new.get("metadata") != old.get("metadata"):
            metadata = {k: str(v) for k, v in (new.get("metadata") or {}).items()}
            what = "block_storage.set_volume_metadata"
            await self.ask_api("PUT", f"{path}/metadata", what, {"metadata": metadata})
        if new.get("size") != old.get("size") and new.get("size"):
            if old.get("size") and int(new["size"]) < int(old["size"]):
                raise CloudError(
                    f"The new size {new['size']} of the volume is smaller than its size "
                    f"{old['size']}"
                )
            extend = {"os-extend": {"new_size": int(new["size"])}}
            await self.ask_api("POST", f"{path}/action", "block_storage.extend_volume", extend)
        if new.get("read_only") != old.get("read_only") and new.get("read_only") is not None:
            flag = {"os-update_readonly_flag": {"readonly": bool(new["read_only"])}}
            await self.ask_api("POST", f"{path}/action", "block_storage.update_readonly_flag", flag)
        await self.refresh(context)

    def attribute_of(self, shown: Mapping[str, Any], name: str) -> Any:
        if name == "display_name":
            return shown.get("name")
        if name == "display_description":
            return shown.get("description")
        if name == "attachments":
            return json.dumps(shown.get("attachments") or [])
        if name == "attachments_list":
            return shown.get("attachments") or []
        if name == "metadata":
            return json.dumps(shown.get("metadata") or {})
        if name == "metadata_values":
            return shown.get("metadata") or {}
        return shown.get(name)


TYPES: tuple[type[CloudResource], ...] = (Volume,)
