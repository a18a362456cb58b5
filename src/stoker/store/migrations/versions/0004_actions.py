"""Cancel requests and snapshots, for the other stack actions.

Revision ID: 0004
Revises: 0002
Create Date: 2026-11-23

- ``stacks.cancel_request``: ``stack cancel`` writes ``cancel`` (stop, no rollback) or
  ``rollback`` here while an operation runs in another process; the operation reads it
  with the fencing check every write of it makes (no extra statement), and stops at its
  next step. A new claim clears it.
- ``snapshots``: what ``stack snapshot create`` stored (Heat's snapshot: the template,
  environment, files and each resource's data, as one JSON document), by stack.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

TIME = sa.DateTime(timezone=True)
STACK_ID = sa.String(64)


def upgrade() -> None:
    with op.batch_alter_table("stacks") as batch:
        batch.add_column(sa.Column("cancel_request", sa.String(32), nullable=True))
    op.create_table(
        "snapshots",
        sa.Column("id", STACK_ID, nullable=False),
        sa.Column("stack_id", STACK_ID, nullable=False),
        sa.Column("name", sa.String(255), nullable=True),
        sa.Column("status", sa.String(32), nullable=False),
        sa.Column("status_reason", sa.Text(), nullable=False),
        sa.Column("data", sa.JSON(), nullable=True),
        sa.Column("created_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_snapshots"),
        sa.ForeignKeyConstraint(["stack_id"], ["stacks.id"], name="fk_snapshots_stack_id_stacks"),
    )
    op.create_index("ix_snapshots_stack_id", "snapshots", ["stack_id"])


def downgrade() -> None:
    op.drop_index("ix_snapshots_stack_id", table_name="snapshots")
    op.drop_table("snapshots")
    with op.batch_alter_table("stacks") as batch:
        batch.drop_column("cancel_request")
