"""What a stack update is asked to do: the new definition, kept apart from the update's
machinery so that nested stacks (`stoker.engine.nested`), which the update runs, can ask
for updates of their own children."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from stoker.definition.stack import StackDefinition


@dataclass(slots=True)
class UpdateRequest:
    """A new definition for a stack (already merged with what ``--existing`` keeps)."""

    definition: StackDefinition  # validated with every parameter required
    template: dict[str, Any]  # the template as data (what is stored)
    environment: dict[str, Any]  # the merged environment as data
    parameters: dict[str, Any]  # as given (with --existing: the stored ones kept)
    template_file: str | None = None
    timeout_mins: int | None = None
    disable_rollback: bool = True
    tags: tuple[str, ...] = ()
