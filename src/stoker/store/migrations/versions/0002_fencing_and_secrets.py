"""Fencing tokens on leases, and a place for the store's own settings.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23

- ``stacks.lease_generation`` counts the claims ever taken on a stack. Every write of an
  operation carries the generation its claim got and is checked against it in the same
  transaction, so a process that lost its claim (paused past expiry, then continued)
  cannot write over the process that took the stack over.
- ``store_meta`` holds small named values of the store itself: a check value of the key
  hidden parameters are encrypted with, so a missing or wrong key is found at once.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("stacks") as batch:
        batch.add_column(
            sa.Column("lease_generation", sa.BigInteger(), nullable=False, server_default="0")
        )
    op.create_table(
        "store_meta",
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_store_meta"),
    )


def downgrade() -> None:
    op.drop_table("store_meta")
    with op.batch_alter_table("stacks") as batch:
        batch.drop_column("lease_generation")
