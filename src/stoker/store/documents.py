"""Shared documents: each distinct template, set of files and shared environment stored
once, however many raw templates refer to it.

A nested stack's definition is mostly what its siblings have too: the template of a
resource group's members, the ``parameter_defaults`` and ``resource_registry`` every
nested stack inherits from the top (TripleO's are tens of kilobytes, in each of hundreds
of nested stacks). Stored in each raw template row, they made most of what a large
create wrote, encoded and (in a sealed stack) encrypted. So a raw template refers to
`Document` rows instead: its template, its files, and its environment's *shared*
sections (all but ``parameters``, which are the stack's own and stay in the row:
`split_environment`). A document is found by a digest of its JSON text, and written only
when no row has that digest yet.

The own section is what the stack row's ``parameters`` hold too where the stack's record
has them as one mapping (a nested stack's: the values its parent passes down, which for
TripleO's add up to megabytes, encoded and sealed twice). The raw template then keeps a
mark in its place (`STACK_PARAMETERS`), and a reader puts back the parameters stored with
it (`own_sections`): the stack's for its current raw template, the previous ones for the
previous.

The digest is keyed (BLAKE2b in its keyed mode, with a key derived from the store's
secret key: `stoker.store.secrets.Sealer.digest`): a sealed document's digest, stored in
clear beside its token, would otherwise let anyone holding the database confirm a guess
of what it hides (hash the guessed document, look for the digest). Whether the body is
sealed is part of what is digested, so a sealed document is never shared with a stack
whose values are in clear, nor the other way round. ``stoker db rotate-key`` re-seals
bodies and recomputes digests (`stoker.store.secrets.reseal_all`). A document an older
schema's row became has no digest: it is never shared.

A document goes with its last user: the writes that drop a raw template
(`stoker.store.writing.StoreWrites.change_definition`) call `release`, which deletes the
row and then the documents no raw template refers to any more. On SQLite writers take
turns. On PostgreSQL, a transaction that uses documents holds the documents' advisory
lock shared, and one that may release documents holds it exclusively, taken before it
touches any document (`lock_for_release`): a document is never deleted under a
concurrent transaction that has just started to use it (which the deleter could not
see), and the lock is never upgraded, which would deadlock two releasers. Concurrent
users insert new documents in digest order, so two of them never wait on each other's
documents crosswise.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ClauseElement, Executable, bindparam, delete, exists, select
from sqlalchemy.engine import Dialect

from stoker.engine import StackRecord, StoredDefinition
from stoker.store.driver import DriverStatement, one_row
from stoker.store.executor import Transaction
from stoker.store.jsontext import dumps, loads
from stoker.store.models import Document, RawTemplate
from stoker.store.secrets import Sealer, carries_nothing

#: the key of the documents' advisory lock on PostgreSQL (an arbitrary constant)
_LOCK_KEY = 0x5707_D0C5
#: the environment's section each stack has its own (the values its parent passes down)
OWN_SECTION = "parameters"
#: the own section's value where it is the stack row's parameters (`own_sections`); a
#: stored section is a mapping, never a string
STACK_PARAMETERS = "$stoker_stack_parameters"
#: the section every nested stack has as the top stack's, a document of its own (the
#: registry, in the other document, is narrowed for each nested stack)
DEFAULTS_SECTION = "parameter_defaults"


def split_environment(
    environment: Any,
) -> tuple[dict[str, Any] | None, dict[str, Any] | None, Any]:
    """An environment's shared sections, as two documents (``parameter_defaults``, and
    the others but ``parameters``), and the rest, which the raw template keeps: the own
    section, and each shared section's name with None in its place, so the sections come
    back in their order (`join_environment`). Not a mapping: no documents."""
    if type(environment) is not dict:
        return None, None, environment
    shared: dict[str, Any] = {}
    defaults: dict[str, Any] = {}
    own: dict[str, Any] = {}
    for key, value in environment.items():
        if key == OWN_SECTION:
            own[key] = value
            continue
        (defaults if key == DEFAULTS_SECTION else shared)[key] = value
        own[key] = None
    return shared, defaults, own


def own_sections(own: Any, parameters: Any) -> Any:
    """The own sections of a raw template's environment as stored (opened), with the
    parameters stored with it (the stack row's, or its previous ones) where the mark
    stands for them."""
    if type(own) is not dict or own.get(OWN_SECTION) != STACK_PARAMETERS:
        return own
    return {**own, OWN_SECTION: parameters}


def join_environment(documents: Sequence[Mapping[str, Any]], own: Any) -> Any:
    """The environment `split_environment` split, from its documents and own sections."""
    merged: dict[str, Any] = {}
    for document in documents:
        merged.update(document)
    return {key: merged.get(key, value) for key, value in own.items()}


def open_document(sealer: Sealer, body: str) -> Any:
    """A document's value, from its body (JSON text, or a sealed token of it)."""
    return loads(sealer.unseal_text(body))


def definition_values(
    transaction: Transaction,
    sealer: Sealer,
    definition: StackRecord | StoredDefinition,
    *,
    sealed: bool,
    digests: DocumentDigests,
) -> dict[str, Any]:
    """The values of a new raw template row (`insert_raw_template`) for the template,
    environment and files of ``definition``: its documents written where no row has them
    yet; the environment's own sections sealed where the stack is, its parameters a mark
    where they are the very mapping the stack row holds (`STACK_PARAMETERS`)."""
    shared, defaults, own = split_environment(definition.environment)
    if type(own) is dict and own.get(OWN_SECTION) is definition.parameters:
        own[OWN_SECTION] = STACK_PARAMETERS
    values: list[Any] = [definition.template, definition.files]
    if shared is not None and defaults is not None:
        values += (shared, defaults)
    ids = put_documents(transaction, sealer, values, sealed=sealed, digests=digests)
    return {
        "template_id": ids[0],
        "files_id": ids[1],
        "environment_id": ids[2] if len(ids) > 2 else None,
        "parameter_defaults_id": ids[3] if len(ids) > 2 else None,
        "environment": sealer.seal(own) if sealed else own,
    }


def put_documents(
    transaction: Transaction,
    sealer: Sealer,
    values: Sequence[Any],
    *,
    sealed: bool,
    digests: DocumentDigests,
) -> list[int]:
    """The ids of documents holding ``values`` (sealed if ``sealed``, but for a value
    that carries nothing: `stoker.store.secrets.carries_nothing`), written where no row
    has their digest yet (their digests found in ``digests`` where it keeps them)."""
    if connection_is_postgresql(transaction):
        transaction.rows("advisory_lock_shared", {"key": _LOCK_KEY})
    seals = [sealed and not carries_nothing(value) for value in values]
    found_digests = [
        digests.digest(sealer, value, sealed=seal)
        for value, seal in zip(values, seals, strict=True)
    ]
    keys = [digest for digest, _ in found_digests]
    sql = _driver_sql(transaction.connection.dialect)
    with transaction.cursor() as cursor:
        found = sql.find(cursor, keys)
        missing = sorted(
            (digest, index) for index, digest in enumerate(keys) if digest not in found
        )
        for digest, index in missing:
            if digest in found:  # the same document twice in ``values``
                continue
            text = found_digests[index][1]
            if text is None:  # its digest was kept, and the document since deleted
                text = dumps(values[index])
            body = sealer.seal_text(text) if seals[index] else text
            added = sql.insert(cursor, digest, body)
            if added is None:  # a concurrent writer's, committed since the look-up
                added = sql.find(cursor, [digest])[digest]
            found[digest] = added
    return [found[digest] for digest in keys]


#: how many documents' digests a `DocumentDigests` keeps
KEPT_DIGESTS = 256


class DocumentDigests:
    """The digests of the documents a store lately wrote or found, kept by the identities
    of what they hold, two levels down.

    A tree's nested stacks mostly store documents another one stored already: each has
    the top stack's ``parameter_defaults`` (the one plain mapping the engine makes per
    tree: `stoker.engine.stored_environments`), the members of a group have one template
    object, children of one template share its files' contents, and the resources of one
    type share one registry, whose stored form each child's environment copies
    (`stoker.environment.ResourceRegistry.to_data`). Encoding such a document again
    (TripleO's ``parameter_defaults`` and registry are tens of kilobytes, in each of its
    238 nested stacks) only to find its digest stored was most of `put_documents`' work.

    A document is known by its keys' identities and, for each value, its identity, or
    for a mapping the identities of its keys and values (an empty list or mapping by
    that alone):
    a document known so is the very content of a kept one (nothing changes a stored
    definition in place: a store writes it, an operation reads a copy back), so its
    digest is reused. The document is kept with its entry, so that no identity can be
    taken by another object while the entry lives. Digests are keyed by the store's
    secret key: the entries are for one sealer."""

    __slots__ = ("_kept", "_sealer")

    def __init__(self) -> None:
        self._sealer: Sealer | None = None
        #: identities -> the document they were taken from, and its digest
        self._kept: dict[tuple[Any, ...], tuple[Any, str]] = {}

    def digest(self, sealer: Sealer, value: Any, *, sealed: bool) -> tuple[str, str | None]:
        """The digest of ``value``'s JSON text (`Sealer.digest`), and the text if it had
        to be encoded (None: the digest was kept)."""
        if sealer is not self._sealer:
            self._kept.clear()
            self._sealer = sealer
        key = None
        if type(value) is dict:
            key = (sealed, tuple(map(id, value)), tuple(map(_identities, value.values())))
            kept = self._kept.pop(key, None)
            if kept is not None:
                self._kept[key] = kept  # the most recently used is dropped last
                return kept[1], None
        text = dumps(value)
        digest = sealer.digest(text, sealed=sealed)
        if key is not None:
            if len(self._kept) >= KEPT_DIGESTS:
                del self._kept[next(iter(self._kept))]
            self._kept[key] = (value, digest)
        return digest, text


#: how `_identities` knows an empty list or mapping (never equal to an identity, a number)
_EMPTY: dict[type, str] = {list: "[]", dict: "{}"}


def _identities(value: Any) -> Any:
    """What a document's value is known by in `DocumentDigests`: a mapping by the
    identities of its keys and what its values are known by (`_identity`), anything
    else as `_identity` knows it."""
    if type(value) is dict and value:
        return (tuple(map(id, value)), tuple(map(_identity, value.values())))
    return _identity(value)


def _identity(value: Any) -> Any:
    """An empty list or mapping as such (every child's environment has its own), anything
    else by its identity."""
    if not value:
        empty = _EMPTY.get(type(value))
        if empty is not None:
            return empty
    return id(value)


#: the most documents one raw template refers to
_SLOTS = 4


@dataclass(frozen=True, slots=True)
class _DriverSQL:
    """`put_documents`' two statements as the dialect's SQL, run on the driver's cursor:
    SQLAlchemy's work per statement cost more than the database's for these one-row
    statements, run for each stack created (as `stoker.store.bulk` does for the bulk
    rows)."""

    find_statement: DriverStatement
    insert_statement: DriverStatement

    def find(self, cursor: Any, digests: Sequence[str]) -> dict[str, int]:
        """The ids of the documents with these digests (at most `_SLOTS`)."""
        slots = (*digests, *[digests[0]] * (_SLOTS - len(digests)))
        self.find_statement.execute(cursor, [slots])
        return {digest: int(id_) for digest, id_ in cursor.fetchall()}

    def insert(self, cursor: Any, digest: str, body: str) -> int | None:
        """The new document's id; None if a row has its digest."""
        self.insert_statement.execute(cursor, [(digest, body)])
        row = cursor.fetchone()
        return None if row is None else int(row[0])


_COMPILED: dict[str, _DriverSQL] = {}


def _driver_sql(dialect: Dialect) -> _DriverSQL:
    """`_DriverSQL` for ``dialect``, compiled on first use."""
    compiled = _COMPILED.get(dialect.name)
    if compiled is None:
        names = [f"d{i}" for i in range(_SLOTS)]
        find = select(Document.digest, Document.id).where(
            Document.digest.in_([bindparam(name) for name in names])
        )
        compiled = _DriverSQL(
            one_row(find, dialect, names),
            one_row(_insert(dialect.name), dialect, ["digest", "body"]),
        )
        _COMPILED[dialect.name] = compiled
    return compiled


def connection_is_postgresql(transaction: Transaction) -> bool:
    return transaction.connection.dialect.name == "postgresql"


def lock_for_release(transaction: Transaction) -> None:
    """Before a transaction that may `release` touches any document: on PostgreSQL, the
    documents' lock, exclusively (see the module's docstring)."""
    if connection_is_postgresql(transaction):
        transaction.rows("advisory_lock", {"key": _LOCK_KEY})


def release(transaction: Transaction, raw_template_ids: Sequence[int]) -> None:
    """Delete these raw templates, and then each of their documents no other raw template
    refers to (`lock_for_release` taken first)."""
    if not raw_template_ids:
        return
    connection = transaction.connection
    ids = {"ids": list(raw_template_ids)}
    used = connection.execute(_documents_of(), ids).all()
    connection.execute(_delete_raw_templates(), ids)
    documents = sorted({i for row in used for i in row if i is not None})
    if documents:
        connection.execute(_delete_unused(), {"ids": documents})


# The statements, built once (SQLAlchemy's compiled cache keeps their SQL per dialect).

#: the columns of a raw template that refer to documents
_USERS = (
    RawTemplate.template_id,
    RawTemplate.environment_id,
    RawTemplate.files_id,
    RawTemplate.parameter_defaults_id,
)


@functools.cache
def _insert(dialect: str) -> ClauseElement:
    """A new document, nothing if a concurrent writer committed its digest first."""
    values: dict[str, Any] = {"digest": bindparam("digest"), "body": bindparam("body")}
    # each dialect imported only for its own store (a PostgreSQL store has no use for
    # SQLite's); their inserts are written alike
    insert: Any
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    statement: ClauseElement = (
        insert(Document)
        .values(values)
        .on_conflict_do_nothing(index_elements=["digest"])
        .returning(Document.id)
    )
    return statement


@functools.cache
def _documents_of() -> Executable:
    return select(*_USERS).where(RawTemplate.id.in_(bindparam("ids", expanding=True)))


@functools.cache
def _delete_raw_templates() -> Executable:
    return delete(RawTemplate).where(RawTemplate.id.in_(bindparam("ids", expanding=True)))


@functools.cache
def _delete_unused() -> Executable:
    users = [~exists().where(column == Document.id) for column in _USERS]
    return delete(Document).where(Document.id.in_(bindparam("ids", expanding=True)), *users)
