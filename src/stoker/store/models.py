"""The tables of the store, as SQLAlchemy Core tables.

The engine never sees these: `stoker.store.rows` turns rows into the records of
`stoker.engine.state`. The store reads and writes with Core statements on these tables
(`stoker.store.reading`, `stoker.store.writing`, `stoker.store.claims`, and
`stoker.store.bulk` for the many rows), never ORM objects. These tables are also the
DDL of a new database, made from them in one step (`stoker.store.migrate`), while an
older one is upgraded by the hand-written migrations in ``migrations/versions``: both
ways must build the same schema, and tests/store/test_migrations.py checks that they do
on both backends.

Choices:

- Actions and statuses are short strings, not database enums: a new action is then a
  code change, not a migration.
- The template, environment and files a stack was created from live in ``raw_templates``
  (as in Heat): they are large and written once, while the stack row changes often. An
  update points the stack at a new row and keeps the previous one
  (``prev_raw_template_id``, with ``prev_parameters``) for its rollback. The large parts
  that many stacks have alike (a nested template used by many resources, the
  ``parameter_defaults`` and registry every nested stack inherits) are ``documents``,
  each stored once (`stoker.store.documents`).
- The lease is three columns on the stack row (holder, expiry, generation), so claiming a
  stack is one conditional UPDATE of one row; the generation is the fencing token every
  write of the holder is checked against.
- Stack names are unique per project among stacks that are not deleted: a partial unique
  index (both SQLite and PostgreSQL have them) backs the check `create_stack` makes
  (`ddl_metadata` adds it).
- Resources and events have integer ids in write order; resources are read back in the
  order they were first written (an upsert keeps the id), events are paged by id.
- Core tables, not ORM models: the store never loads ORM objects, and importing
  ``sqlalchemy.orm`` was a large part of every command that opens the store (such as
  ``stoker stack list``). Each table is declared as a class whose attributes are its
  columns (`Stack.id`), which statements accept as the table itself.
"""

from __future__ import annotations

from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.sql.elements import ColumnClause

from stoker.store.types import UTCDateTime

#: the partial unique index on the names of a project's stacks that are not deleted
LIVE_NAMES_INDEX = "uq_stacks_project_name_live"

# Named constraints, so the migration and the models agree on every name.
NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}
#: every table of the store
metadata = MetaData(naming_convention=NAMING_CONVENTION)

# A 64-bit id on PostgreSQL; on SQLite only INTEGER PRIMARY KEY is the auto-assigned rowid.
Id = BigInteger().with_variant(Integer(), "sqlite")

NAME_LENGTH = 255
STATE_LENGTH = 32  # an action or a status


def _column(*args: Any, **kwargs: Any) -> ColumnClause[Any]:
    """A `Column`, typed as the expression a table class's attribute is used as (the
    type of ``Column`` itself forbids reading one from a class, to guard ORM models)."""
    return Column(*args, **kwargs)


def _id() -> ColumnClause[int]:
    return _column(Id, primary_key=True, autoincrement=True)


def _stack_id(*, nullable: bool = False) -> ColumnClause[str]:
    return _column(String(64), ForeignKey("stacks.id"), nullable=nullable)


def _name(*, nullable: bool = False) -> ColumnClause[str]:
    return _column(String(NAME_LENGTH), nullable=nullable)


def _state() -> ColumnClause[str]:
    return _column(String(STATE_LENGTH), nullable=False)


def _text(*, nullable: bool = False) -> ColumnClause[str]:
    return _column(Text, nullable=nullable)


def _json() -> ColumnClause[Any]:
    return _column(JSON(), nullable=False)


def _time(*, nullable: bool = False) -> ColumnClause[Any]:
    return _column(UTCDateTime(), nullable=nullable)


class TableOf:
    """A table declared as a class: its `Column` attributes, in order, become the columns
    of ``__table__`` (named after the attributes), with ``__table_args__`` after them. The
    class itself stands for the table in statements (``update(Stack)``)."""

    __tablename__: ClassVar[str]
    __table_args__: ClassVar[tuple[Any, ...]] = ()
    __table__: ClassVar[Table]

    def __init_subclass__(cls) -> None:
        columns = []
        for name, value in vars(cls).items():
            if isinstance(value, Column):
                value.name = value.key = name
                columns.append(value)
        cls.__table__ = Table(cls.__tablename__, metadata, *columns, *cls.__table_args__)

    @classmethod
    def __clause_element__(cls) -> Table:
        return cls.__table__


