"""A stack's ``updated_at`` is Heat's ``updated_time``: NULL until the stack is updated.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-30

No schema change: what changes is what ``stacks.updated_at`` holds. It was the time of the
stack's last change of state (a create's end too), so a stack never updated showed its
creation time where Heat shows none. It is now the time the last update, rollback, delete
or restore began (`stoker.engine.state.UPDATING_ACTIONS`, what Heat's convergence engine
records), NULL when there was none.

Every such start wrote a stack event (``<ACTION> IN_PROGRESS``, the stack's own id as its
physical id, at the same time), and events are never removed while their stack is there:
the upgrade takes each stack's value from its events. The downgrade puts back the old
meaning, the time of the stack's last event (each change of state wrote one), or its
creation time where it has none.
"""

from __future__ import annotations

from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

_STACK_EVENTS = (
    "FROM events e WHERE e.stack_id = stacks.id AND e.physical_id = stacks.id"
    " AND e.resource_type = 'OS::Heat::Stack'"
)


def upgrade() -> None:
    op.execute(
        "UPDATE stacks SET updated_at = (SELECT MAX(e.time) "
        + _STACK_EVENTS
        + " AND e.status = 'IN_PROGRESS'"
        " AND e.action IN ('UPDATE', 'ROLLBACK', 'DELETE', 'RESTORE'))"
    )


def downgrade() -> None:
    op.execute(
        "UPDATE stacks SET updated_at = COALESCE((SELECT MAX(e.time) "
        + _STACK_EVENTS
        + "), created_at)"
    )
