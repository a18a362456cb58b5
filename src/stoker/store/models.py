"""The tables of the store, as SQLAlchemy typed models.

The engine never sees these: `stoker.store.records` turns rows into the frozen records of
`stoker.engine.state`. The store reads and writes with Core statements on these tables
(`stoker.store.store`, and `stoker.store.bulk` for the many rows), never ORM objects, so
the models describe the schema; the hand-written migration in ``migrations/versions``
must match them, and a test checks it on both backends.

Choices:

- Actions and statuses are short strings, not database enums: a new action is then a
  code change, not a migration.
- The template, environment and files a stack was created from live in ``raw_templates``
  (as in Heat): they are large and written once, while the stack row changes often.
- The lease is three columns on the stack row (holder, expiry, generation), so claiming a
  stack is one conditional UPDATE of one row; the generation is the fencing token every
  write of the holder is checked against.
- Stack names are unique per project among stacks that are not deleted: a partial unique
  index (both SQLite and PostgreSQL have them) backs the check `create_stack` makes.
- Resources and events have integer ids in write order; resources are read back in the
  order they were first written (an upsert keeps the id), events are paged by id.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from stoker.store.types import UTCDateTime

# Named constraints, so the migration and the models agree on every name.
NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# A 64-bit id on PostgreSQL; on SQLite only INTEGER PRIMARY KEY is the auto-assigned rowid.
Id = BigInteger().with_variant(Integer(), "sqlite")

NAME_LENGTH = 255
STATE_LENGTH = 32  # an action or a status


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {datetime: UTCDateTime(), dict[str, Any]: JSON(), list[str]: JSON()}


class RawTemplate(Base):
    """What a stack was created from; referenced by `Stack.raw_template_id`."""

    __tablename__ = "raw_templates"

    id: Mapped[int] = mapped_column(Id, primary_key=True, autoincrement=True)
    template: Mapped[dict[str, Any]]
    environment: Mapped[dict[str, Any]]
    files: Mapped[dict[str, Any]]


class Stack(Base):
    __tablename__ = "stacks"
    __table_args__ = (
        Index(
            "uq_stacks_project_name_live",
            "project",
            "name",
            unique=True,
            sqlite_where=text("deleted_at IS NULL"),
            postgresql_where=text("deleted_at IS NULL"),
        ),
        Index("ix_stacks_parent_id", "parent_id"),
    )

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(NAME_LENGTH))
    project: Mapped[str] = mapped_column(String(NAME_LENGTH))
    action: Mapped[str] = mapped_column(String(STATE_LENGTH))
    status: Mapped[str] = mapped_column(String(STATE_LENGTH))
    status_reason: Mapped[str] = mapped_column(Text)
    raw_template_id: Mapped[int] = mapped_column(Id, ForeignKey("raw_templates.id"))
    parameters: Mapped[dict[str, Any]]
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime | None]
    deleted_at: Mapped[datetime | None]
    parent_id: Mapped[str | None] = mapped_column(String(64), ForeignKey("stacks.id"))
    parent_resource: Mapped[str | None] = mapped_column(Text)  # a resource name: any length
    tags: Mapped[list[str]]
    timeout_mins: Mapped[int | None]
    disable_rollback: Mapped[bool]
    template_file: Mapped[str | None] = mapped_column(Text)
    lease_engine_id: Mapped[str | None] = mapped_column(String(NAME_LENGTH))
    lease_expires_at: Mapped[datetime | None]
    #: the fencing token: counts every claim taken, so a write checks it still holds one
    lease_generation: Mapped[int] = mapped_column(BigInteger, server_default="0")


class StoreMeta(Base):
    """Small named values of the store itself (the secret key's check value)."""

    __tablename__ = "store_meta"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class Resource(Base):
    __tablename__ = "resources"
    __table_args__ = (UniqueConstraint("stack_id", "name"),)

    id: Mapped[int] = mapped_column(Id, primary_key=True, autoincrement=True)
    stack_id: Mapped[str] = mapped_column(String(64), ForeignKey("stacks.id"))
    name: Mapped[str] = mapped_column(Text)  # Heat sets no limit on a resource's name
    type: Mapped[str] = mapped_column(Text)  # a provider template's path can be long too
    action: Mapped[str] = mapped_column(String(STATE_LENGTH))
    status: Mapped[str] = mapped_column(String(STATE_LENGTH))
    status_reason: Mapped[str] = mapped_column(Text)
    physical_id: Mapped[str | None] = mapped_column(Text)
    properties: Mapped[dict[str, Any]]
    attributes: Mapped[dict[str, Any]]
    data: Mapped[dict[str, Any]]
    requires: Mapped[list[str]]
    created_at: Mapped[datetime | None]
    updated_at: Mapped[datetime | None]


class Event(Base):
    __tablename__ = "events"
    __table_args__ = (Index("ix_events_stack_id_id", "stack_id", "id"),)

    id: Mapped[int] = mapped_column(Id, primary_key=True, autoincrement=True)
    stack_id: Mapped[str] = mapped_column(String(64), ForeignKey("stacks.id"))
    resource_name: Mapped[str] = mapped_column(Text)
    resource_type: Mapped[str] = mapped_column(Text)
    action: Mapped[str] = mapped_column(String(STATE_LENGTH))
    status: Mapped[str] = mapped_column(String(STATE_LENGTH))
    reason: Mapped[str] = mapped_column(Text)
    physical_id: Mapped[str | None] = mapped_column(Text)
    time: Mapped[datetime]
