"""Resource names and types stored whole, however long.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23

Heat accepts a resource name of any length (its validation has no limit; its column is
``String(255)``, which its SQLite does not enforce), and a provider template's type is its
absolute path, which can be longer than 255 characters too. These columns were
``VARCHAR(255)``: PostgreSQL's bulk writes, which cast each column's array to the column's
type, cut a longer name to 255 characters without a word, and the engine then failed on
a resource it could not find. They are ``TEXT`` now, on both backends, so what is stored
is what the template says.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

#: (table, column) that hold a resource's name or type
COLUMNS = (
    ("resources", "name"),
    ("resources", "type"),
    ("events", "resource_name"),
    ("events", "resource_type"),
    ("stacks", "parent_resource"),
)


def upgrade() -> None:
    for table, column in COLUMNS:
        with op.batch_alter_table(table) as batch:
            batch.alter_column(column, type_=sa.Text(), existing_type=sa.String(255))


def downgrade() -> None:
    # Names longer than 255 characters do not fit back: PostgreSQL refuses the change
    # (rather than cut them) until they are gone.
    for table, column in COLUMNS:
        with op.batch_alter_table(table) as batch:
            batch.alter_column(column, type_=sa.String(255), existing_type=sa.Text())
