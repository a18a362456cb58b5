"""Blueprints (seed 004): components and requirements, fulfilled from a library of
provider templates through their seed-003 capabilities, compiled to HOT.

This module stays light: `is_blueprint` is what the CLI and the API ask of every document
they load, before anything of the blueprint machinery is imported.
"""

from __future__ import annotations

from typing import Any

from stoker.template.versions import VERSION_KEYS

COMPONENTS = "components"
#: where a stack keeps the blueprint it was compiled from, among its files
#: (``stack template show --source``)
SOURCE_FILE = ".stoker/blueprint"


def is_blueprint(data: Any) -> bool:
    """A document is a blueprint when it has ``components`` and no template version key:
    the one test the CLI (`stack create`, `blueprint ...`) and the API's upload share."""
    return (
        isinstance(data, dict)
        and COMPONENTS in data
        and not any(key in data for key in VERSION_KEYS)
    )
