"""``deletion_policy: Snapshot`` on a Cinder volume, as Heat does it: the stack's delete
backs the volume up (a Cinder backup, forced), waits for the backup, then deletes the
volume; the backup stays."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from stoker.cli.main import cli


def test_a_volume_with_the_snapshot_policy_is_backed_up_then_deleted(
    db_url: str, cloud_env: dict[str, str], admin: Any, tmp_path: Path
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

    def stoker(*args: str) -> Any:
        return CliRunner().invoke(cli, ["--db", db_url, "stack", *args])

    created = stoker("create", "snappol", "-t", str(template))
    assert created.exit_code == 0, created.output
    listed = json.loads(stoker("resource", "list", "snappol", "-f", "json").stdout)
    ids = {r["resource_name"]: r["physical_resource_id"] for r in listed}

    deleted = stoker("delete", "snappol", "--yes")
    assert deleted.exit_code == 0, deleted.output
    assert admin.block_storage.find_volume(ids["kept"]) is None
    assert admin.block_storage.find_volume(ids["plain"]) is None
    backups = [b for b in admin.block_storage.backups() if b.volume_id in ids.values()]
    assert [(b.volume_id, b.status, b.size) for b in backups] == [(ids["kept"], "available", 2)]
    admin.block_storage.delete_backup(backups[0])
