"""The previous definition of a stack, for rolling an update back.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23

An update replaces the definition a stack runs from (template, environment, files in
``raw_templates``; parameters and the template's path on the stack row). Rolling back
needs the definition it had before, as Heat keeps ``prev_raw_template_id``:

- ``stacks.prev_raw_template_id``: the raw template before the update in progress (or the
  last one); NULL when the stack was never updated.
- ``stacks.prev_parameters`` and ``stacks.prev_template_file``: the parameters (sealed like
  ``parameters`` when the stack hides values) and template path that went with it.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    with op.batch_alter_table("stacks") as batch:
        batch.add_column(sa.Column("prev_raw_template_id", _ID, nullable=True))
        batch.add_column(sa.Column("prev_parameters", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("prev_template_file", sa.Text(), nullable=True))
        batch.create_foreign_key(
            "fk_stacks_prev_raw_template_id_raw_templates",
            "raw_templates",
            ["prev_raw_template_id"],
            ["id"],
        )


def downgrade() -> None:
    with op.batch_alter_table("stacks") as batch:
        batch.drop_constraint("fk_stacks_prev_raw_template_id_raw_templates", type_="foreignkey")
        batch.drop_column("prev_template_file")
        batch.drop_column("prev_parameters")
        batch.drop_column("prev_raw_template_id")