class Document(TableOf):
    """A template, a stack's files, or the sections of an environment its stack shares
    with others, stored once however many raw templates refer to it
    (`stoker.store.documents`): ``body`` is its JSON text, or a sealed token of it
    (`stoker.store.secrets.TEXT_PREFIX`); ``digest`` the keyed digest it is found by,
    NULL for a document that is never shared (one an older schema's row became)."""

    __tablename__ = "documents"
    __table_args__ = (UniqueConstraint("digest"),)

    id = _id()
    digest = _column(String(64), nullable=True)
    body = _text()


def _document_id(*, nullable: bool = False) -> ColumnClause[int]:
    return _column(Id, ForeignKey("documents.id"), nullable=nullable)


class RawTemplate(TableOf):
    """What a stack was created from; referenced by `Stack.raw_template_id`. Its template,
    files and the environment's shared sections (``parameter_defaults``, and the others
    but ``parameters``) are `Document` rows; ``environment`` holds the stack's own
    sections (`stoker.store.documents.split_environment`), or the whole environment
    where ``environment_id`` is NULL."""

    __tablename__ = "raw_templates"
    # what finds a document's last user, when a raw template goes
    __table_args__ = (
        Index("ix_raw_templates_template_id", "template_id"),
        Index("ix_raw_templates_environment_id", "environment_id"),
        Index("ix_raw_templates_files_id", "files_id"),
        Index("ix_raw_templates_parameter_defaults_id", "parameter_defaults_id"),
    )

    id = _id()
    template_id = _document_id()
    environment = _json()
    environment_id = _document_id(nullable=True)
    files_id = _document_id()
    parameter_defaults_id = _document_id(nullable=True)


class Stack(TableOf):
    __tablename__ = "stacks"
    # the unique index on live names is DDL only: `ddl_metadata` adds it, per dialect
    __table_args__ = (Index("ix_stacks_parent_id", "parent_id"),)

    id = _column(String(64), primary_key=True)
    name = _name()
    project = _name()
    action = _state()
    status = _state()
    status_reason = _text()
    raw_template_id = _column(Id, ForeignKey("raw_templates.id"), nullable=False)
    parameters = _json()
    #: the definition before the last update (template, parameters, path), for rollback
    prev_raw_template_id = _column(Id, ForeignKey("raw_templates.id"), nullable=True)
    prev_parameters = _column(JSON(), nullable=True)
    prev_template_file = _text(nullable=True)
    created_at = _time()
    updated_at = _time(nullable=True)
    deleted_at = _time(nullable=True)
    parent_id = _stack_id(nullable=True)
    parent_resource = _text(nullable=True)  # a resource name: any length
    tags = _json()
    timeout_mins = _column(Integer, nullable=True)
    disable_rollback = _column(Boolean, nullable=False)
    template_file = _text(nullable=True)
    #: the clouds.yaml entry the stack was created in (`StackRecord.cloud`)
    cloud = _text(nullable=True)
    lease_engine_id = _name(nullable=True)
    lease_expires_at = _time(nullable=True)
    #: the fencing token: counts every claim taken, so a write checks it still holds one
    lease_generation = _column(BigInteger, nullable=False, server_default="0")
    #: ``stack cancel``'s request to the running operation (cancel | rollback), or NULL
    cancel_request = _column(String(STATE_LENGTH), nullable=True)


class StoreMeta(TableOf):
    """Small named values of the store itself (the secret key's check value)."""

    __tablename__ = "store_meta"

    name = _column(String(64), primary_key=True)
    value = _text()


