"""Cinder's volume backups: what Heat makes of a volume whose ``deletion_policy`` is
Snapshot (and of a stack snapshot), then deletes the volume.

A backup is ``creating`` for the sandbox's build delay, then ``available``; its status
is settled when read, as a volume's is. A volume that is in use needs ``force``; the
volume may then be deleted (a backup does not hold it), and the backup stays. A backup
keeps no data (the sandbox's volumes hold none): its size is the volume's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stoker.sandbox.http import public
from stoker.sandbox.http_errors import BadRequest, NotFound
from stoker.sandbox.service import micro_time, new_id
from stoker.sandbox.store import Document
from stoker.sandbox.volume.backend import CinderBackend

BACKUP = "volume.backup"


class Backups:
    def __init__(self, volumes: CinderBackend) -> None:
        self.hub = volumes.hub
        self.store = volumes.store
        self.volumes = volumes

    def get(self, id: str, project: str | None) -> Document:
        backup = self.store.get(BACKUP, id)
        if backup is None or (project is not None and backup["project_id"] != project):
            raise NotFound(f"Backup {id} could not be found.", kind="BackupNotFound")
        return self.volumes.settle(BACKUP, backup)

    def list(self, project: str | None) -> list[Document]:
        return [self.volumes.settle(BACKUP, b) for b in self.store.list(BACKUP, project_id=project)]

    def create(self, project: str, body: Mapping[str, Any]) -> Document:
        volume_id = body.get("volume_id")
        if not volume_id:
            raise BadRequest("Invalid input received: volume_id is required.")
        volume = self.volumes.get(str(volume_id), project)
        force = str(body.get("force", False)).lower() in ("true", "1", "yes")
        if volume["status"] != "available" and not (volume["status"] == "in-use" and force):
            raise BadRequest(
                f"Invalid volume: Volume to be backed up must be available or in-use, but "
                f'the current status is "{volume["status"]}".',
                kind="InvalidVolume",
            )
        now = self.hub.now()
        backup: Document = {
            "id": new_id(),
            "name": body.get("name"),
            "description": body.get("description"),
            "volume_id": volume["id"],
            "snapshot_id": None,
            "status": "creating",
            "size": volume["size"],
            "object_count": 0,
            "container": body.get("container") or "volumebackups",
            "availability_zone": volume.get("availability_zone") or "nova",
            "is_incremental": bool(body.get("incremental", False)),
            "has_dependent_backups": False,
            "fail_reason": None,
            "created_at": micro_time(now),
            "updated_at": micro_time(now),
            "data_timestamp": micro_time(now),
            "project_id": project,
            "_ready_at": now + self.volumes.delay,
        }
        self.store.insert(BACKUP, backup["id"], backup, project)
        return backup

    def delete(self, id: str, project: str | None) -> None:
        backup = self.get(id, project)
        if backup["status"] not in ("available", "error"):
            raise BadRequest(
                "Invalid backup: Backup status must be available or error",
                kind="InvalidBackup",
            )
        self.store.delete(BACKUP, backup["id"])


def view(backup: Document) -> Document:
    shown = public(backup)
    del shown["project_id"]
    return shown
