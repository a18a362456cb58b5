"""The cloud a stack was created in (``stacks.cloud``).

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-29

A stack created with ``--os-cloud NAME`` (or ``OS_CLOUD``) keeps the name, so later
commands on it (``stack delete``, ``update``, ``recover`` ...) use the same cloud without
the option. NULL for every earlier stack (and for a cloud described by the ``OS_*``
variables, which has no name).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("stacks") as batch:
        batch.add_column(sa.Column("cloud", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("stacks") as batch:
        batch.drop_column("cloud")
