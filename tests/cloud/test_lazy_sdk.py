"""openstacksdk is imported only when a stack uses a cloud type: it takes about a second
to import, which `stoker --help`, a cloud-free validate and `stack list` must not pay,
even with a cloud chosen."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from cli.test_lazy_imports import EXAMPLE, _loaded, modules_loaded
from stoker.store import open_store
from stoker.store.secrets import KEY_FILE_ENV

pytestmark = pytest.mark.heavy

SDK = ("openstack", "keystoneauth1", "stoker.resources.openstack")


def test_help_validate_and_list_import_no_sdk(tmp_path: Path, clouds_yaml: Path) -> None:
    url = f"sqlite:///{tmp_path / 'list.db'}"
    open_store(url)
    env = {
        "STOKER_DB_URL": url,
        "PATH": os.path.dirname(sys.executable),
        KEY_FILE_ENV: os.environ[KEY_FILE_ENV],
        "OS_CLOUD": "sandbox",
        "OS_CLIENT_CONFIG_FILE": str(clouds_yaml),
    }
    for args in (["--help"], ["template", "validate", EXAMPLE], ["stack", "list"]):
        assert _loaded(modules_loaded(*args, env=env), *SDK) == [], args
