"""Cinder v3's backend: volumes, their attachments and volume types.

A volume is ``creating`` for the sandbox's build delay after it is asked for, then
``available``; the status is settled when the volume is read (no background task, so a
sandbox restarted from its database carries on where it was). Attaching follows the two
ways Nova has used: the old actions (``os-reserve``, ``os-attach``, ``os-begin_detaching``,
``os-detach``) and the v3 attachments API (create ``reserved``, update with a connector
``attaching``, ``os-complete`` ``attached`` and the volume ``in-use``; delete, and the
volume is ``available`` again once no attachment is left). A deleted volume is gone at
once (Cinder's short ``deleting`` is not modelled), so the next read is a 404.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stoker.sandbox.http_errors import BadRequest, Conflict, NotFound, OverQuota
from stoker.sandbox.interfaces import ImageProvider
from stoker.sandbox.service import HubBackend, micro_time, new_id
from stoker.sandbox.store import Document

VOLUME = "volume.volume"
ATTACHMENT = "volume.attachment"
TYPE = "volume.type"
#: Cinder's default volume type, made with the database
DEFAULT_TYPE = "__DEFAULT__"
#: statuses a volume may be deleted in
DELETABLE = ("available", "error", "error_restoring", "error_extending", "error_managing")
HOST = "sandbox@lvmdriver-1#lvmdriver-1"


def invalid_volume(message: str) -> BadRequest:
    return BadRequest(f"Invalid volume: {message}", kind="InvalidVolume")


def _cannot_reserve(volume: Document) -> str:
    return (
        f"Volume {volume['id']} status must be available or downloading to reserve, but the "
        f"current status is {volume['status']}."
    )


def invalid_input(message: str) -> BadRequest:
    return BadRequest(f"Invalid input received: {message}", kind="InvalidInput")


class CinderBackend(HubBackend):
    """Volumes, attachments and types of one sandbox; also Nova's `VolumeProvider`."""

    # volume types

    def types(self) -> list[Document]:
        if not self.store.list(TYPE):
            with self.store.transaction():
                self._insert_type({"name": DEFAULT_TYPE, "description": "Default Volume Type"})
        return self.store.list(TYPE)

    def _insert_type(self, body: Mapping[str, Any]) -> Document:
        public = bool(body.get("os-volume-type-access:is_public", body.get("is_public", True)))
        document: Document = {
            "id": new_id(),
            "name": str(body["name"]),
            "description": body.get("description"),
            "is_public": public,
            "os-volume-type-access:is_public": public,
            "extra_specs": dict(body.get("extra_specs") or {}),
            "qos_specs_id": None,
        }
        self.store.insert(TYPE, document["id"], document, None)
        return document

    def get_type(self, name_or_id: str) -> Document:
        for volume_type in self.types():
            if name_or_id in (volume_type["id"], volume_type["name"]):
                return volume_type
        raise NotFound(
            f"Volume type with name {name_or_id} could not be found.",
            kind="VolumeTypeNotFoundByName",
        )

    def create_type(self, body: Mapping[str, Any]) -> Document:
        name = str(body.get("name") or "").strip()
        if not name:
            raise invalid_input("Volume type name can not be empty.")
        if any(t["name"] == name for t in self.types()):
            raise Conflict(f"Volume Type {name} already exists.", kind="VolumeTypeExists")
        return self._insert_type(body)

    def delete_type(self, id: str) -> None:
        volume_type = self.get_type(id)
        if volume_type["name"] == DEFAULT_TYPE:
            raise BadRequest(
                "Target volume type is still in use. Default volume type can not be deleted.",
                kind="VolumeTypeDefaultDeletionError",
            )
        if self.store.list(VOLUME, where=lambda v: v["volume_type_id"] == volume_type["id"]):
            raise BadRequest("Target volume type is still in use.", kind="VolumeTypeInUse")
        self.store.delete(TYPE, volume_type["id"])

    # volumes

    def settle(self, kind: str, document: Document) -> Document:
        """Move a volume or a backup on to where its clock says it is by now: from
        ``creating`` to ``available`` once the build delay is over."""
        if document["status"] == "creating" and self.hub.now() >= document["_ready_at"]:
            document["status"] = "available"
            document["updated_at"] = micro_time(self.hub.now())
            self.store.put(kind, document["id"], document)
        return document

    def get(self, id: str, project: str | None) -> Document:
        volume = self.store.get(VOLUME, id)
        if volume is None or (project is not None and volume["project_id"] != project):
            raise NotFound(f"Volume {id} could not be found.", kind="VolumeNotFound")
        return self.settle(VOLUME, volume)

    def volumes(self, project: str | None) -> list[Document]:
        return [self.settle(VOLUME, v) for v in self.store.list(VOLUME, project_id=project)]

    def create(self, project: str, user: str, body: Mapping[str, Any]) -> Document:
        if body.get("snapshot_id"):
            # the sandbox keeps no snapshots, so none can be found
            raise NotFound(
                f"Snapshot {body['snapshot_id']} could not be found.", kind="SnapshotNotFound"
            )
        source = None
        if body.get("source_volid"):
            source = self.get(str(body["source_volid"]), project)
        size = body.get("size", source["size"] if source else None)
        try:
            size = int(size)
        except (TypeError, ValueError):
            raise BadRequest(
                f"Invalid input for field/attribute size. Value: {size}. "
                f"{size!r} is not of type 'integer', 'string'",
                kind="ValidationError",
            ) from None
        if size < 1:
            raise invalid_input(f"Volume size '{size}' must be an integer and greater than 0")
        if source is not None and size < source["size"]:
            raise invalid_input(
                f"Volume size '{size}' must be greater than or equal to the source volume "
                f"size {source['size']}"
            )
        volume_type = self.get_type(str(body.get("volume_type") or DEFAULT_TYPE))
        metadata = body.get("metadata") or {}
        if not isinstance(metadata, Mapping):
            raise invalid_input("Metadata must be a mapping")
        image = self._image(project, body.get("imageRef"))
        self._check_quota(project, size)
        now = self.hub.now()
        volume: Document = {
            "id": new_id(),
            "name": body.get("name"),
            "description": body.get("description"),
            "status": "creating",
            "size": size,
            "availability_zone": str(body.get("availability_zone") or "nova"),
            "created_at": micro_time(now),
            "updated_at": None,
            "volume_type": volume_type["name"],
            "volume_type_id": volume_type["id"],
            "snapshot_id": body.get("snapshot_id"),
            "source_volid": body.get("source_volid"),
            "bootable": "true" if body.get("imageRef") else "false",
            "encrypted": False,
            "multiattach": bool(body.get("multiattach", False)),
            "metadata": {str(k): str(v) for k, v in metadata.items()},
            "user_id": user,
            "project_id": project,
            "replication_status": None,
            "consistencygroup_id": body.get("consistencygroup_id"),
            "group_id": body.get("group_id"),
            "_ready_at": now + self.delay,
            "_image": image,
        }
        self.store.insert(VOLUME, volume["id"], volume, project)
        return self.settle(VOLUME, volume)

    def _image(self, project: str, image_id: Any) -> Document | None:
        """``imageRef``: Glance's image, which the volume's ``volume_image_metadata`` then
        describes (any id goes when the sandbox runs no Glance)."""
        if not image_id:
            return None
        glance = self.hub.find(ImageProvider)
        if glance is None:
            return {"image_id": str(image_id)}
        image = glance.find_image(project, str(image_id))
        if image is None:
            raise BadRequest(
                "Invalid image identifier or unable to access requested image.",
                kind="ImageNotFound",
            )
        metadata = {
            key: str(image[key])
            for key in ("name", "disk_format", "container_format", "min_disk", "min_ram", "size")
            if image.get(key) is not None
        }
        return {"image_id": str(image["id"]), "image_name": metadata.pop("name", ""), **metadata}

    def quota(self, resource: str) -> int:
        return self.hub.quota("block-storage", resource)

    def usage(self, project: str) -> dict[str, int]:
        volumes = self.store.list(VOLUME, project_id=project)
        return {"volumes": len(volumes), "gigabytes": sum(int(v["size"]) for v in volumes)}

    def _check_quota(self, project: str, size: int) -> None:
        """The fault plan's ``volume`` quotas (``volumes``, ``gigabytes``), per project."""
        faults = self.hub.config.faults
        if faults is None:
            return
        used = self.usage(project)
        count = faults.quota("block-storage", "volumes")
        if count is not None and used["volumes"] >= count:
            raise OverQuota(
                f"VolumeLimitExceeded: Maximum number of volumes allowed ({count}) exceeded "
                "for quota 'volumes'.",
                status=413,
            )
        gigabytes = faults.quota("block-storage", "gigabytes")
        if gigabytes is not None and used["gigabytes"] + size > gigabytes:
            raise OverQuota(
                "VolumeSizeExceedsAvailableQuota: Requested volume or snapshot exceeds allowed "
                f"gigabytes quota. Requested {size}G, quota is {gigabytes}G and "
                f"{used['gigabytes']}G has been consumed.",
                status=413,
            )

    def update(self, id: str, project: str | None, body: Mapping[str, Any]) -> Document:
        volume = self.get(id, project)
        for name in ("name", "description"):
            if name in body:
                volume[name] = body[name]
        if "metadata" in body:
            metadata = body["metadata"] or {}
            if not isinstance(metadata, Mapping):
                raise invalid_input("Metadata must be a mapping")
            volume["metadata"] = {str(k): str(v) for k, v in metadata.items()}
        volume["updated_at"] = micro_time(self.hub.now())
        self.store.put(VOLUME, id, volume)
        return volume

    def delete(self, id: str, project: str | None, *, force: bool = False) -> None:
        volume = self.get(id, project)
        attached = self._attachments_of(id)
        if not force and (volume["status"] not in DELETABLE or attached):
            raise invalid_volume(
                "Volume status must be available or error or error_restoring or "
                "error_extending or error_managing and must not be migrating, attached, "
                "belong to a group, have snapshots, awaiting a transfer, or be "
                "disassociated from snapshots after volume transfer."
            )
        for attachment in attached:
            self.store.delete(ATTACHMENT, attachment["id"])
        self.store.delete(VOLUME, id)

    def _set_status(self, volume: Document, status: str) -> None:
        volume["status"] = status
        volume["updated_at"] = micro_time(self.hub.now())
        self.store.put(VOLUME, volume["id"], volume)

    def _expect(self, volume: Document, statuses: tuple[str, ...], action: str) -> None:
        if volume["status"] not in statuses:
            raise invalid_volume(
                f"Volume {volume['id']} status must be {' or '.join(statuses)} to {action}, "
                f"but the current status is {volume['status']}."
            )

    def extend(self, id: str, project: str | None, new_size: Any) -> None:
        volume = self.get(id, project)
        self._expect(volume, ("available", "in-use"), "extend")
        try:
            size = int(new_size)
        except (TypeError, ValueError):
            raise invalid_input(f"New size for extend must be an integer: {new_size!r}") from None
        if size <= volume["size"]:
            raise invalid_input(
                "New size for extend must be greater than current size. "
                f"(current: {volume['size']}, extended: {size})."
            )
        volume["size"] = size
        self._set_status(volume, volume["status"])

    def retype(self, id: str, project: str | None, body: Mapping[str, Any]) -> None:
        volume = self.get(id, project)
        self._expect(volume, ("available", "in-use"), "retype")
        new = self.get_type(str(body.get("new_type") or ""))
        if new["id"] == volume["volume_type_id"]:
            raise invalid_input("New volume type must be different from the current one.")
        volume["volume_type"], volume["volume_type_id"] = new["name"], new["id"]
        self._set_status(volume, volume["status"])

    def set_readonly(self, id: str, project: str | None, readonly: Any) -> None:
        """``os-update_readonly_flag``: Cinder keeps it in the volume's admin metadata,
        which the volume's ``metadata`` shows as ``readonly``."""
        volume = self.get(id, project)
        flag = str(readonly).lower() in ("true", "1", "yes")
        volume["metadata"] = {**volume["metadata"], "readonly": "True" if flag else "False"}
        self._set_status(volume, volume["status"])

    def set_bootable(self, id: str, project: str | None, bootable: Any) -> None:
        volume = self.get(id, project)
        volume["bootable"] = "true" if str(bootable).lower() in ("true", "1", "yes") else "false"
        self._set_status(volume, volume["status"])

    def reset_status(self, id: str, project: str | None, body: Mapping[str, Any]) -> None:
        volume = self.get(id, project)
        if body.get("attach_status") == "detached":
            for attachment in self._attachments_of(id):
                self.store.delete(ATTACHMENT, attachment["id"])
        self._set_status(volume, str(body.get("status") or volume["status"]))

    # attachments

    def _attachments_of(self, volume_id: str) -> list[Document]:
        return self.store.list(ATTACHMENT, where=lambda a: a["volume_id"] == volume_id)

    def volume_attachments(self, volume: Document) -> list[Document]:
        """``attachments`` of a volume's view: the attachments that are attached."""
        return [
            {
                "id": volume["id"],
                "attachment_id": a["id"],
                "volume_id": volume["id"],
                "server_id": a["instance"],
                "host_name": None,
                "device": a["_device"],
                "attached_at": a["attached_at"],
            }
            for a in self._attachments_of(volume["id"])
            if a["status"] == "attached"
        ]

    def get_attachment(self, id: str, project: str | None) -> Document:
        attachment = self.store.get(ATTACHMENT, id)
        if attachment is None or (project is not None and attachment["_project"] != project):
            raise NotFound(
                f"VolumeAttachment {id} could not be found.", kind="VolumeAttachmentNotFound"
            )
        return attachment

    def attachments(self, project: str | None) -> list[Document]:
        return self.store.list(ATTACHMENT, project_id=project)

    def _new_attachment(
        self, volume: Document, instance: str | None, mode: str, device: str | None
    ) -> Document:
        if volume["status"] in ("reserved", "attaching", "in-use") and not volume["multiattach"]:
            refused = any(a["instance"] != instance for a in self._attachments_of(volume["id"]))
        else:
            refused = volume["status"] not in ("available", "reserved", "in-use", "downloading")
        if refused:
            raise invalid_volume(_cannot_reserve(volume))
        attachment: Document = {
            "id": new_id(),
            "status": "reserved",
            "instance": instance,
            "volume_id": volume["id"],
            "attached_at": None,
            "detached_at": None,
            "attach_mode": mode,
            "connection_info": None,
            "_device": device,
            "_project": volume["project_id"],
        }
        self.store.insert(ATTACHMENT, attachment["id"], attachment, volume["project_id"])
        if volume["status"] == "available":
            self._set_status(volume, "reserved")
        return attachment

    def create_attachment(self, project: str, body: Mapping[str, Any]) -> Document:
        if not body.get("volume_uuid"):
            raise BadRequest(
                "Invalid input for field/attribute volume_uuid. Value: None. "
                "'volume_uuid' is a required property",
                kind="ValidationError",
            )
        volume = self.get(str(body["volume_uuid"]), project)
        mode = str(body.get("mode") or "rw")
        if mode not in ("rw", "ro"):
            raise invalid_input(f"Invalid attachment mode {mode!r}")
        attachment = self._new_attachment(volume, body.get("instance_uuid"), mode, None)
        if body.get("connector"):
            attachment = self.update_attachment(attachment["id"], project, body["connector"])
        return attachment

    def update_attachment(self, id: str, project: str | None, connector: Any) -> Document:
        attachment = self.get_attachment(id, project)
        if not isinstance(connector, Mapping):
            raise invalid_input("connector must be a mapping")
        volume = self.get(attachment["volume_id"], project)
        attachment["connection_info"] = self.connection_info(volume, connector)
        attachment["status"] = "attaching"
        attachment["_device"] = connector.get("mountpoint") or attachment["_device"]
        self.store.put(ATTACHMENT, id, attachment)
        if volume["status"] in ("reserved", "available"):
            self._set_status(volume, "attaching")
        return attachment

    def complete_attachment(self, id: str, project: str | None) -> None:
        attachment = self.get_attachment(id, project)
        volume = self.get(attachment["volume_id"], project)
        attachment["status"] = "attached"
        attachment["attached_at"] = micro_time(self.hub.now())
        self.store.put(ATTACHMENT, id, attachment)
        self._set_status(volume, "in-use")

    def delete_attachment(self, id: str, project: str | None) -> list[Document]:
        attachment = self.get_attachment(id, project)
        self.store.delete(ATTACHMENT, id)
        volume = self.store.get(VOLUME, attachment["volume_id"])
        remaining = self._attachments_of(attachment["volume_id"])
        if volume is not None:
            if not remaining:
                self._set_status(volume, "available")
            elif not any(a["status"] == "attached" for a in remaining):
                self._set_status(volume, "reserved")
        return remaining

    @staticmethod
    def connection_info(volume: Document, connector: Mapping[str, Any]) -> Document:
        """What ``os-initialize_connection`` and an attachment update give Nova: an iSCSI
        target that names the volume (the sandbox has no data path behind it)."""
        return {
            "driver_volume_type": "iscsi",
            "data": {
                "target_discovered": False,
                "target_iqn": f"iqn.2010-10.org.openstack:volume-{volume['id']}",
                "target_portal": "127.0.0.1:3260",
                "target_lun": 1,
                "volume_id": volume["id"],
                "auth_method": "CHAP",
                "access_mode": "rw",
                "encrypted": False,
            },
            "connector": dict(connector),
        }

    # the old attach actions

    def reserve(self, id: str, project: str | None) -> None:
        volume = self.get(id, project)
        self._expect(volume, ("available",), "reserve")
        self._set_status(volume, "attaching")

    def unreserve(self, id: str, project: str | None) -> None:
        volume = self.get(id, project)
        if volume["status"] == "attaching":
            attached = [a for a in self._attachments_of(id) if a["status"] == "attached"]
            self._set_status(volume, "in-use" if attached else "available")

    def attach_action(self, id: str, project: str | None, body: Mapping[str, Any]) -> None:
        volume = self.get(id, project)
        self._expect(volume, ("available", "attaching", "reserved", "in-use"), "attach")
        attachment = self._new_attachment(
            volume,
            body.get("instance_uuid"),
            str(body.get("mode") or "rw"),
            body.get("mountpoint"),
        )
        self.complete_attachment(attachment["id"], project)

    def begin_detaching(self, id: str, project: str | None) -> None:
        volume = self.get(id, project)
        self._expect(volume, ("in-use",), "begin detaching")
        self._set_status(volume, "detaching")

    def roll_detaching(self, id: str, project: str | None) -> None:
        volume = self.get(id, project)
        if volume["status"] == "detaching":
            self._set_status(volume, "in-use")

    def detach_action(self, id: str, project: str | None, body: Mapping[str, Any]) -> None:
        volume = self.get(id, project)
        attachments = self._attachments_of(id)
        wanted = body.get("attachment_id")
        if wanted is None and len(attachments) > 1:
            raise invalid_volume(
                "Volume has multiple attachments; an attachment_id is required to detach."
            )
        chosen = [a for a in attachments if wanted is None or a["id"] == wanted]
        if not chosen:
            raise invalid_volume(f"Volume {id} is not attached by attachment {wanted}.")
        for attachment in chosen:
            self.store.delete(ATTACHMENT, attachment["id"])
        if not self._attachments_of(id):
            self._set_status(volume, "available")
        elif volume["status"] == "detaching":
            self._set_status(volume, "in-use")

    # VolumeProvider: what Nova's backend asks of Cinder

    def attach(self, project_id: str, volume_id: str, server_id: str, device: str) -> None:
        volume = self.get(volume_id, project_id)
        if volume["status"] != "available" and not volume["multiattach"]:
            raise Conflict(f"Invalid volume: {_cannot_reserve(volume)}", kind="InvalidVolume")
        attachment = self._new_attachment(volume, server_id, "rw", device)
        self.complete_attachment(attachment["id"], project_id)

    def detach(self, volume_id: str, server_id: str) -> None:
        volume = self.store.get(VOLUME, volume_id)
        if volume is None:
            return
        for attachment in self._attachments_of(volume_id):
            if attachment["instance"] == server_id:
                self.store.delete(ATTACHMENT, attachment["id"])
        if not self._attachments_of(volume_id):
            self._set_status(volume, "available")
