"""``deletion_policy: Snapshot`` on a Cinder volume, as Heat does it: the stack's delete
backs the volume up (a Cinder backup, forced), waits for the backup, then deletes the
volume; the backup stays."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .conftest import StackCli


def test_a_volume_with_the_snapshot_policy_is_backed_up_then_deleted(
    stoker: StackCli, admin: Any, tmp_path: Path
) -> None:
    template = tmp_path / "volume.yaml"
    template.write_text(
        "heat_template_version: wallaby\n"
        "resources:\n"
        "  kept:\n"
        "    type: OS::Cinder::Volume\n"
        "    deletion_policy: Snapshot\n"
        "    properties: {size: 2}\n"
        "  plain:\n"
        "    type: OS::Cinder::Volume\n"
        "    properties: {size: 1}\n"
    )

    created = stoker("create", "snappol", "-t", str(template))
    assert created.exit_code == 0, created.output
    ids = stoker.ids("snappol")

    deleted = stoker("delete", "snappol", "--yes")
    assert deleted.exit_code == 0, deleted.output
    assert admin.block_storage.find_volume(ids["kept"]) is None
    assert admin.block_storage.find_volume(ids["plain"]) is None
    backups = [b for b in admin.block_storage.backups() if b.volume_id in ids.values()]
    assert [(b.volume_id, b.status, b.size) for b in backups] == [(ids["kept"], "available", 2)]
    admin.block_storage.delete_backup(backups[0])
