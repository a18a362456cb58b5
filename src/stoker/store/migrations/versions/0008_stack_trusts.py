"""The Keystone trust each stack's cloud work acts with (``stoker serve``).

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-29

With each stack's owner acting in the cloud (Heat's ``deferred_auth_method = trusts``),
the server keeps, per stack, the trust its owner gave the server's service user: the
trust's id sealed like a hidden value, its trustor and the project. The row is written
before the stack's (a server that dies right after creating the stack leaves the trust
to the one taking over), so it has no foreign key to ``stacks``.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "stack_trusts",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("project", sa.String(255), nullable=False),
        sa.Column("trustor_user_id", sa.String(255), nullable=False),
        sa.Column("trust_id", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_stack_trusts"),
    )


def downgrade() -> None:
    op.drop_table("stack_trusts")
