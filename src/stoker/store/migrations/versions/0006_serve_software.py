"""Software configs and deployments, as Heat's API stores them (``stoker serve``).

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24

Heat keeps ``software_config`` and ``software_deployment`` rows for its
``/software_configs`` and ``/software_deployments`` routes, per project; a deployment
names its config and the server it is for (any string here: there is no cloud).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "software_configs",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("project", sa.String(255), nullable=False),
        sa.Column("name", sa.Text(), nullable=True),
        sa.Column("group", sa.String(255), nullable=False),
        sa.Column("config", sa.JSON(), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_software_configs"),
    )
    op.create_index("ix_software_configs_project", "software_configs", ["project"])
    op.create_table(
        "software_deployments",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("project", sa.String(255), nullable=False),
        sa.Column("config_id", sa.String(64), nullable=False),
        sa.Column("server_id", sa.String(255), nullable=False),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("status", sa.String(32), nullable=False),
        sa.Column("status_reason", sa.Text(), nullable=False),
        sa.Column("input_values", sa.JSON(), nullable=False),
        sa.Column("output_values", sa.JSON(), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("updated_at", TIME, nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_software_deployments"),
    )
    op.create_index(
        "ix_software_deployments_project_server_id",
        "software_deployments",
        ["project", "server_id"],
    )


def downgrade() -> None:
    op.drop_index("ix_software_deployments_project_server_id", "software_deployments")
    op.drop_table("software_deployments")
    op.drop_index("ix_software_configs_project", "software_configs")
    op.drop_table("software_configs")
