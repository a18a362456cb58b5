"""A ResourceGroup's batches: rolling updates and batched creates, in Heat's arithmetic.

Heat 24.1.2 (resource_group.py, heat/scaling/rolling_update.py and scaling/template.py)
updates a group with ``update_policy.rolling_update`` in batches when its ``resource_def``
changes, and creates one with ``update_policy.batch_create`` in batches. Each batch is an
update of the child stack to a template in which up to ``max_batch_size`` members carry the
new definition and the rest keep theirs; the group may grow above its target meanwhile so
that ``min_in_service`` members stay untouched, and shrinks back in its last batch. This
module is the arithmetic and the assembly of each batch's member templates; the engine
(`stoker.engine.nested`) runs the child updates and the pauses between them.

The batches are computed from the group's state when its update starts (or is recovered):
a recovered update recomputes them from the members as they are, and members that already
carry the new definition count as done, so no member is updated twice.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from stoker.errors import ResourceFailure


@dataclass(frozen=True, slots=True)
class BatchPolicy:
    """``rolling_update`` (or ``batch_create``, whose min_in_service is 0) as resolved."""

    max_batch_size: int = 1
    min_in_service: int = 0
    pause_time: float = 0.0


def policy_of(update_policy: Any, key: str) -> BatchPolicy | None:
    """The group's ``rolling_update`` or ``batch_create`` policy, with Heat's defaults
    (batch 1, none kept in service, no pause); None when the template gives none."""
    if not isinstance(update_policy, Mapping) or key not in update_policy:
        return None
    section = update_policy.get(key)
    if section is None:
        return None
    if not isinstance(section, Mapping):
        raise ResourceFailure(f"update_policy.{key} must be a map")
    try:
        batch = int(section.get("max_batch_size", 1))
        keep = int(section.get("min_in_service", 0)) if key == "rolling_update" else 0
        pause = float(section.get("pause_time", 0))
    except (TypeError, ValueError) as error:
        raise ResourceFailure(f"update_policy.{key}: {error}") from None
    if batch < 1 or keep < 0 or pause < 0:
        raise ResourceFailure(
            f"update_policy.{key}: max_batch_size must be at least 1, min_in_service and "
            "pause_time at least 0"
        )
    if pause > 3600:
        raise ResourceFailure(
            f"Maximum pause_time allowed is 1hr(3600s), provided {section.get('pause_time')} "
            "seconds."
        )
    return BatchPolicy(batch, keep, pause)


def needs_update(target: int, current: int, up_to_date: int) -> bool:
    """Whether more batches are needed (Heat's rolling_update.needs_update)."""
    return not (up_to_date >= current == target)


def next_batch(
    target: int, current: int, up_to_date: int, batch_size: int, min_in_service: int
) -> tuple[int, int]:
    """The group's size during the next batch, and how many members it gives the new
    definition (created or updated)."""
    keep = min(min_in_service, target, current)
    batch = min(batch_size, max(target - up_to_date, 0))
    return batch + max(min(current, target - batch), keep), batch


def batches(
    target: int, current: int, batch_size: int, min_in_service: int, updated: int = 0
) -> list[tuple[int, int]]:
    """Every batch as (group size, members with the new definition). ``updated`` members
    (below the target) carry the new definition already: 0 when an update starts (as in
    Heat), more when a recovered one continues."""
    found: list[tuple[int, int]] = []
    while needs_update(target, current, updated):
        size, fresh = next_batch(target, current, updated, batch_size, min_in_service)
        found.append((size, fresh))
        updated += fresh - max(size - max(current, target), 0)
        current = size
    return found


def check_timeout(count: int, pause: float, timeout_seconds: float | None) -> None:
    """Heat refuses a policy whose pauses alone outlast the stack's timeout."""
    if timeout_seconds is not None and pause * max(count - 1, 0) >= timeout_seconds:
        raise ResourceFailure("The current update policy will result in stack update timeout.")


def names(size: int, skip: Collection[str]) -> list[str]:
    """The first ``size`` member names ("0", "1", ...) that are not skipped."""
    candidates = (str(i) for i in itertools.count())
    return list(itertools.islice((n for n in candidates if n not in skip), size))


def batch_members(
    old: Sequence[tuple[str, Any]],
    size: int,
    fresh: int,
    target: int,
    skip: Collection[str],
    new_body: Callable[[str], Any],
) -> dict[str, Any]:
    """The member templates of one batch (Heat's _assemble_for_rolling_update).

    ``old`` are the current members (name, template), oldest first, skipped ones left
    out. Members beyond the batch's size go first (those not among its names), then the
    highest indices below the target are the first to get the new definition, and members
    above the target (kept to stay in service) are the last to be touched.
    """
    wanted = names(size, skip)
    position = {name: index for index, name in enumerate(wanted)}

    def priority(item: tuple[str, Any]) -> int:
        index = position.get(item[0])
        if index is None:
            return 0
        return target - index if index < target else size

    ordered = sorted(old, key=priority)[-size:] if size else []
    existing = {name for name, _ in old}
    unused: Iterator[str] = (n for n in wanted if n not in existing)
    creates = size - len(ordered)
    replaces = fresh - creates
    members: dict[str, Any] = {}
    for name, body in ordered:
        changed = new_body(name)
        if body != changed and replaces > 0:
            replaces -= 1
            members[name] = changed
        else:
            members[name] = body
    for _ in range(creates):
        name = next(unused)
        members[name] = new_body(name)
    return dict(sorted(members.items(), key=lambda item: member_order(item[0])))


def member_order(name: str) -> tuple[int, str]:
    """Members by index ("2" before "10"), names that are no index last."""
    return (int(name), "") if name.isdigit() else (1 << 62, name)
