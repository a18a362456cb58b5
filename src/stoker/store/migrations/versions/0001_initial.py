"""The first schema: raw templates, stacks (with their lease), resources, events.

Revision ID: 0001
Revises:
Create Date: 2025-01-01

Written by hand to match `stoker.store.models`; types are spelt out here (not imported
from the models) so this revision keeps meaning the same schema when the models move on.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TIME = sa.DateTime(timezone=True)
NAME = sa.String(255)
STATE = sa.String(32)
STACK_ID = sa.String(64)
LIVE = sa.text("deleted_at IS NULL")


def upgrade() -> None:
    op.create_table(
        "raw_templates",
        sa.Column("id", ID, nullable=False, autoincrement=True),
        sa.Column("template", sa.JSON(), nullable=False),
        sa.Column("environment", sa.JSON(), nullable=False),
        sa.Column("files", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_raw_templates"),
    )
    op.create_table(
        "stacks",
        sa.Column("id", STACK_ID, nullable=False),
        sa.Column("name", NAME, nullable=False),
        sa.Column("project", NAME, nullable=False),
        sa.Column("action", STATE, nullable=False),
        sa.Column("status", STATE, nullable=False),
        sa.Column("status_reason", sa.Text(), nullable=False),
        sa.Column("raw_template_id", ID, nullable=False),
        sa.Column("parameters", sa.JSON(), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("updated_at", TIME, nullable=True),
        sa.Column("deleted_at", TIME, nullable=True),
        sa.Column("parent_id", STACK_ID, nullable=True),
        sa.Column("parent_resource", NAME, nullable=True),
        sa.Column("tags", sa.JSON(), nullable=False),
        sa.Column("timeout_mins", sa.Integer(), nullable=True),
        sa.Column("disable_rollback", sa.Boolean(), nullable=False),
        sa.Column("template_file", sa.Text(), nullable=True),
        sa.Column("lease_engine_id", NAME, nullable=True),
        sa.Column("lease_expires_at", TIME, nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_stacks"),
        sa.ForeignKeyConstraint(
            ["raw_template_id"],
            ["raw_templates.id"],
            name="fk_stacks_raw_template_id_raw_templates",
        ),
        sa.ForeignKeyConstraint(["parent_id"], ["stacks.id"], name="fk_stacks_parent_id_stacks"),
    )
    op.create_index(
        "uq_stacks_project_name_live",
        "stacks",
        ["project", "name"],
        unique=True,
        sqlite_where=LIVE,
        postgresql_where=LIVE,
    )
    op.create_index("ix_stacks_parent_id", "stacks", ["parent_id"])
    op.create_table(
        "resources",
        sa.Column("id", ID, nullable=False, autoincrement=True),
        sa.Column("stack_id", STACK_ID, nullable=False),
        sa.Column("name", NAME, nullable=False),
        sa.Column("type", NAME, nullable=False),
        sa.Column("action", STATE, nullable=False),
        sa.Column("status", STATE, nullable=False),
        sa.Column("status_reason", sa.Text(), nullable=False),
        sa.Column("physical_id", sa.Text(), nullable=True),
        sa.Column("properties", sa.JSON(), nullable=False),
        sa.Column("attributes", sa.JSON(), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("requires", sa.JSON(), nullable=False),
        sa.Column("created_at", TIME, nullable=True),
        sa.Column("updated_at", TIME, nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_resources"),
        sa.ForeignKeyConstraint(["stack_id"], ["stacks.id"], name="fk_resources_stack_id_stacks"),
        sa.UniqueConstraint("stack_id", "name", name="uq_resources_stack_id_name"),
    )
    op.create_table(
        "events",
        sa.Column("id", ID, nullable=False, autoincrement=True),
        sa.Column("stack_id", STACK_ID, nullable=False),
        sa.Column("resource_name", NAME, nullable=False),
        sa.Column("resource_type", NAME, nullable=False),
        sa.Column("action", STATE, nullable=False),
        sa.Column("status", STATE, nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("physical_id", sa.Text(), nullable=True),
        sa.Column("time", TIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_events"),
        sa.ForeignKeyConstraint(["stack_id"], ["stacks.id"], name="fk_events_stack_id_stacks"),
    )
    op.create_index("ix_events_stack_id_id", "events", ["stack_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_events_stack_id_id", table_name="events")
    op.drop_table("events")
    op.drop_table("resources")
    op.drop_index("ix_stacks_parent_id", table_name="stacks")
    op.drop_index("uq_stacks_project_name_live", table_name="stacks")
    op.drop_table("stacks")
    op.drop_table("raw_templates")