class Resource(TableOf):
    __tablename__ = "resources"
    __table_args__ = (UniqueConstraint("stack_id", "name"),)

    id = _id()
    stack_id = _stack_id()
    name = _text()  # Heat sets no limit on a resource's name
    type = _text()  # a provider template's path can be long too
    action = _state()
    status = _state()
    status_reason = _text()
    physical_id = _text(nullable=True)
    properties = _json()
    attributes = _json()
    data = _json()
    requires = _json()
    created_at = _time(nullable=True)
    updated_at = _time(nullable=True)


class Event(TableOf):
    __tablename__ = "events"
    __table_args__ = (Index("ix_events_stack_id_id", "stack_id", "id"),)

    id = _id()
    stack_id = _stack_id()
    resource_name = _text()
    resource_type = _text()
    action = _state()
    status = _state()
    reason = _text()
    physical_id = _text(nullable=True)
    time = _time()


class Snapshot(TableOf):
    """A stack's snapshot (``stack snapshot create``): Heat's document in ``data``."""

    __tablename__ = "snapshots"
    __table_args__ = (Index("ix_snapshots_stack_id", "stack_id"),)

    id = _column(String(64), primary_key=True)
    stack_id = _stack_id()
    name = _name(nullable=True)
    status = _state()
    status_reason = _text()
    data = _column(JSON(), nullable=True)
    created_at = _time()


class SoftwareConfig(TableOf):
    """A software config of Heat's API (``/software_configs``): ``config`` holds its
    ``config``, ``inputs``, ``outputs`` and ``options``."""

    __tablename__ = "software_configs"
    __table_args__ = (Index("ix_software_configs_project", "project"),)

    id = _column(String(64), primary_key=True)
    project = _name()
    name = _text(nullable=True)
    group = _name()
    config = _json()
    created_at = _time()


class SoftwareDeployment(TableOf):
    """A software deployment of Heat's API (``/software_deployments``)."""

    __tablename__ = "software_deployments"
    __table_args__ = (Index("ix_software_deployments_project_server_id", "project", "server_id"),)

    id = _column(String(64), primary_key=True)
    project = _name()
    config_id = _column(String(64), nullable=False)
    server_id = _name()
    action = _state()
    status = _state()
    status_reason = _text()
    input_values = _json()
    output_values = _json()
    created_at = _time()
    updated_at = _time(nullable=True)


class StackTrust(TableOf):
    """The Keystone trust a stack's cloud work acts with (``stoker serve`` with each
    stack's owner acting, Heat's ``user_creds``): made from the owner to the server's
    service user when the stack was created, deleted with the stack. ``trust_id`` is
    sealed (`stoker.store.secrets`): with the service user's password it acts as the
    owner. Written before the stack's own row (a takeover of the create must find it),
    so ``id`` (the stack's) has no foreign key."""

    __tablename__ = "stack_trusts"

    id = _column(String(64), primary_key=True)  # the stack's
    project = _name()
    trustor_user_id = _name()
    trust_id = _text()
    created_at = _time()


def ddl_metadata(dialect: str) -> MetaData:
    """`metadata` with what only DDL and schema comparison need: the partial unique index
    on live stack names, its condition stated for ``dialect`` (``sqlite`` or
    ``postgresql``; the same condition on both, as migration 0001 creates it). The index
    is added on the first call, and each dialect's condition on the first call for it,
    through the index's documented, writable ``dialect_kwargs``.

    A dialect option imports its dialect when it is set, so the index is not declared
    with the table, nor for both dialects at once: every command on a SQLite store would
    import SQLAlchemy's PostgreSQL dialect, a PostgreSQL server SQLite's, and the first
    command on a new SQLite database the PostgreSQL dialect, for nothing. Statements
    never need the index; creating a new database's schema (`stoker.store.migrate`) and
    comparing it with the migrations (Alembic's ``target_metadata``,
    tests/store/test_migrations.py, which also checks both backends' index is partial)
    do."""
    table = Stack.__table__
    live = next((index for index in table.indexes if index.name == LIVE_NAMES_INDEX), None)
    if live is None:
        live = Index(LIVE_NAMES_INDEX, table.c.project, table.c.name, unique=True)
    where = f"{dialect}_where"
    if live.dialect_kwargs.get(where) is None:  # (the dialect's default is None)
        live.dialect_kwargs[where] = text("deleted_at IS NULL")
    return metadata
