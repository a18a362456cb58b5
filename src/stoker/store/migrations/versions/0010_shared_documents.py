"""Shared documents: templates, files and shared environment sections stored once.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-02

``documents`` holds each distinct template, set of files and environment's shared
sections once (`stoker.store.documents`); ``raw_templates`` refers to them
(``template_id``, ``files_id``, ``environment_id``, ``parameter_defaults_id``) and keeps
only the environment's own sections in ``environment``.

The upgrade moves each row's template and files into a document of its own, with no
digest (a digest is keyed with the store's secret key, which a migration does not read:
such a document is never shared; rows written since are). A sealed value keeps its
token: its body is the token as a sealed text. Environments stay whole in their row
(``environment_id`` and ``parameter_defaults_id`` NULL), which readers take as it is.

The downgrade puts every row's values back in the row. An environment split into its
own and shared sections, in a stack whose values are sealed, is one token again: that
needs the store's secret key (as the store finds it: ``$STOKER_SECRET_KEY`` or the key
file), and the downgrade refuses without it.
"""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
_SEALED = "$stoker_sealed"
_TEXT_PREFIX = _SEALED + ":"
_INDEXES = ("template_id", "environment_id", "files_id", "parameter_defaults_id")

_RAW = sa.table(
    "raw_templates",
    sa.column("id", _ID),
    sa.column("template", sa.JSON()),
    sa.column("environment", sa.JSON()),
    sa.column("files", sa.JSON()),
    sa.column("template_id", _ID),
    sa.column("environment_id", _ID),
    sa.column("files_id", _ID),
    sa.column("parameter_defaults_id", _ID),
)
_DOCUMENTS = sa.table(
    "documents", sa.column("id", _ID), sa.column("digest", sa.String(64)), sa.column("body")
)
_STACKS = sa.table(
    "stacks",
    sa.column("raw_template_id", _ID),
    sa.column("parameters", sa.JSON()),
    sa.column("prev_raw_template_id", _ID),
    sa.column("prev_parameters", sa.JSON()),
)


def _is_sealed(value: Any) -> bool:
    return type(value) is dict and len(value) == 1 and _SEALED in value


def _sealed_raw_templates(connection: sa.Connection) -> set[int]:
    """The raw templates of stacks whose values are sealed (their parameters: the mark)."""
    found: set[int] = set()
    for raw_id, parameters, prev_id, prev_parameters in connection.execute(sa.select(_STACKS)):
        if _is_sealed(parameters):
            found.add(raw_id)
        if prev_id is not None and _is_sealed(prev_parameters):
            found.add(prev_id)
    return found


def _body(value: Any, sealed: bool) -> str:
    if sealed and _is_sealed(value):
        return _TEXT_PREFIX + str(value[_SEALED])
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _value(body: str) -> Any:
    if body.startswith(_TEXT_PREFIX):
        return {_SEALED: body[len(_TEXT_PREFIX) :]}
    return json.loads(body)


def upgrade() -> None:
    op.create_table(
        "documents",
        sa.Column("id", _ID, nullable=False, autoincrement=True),
        sa.Column("digest", sa.String(64), nullable=True),
        sa.Column("body", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_documents"),
        sa.UniqueConstraint("digest", name="uq_documents_digest"),
    )
    with op.batch_alter_table("raw_templates") as batch:
        for name in _INDEXES:
            batch.add_column(sa.Column(name, _ID, nullable=True))
    connection = op.get_bind()
    sealed = _sealed_raw_templates(connection)
    rows = connection.execute(sa.select(_RAW.c.id, _RAW.c.template, _RAW.c.files)).all()
    insert = sa.insert(_DOCUMENTS).returning(_DOCUMENTS.c.id)
    for raw_id, template, files in rows:
        ids = [
            connection.execute(insert, {"body": _body(value, raw_id in sealed)}).scalar_one()
            for value in (template, files)
        ]
        connection.execute(
            sa.update(_RAW).where(_RAW.c.id == raw_id).values(template_id=ids[0], files_id=ids[1])
        )
    with op.batch_alter_table("raw_templates") as batch:
        batch.drop_column("template")
        batch.drop_column("files")
        batch.alter_column("template_id", existing_type=_ID, nullable=False)
        batch.alter_column("files_id", existing_type=_ID, nullable=False)
        for name in _INDEXES:
            batch.create_foreign_key(
                f"fk_raw_templates_{name}_documents", "documents", [name], ["id"]
            )
            batch.create_index(f"ix_raw_templates_{name}", [name])


def downgrade() -> None:
    with op.batch_alter_table("raw_templates") as batch:
        batch.add_column(sa.Column("template", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("files", sa.JSON(), nullable=True))
    connection = op.get_bind()
    bodies = dict(connection.execute(sa.select(_DOCUMENTS.c.id, _DOCUMENTS.c.body)).all())
    sealer = None
    rows = connection.execute(
        sa.select(
            _RAW.c.id,
            _RAW.c.template_id,
            _RAW.c.environment,
            _RAW.c.environment_id,
            _RAW.c.files_id,
            _RAW.c.parameter_defaults_id,
        )
    ).all()
    for raw_id, template_id, environment, environment_id, files_id, defaults_id in rows:
        values = {"template": _value(bodies[template_id]), "files": _value(bodies[files_id])}
        if environment_id is not None:
            shared = [bodies[environment_id]]
            if defaults_id is not None:
                shared.append(bodies[defaults_id])
            if _is_sealed(environment) or any(b.startswith(_TEXT_PREFIX) for b in shared):
                sealer = sealer or _sealer()
                own = sealer.unseal(environment)
                opened = [json.loads(sealer.unseal_text(body)) for body in shared]
                values["environment"] = sealer.seal(_joined(opened, own))
            else:
                opened = [json.loads(body) for body in shared]
                values["environment"] = _joined(opened, environment)
        connection.execute(sa.update(_RAW).where(_RAW.c.id == raw_id).values(**values))
    with op.batch_alter_table("raw_templates") as batch:
        for name in _INDEXES:
            batch.drop_index(f"ix_raw_templates_{name}")
            batch.drop_constraint(f"fk_raw_templates_{name}_documents", type_="foreignkey")
            batch.drop_column(name)
        batch.alter_column("template", existing_type=sa.JSON(), nullable=False)
        batch.alter_column("files", existing_type=sa.JSON(), nullable=False)
    op.drop_table("documents")


def _joined(documents: list[dict[str, Any]], own: dict[str, Any]) -> dict[str, Any]:
    shared = {key: value for document in documents for key, value in document.items()}
    return {key: shared.get(key, value) for key, value in own.items()}


def _sealer() -> Any:
    """The store's sealer, with the key the store would use (see the module's docstring)."""
    from stoker.errors import SecretKeyError
    from stoker.store.secrets import Sealer, key_source, read_key

    key = read_key(key_source())
    if key is None:
        raise SecretKeyError(
            "downgrading below revision 0010 joins the sealed environments of nested "
            "stacks again, which needs the database's secret key"
        )
    return Sealer(key)
