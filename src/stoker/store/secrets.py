"""Hidden values at rest: what the store encrypts, with which key, and where the key lives.

Heat encrypts parameters and resource properties only when an operator turns on
``encrypt_parameters_and_properties``; stoker does it always. A stack whose template
declares a hidden parameter (HOT ``hidden``, CloudFormation ``NoEcho``), and every stack
nested below such a stack, is *sealed*: its template and files (a hidden parameter's
default, or a file ``get_file`` reads, may hold the secret itself), its supplied
parameter values, its merged environment (where ``--parameter`` values and
``parameter_defaults`` live), its resources' properties, attributes and plugin data, and
the status reasons of the stack, its resources and its events (a failure message may
quote a value derived from a hidden one) are stored as Fernet tokens (AES-128-CBC with
HMAC-SHA256, from the ``cryptography`` package), not in clear. A stolen database file
without the key reveals none of them. A value that carries nothing (null, "", {} or
[]) is stored as it is: there is nothing in it to hide, and its token would cost as much
as any other (most of a large sealed stack's attributes and plugin data are empty). The
stack's parameters are a token even when empty: they are the mark readers go by to know
that the stack's values are sealed, never the look of one value. Stacks without hidden
parameters are stored in clear (nothing in them is secret by declaration, and the bulk
rows of a large stack are then written without any cost).

The key, in order: ``$STOKER_SECRET_KEY`` (a Fernet key, as ``stoker db rotate-key``
prints); ``$STOKER_SECRET_KEY_FILE`` (``stoker --key-file`` sets it); otherwise one key
file, ``secret.key`` in the user's data directory, for every database. The key file is
created (0600, its directory 0700) on first use. A key file is never made beside a
database: a key in a working directory ends up in a commit or a copied folder, next to
what it protects. Earlier versions made ``<database>.key`` beside a SQLite file; such a
key is not read silently (which file unlocks a database must stay one rule), but a
database whose default key is missing or wrong while one sits beside it is refused with
the two ways to go on (`legacy_key_hint`). The database keeps a check value (a token of
a known text) in ``store_meta``, so a missing or wrong key is reported when the store
opens, not as garbage later.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import hmac
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stoker.errors import SecretKeyError
from stoker.store.jsontext import dumps, loads

if TYPE_CHECKING:  # cryptography (~7 MB resident) is imported on the first seal or unseal
    from pathlib import Path

    from cryptography.fernet import Fernet
    from sqlalchemy.engine import Connection

    from stoker.store.executor import Executor

KEY_ENV = "STOKER_SECRET_KEY"
KEY_FILE_ENV = "STOKER_SECRET_KEY_FILE"
#: the name of the check value in ``store_meta``
CHECK_NAME = "secret_key_check"
_CHECK_TEXT = b"stoker secret key check"
_DIGEST_LABEL = b"stoker shared document digests"
#: how a sealed value is stored in a JSON column
SEALED = "$stoker_sealed"
_TRUE = frozenset({"true", "yes", "y", "on", "1", "t"})
_EMPTY_TYPES = frozenset({dict, list, str})
#: how much plaintext and token `Sealer.seal_json_at` keeps (each entry counted with
#: `_PLACED_ENTRY` more for its place and tuple), before it forgets all of it
_PLACED_BUDGET = 32 * 1024 * 1024
_PLACED_ENTRY = 256

#: where a value is stored: the stack's id, the resource's name ("" for the stack's own
#: row), and the column
Place = tuple[str, str, str]


#: how a sealed text (a status reason) is stored in a text column
TEXT_PREFIX = SEALED + ":"


def is_sealed(value: Any) -> bool:
    return type(value) is dict and len(value) == 1 and SEALED in value


def sealed_json(token: str) -> str:
    """The JSON text of ``{SEALED: token}`` (as `stoker.store.jsontext.dumps` writes it):
    a Fernet token is url-safe base64, which holds nothing JSON escapes."""
    return _SEALED_JSON_START + token + '"}'


_SEALED_JSON_START = '{"' + SEALED + '":"'


def carries_nothing(value: Any) -> bool:
    """Whether a JSON value is empty (null, "", {} or []): stored in clear even where a
    stack's values are sealed, since it holds nothing to hide and its token (most of the
    values a large sealed stack writes: attributes and plugin data are mostly empty)
    costs as much as any other. ``0`` and ``false`` carry a value: they are sealed."""
    return value is None or (not value and type(value) in _EMPTY_TYPES)


@dataclass(frozen=True, slots=True)
class KeySource:
    """Where the key comes from: the environment (``file`` None) or a file.

    Kept as the file's name: reading the key needs nothing more, and `pathlib` (with the
    `urllib.parse` and `ipaddress` it imports) is then imported only
    by what asks for `path` or the default `description` (a key file made, rotated, or
    an error said)."""

    file: str | None
    #: how to name the source in messages; None: "the key file PATH"
    named: str | None = None
    #: the default key file (neither variable set)
    default: bool = False

    @property
    def path(self) -> Path | None:
        if self.file is None:
            return None

        return Path(self.file)

    @property
    def description(self) -> str:
        return self.named if self.named is not None else f"the key file {self.path}"


def default_key_file() -> str:
    """``secret.key`` in the user's data directory (platformdirs)."""
    import platformdirs  # only here: a key given by the environment never needs it

    return str(platformdirs.user_data_path("stoker", appauthor=False) / "secret.key")


def key_source() -> KeySource:
    """Where the key is (see the module's docstring for the order)."""
    if os.environ.get(KEY_ENV, "").strip():
        return KeySource(None, f"${KEY_ENV}")
    explicit = os.environ.get(KEY_FILE_ENV, "").strip()
    if explicit:
        return KeySource(explicit, f"the key file {explicit} (${KEY_FILE_ENV})")
    return KeySource(default_key_file(), default=True)


def legacy_key_hint(source: KeySource, sqlite_file: str | None) -> str | None:
    """For a SQLite database whose key would be the default one: if the ``<database>.key``
    earlier versions made beside it exists, how to use it (pass it, or move it to the
    default place when nothing is there yet); else None."""
    if not source.default or not sqlite_file or source.file is None:
        return None
    legacy = sqlite_file + ".key"
    if not os.path.isfile(legacy):
        return None
    ways = f"pass --key-file {legacy} (or set ${KEY_FILE_ENV} to it)"
    if not os.path.exists(source.file):
        ways += f", or move it to the default place: mv {legacy} {source.file}"
    return (
        f"this database's key is likely the key file {legacy} beside it, which stoker no "
        f"longer reads by default (key files are kept out of working directories): {ways}"
    )


class Sealer:
    """Encrypts and decrypts JSON-native values with one key.

    The ``cryptography`` package is imported on the first value sealed or unsealed, not
    when the store opens: checking the key against the database (`matches`) is Fernet's
    HMAC-SHA256 with the key's signing half, which the standard library computes, so an
    idle ``stoker serve`` (and every command that reads no hidden value) does without
    it."""

    def __init__(self, key: bytes) -> None:
        try:
            raw = base64.urlsafe_b64decode(key)
        except (ValueError, TypeError, binascii.Error):
            raw = b""
        if len(raw) != 32:
            raise SecretKeyError(
                "the secret key is malformed: it must be a Fernet key (32 bytes, url-safe "
                "base64), as `stoker db rotate-key` makes"
            )
        self._key = key
        self._signing_key = raw[:16]
        # a key of its own for digests: the key's keyed hash of a fixed label
        self._digest_key = hashlib.blake2b(_DIGEST_LABEL, key=raw).digest()
        self._cipher: Fernet | None = None
        #: place -> the plaintext last sealed or opened there, and its token
        self._placed: dict[Place, tuple[bytes, str]] = {}
        self._placed_size = 0

    @property
    def _fernet(self) -> Fernet:
        if self._cipher is None:
            from cryptography.fernet import Fernet

            self._cipher = Fernet(self._key)
        return self._cipher

    def seal(self, value: Any) -> Any:
        """A token of ``value``; a value that carries nothing (`carries_nothing`) as it
        is. Reading tells the two apart by structure: a token is a mapping with one key,
        and every value that carries something is stored as one, so no stored value in
        clear can pass for a token (nor a token for an empty value)."""
        if carries_nothing(value):
            return value
        return self.token(value)

    def token(self, value: Any) -> dict[str, str]:
        """A token of ``value``, even of one that carries nothing: a stack's parameters
        are always one, as the mark that says its values are sealed."""
        token = self._fernet.encrypt(dumps(value).encode("utf-8"))
        return {SEALED: token.decode("ascii")}

    # -- values at known places: tokens reused, and read back without decrypting --------
    # A resource's row is written whole at each of its transitions, mostly with the same
    # properties, and read back by the operations that follow. This sealer remembers, per
    # place, the plaintext and token it last sealed or opened there: an unchanged value
    # keeps its token, and a token it made or opened reads back without Fernet. Only the
    # same place reuses a token: equal values elsewhere get tokens of their own, so the
    # database does not show which of its values are equal.

    def seal_json_at(self, place: Place, value: Any) -> str:
        """The JSON text of `seal`'s value, for a row the driver is sent, reusing the token
        last sealed or opened at ``place`` if the value there has not changed since. A
        token's text is made around it (`sealed_json`), not encoded again: ``dumps``
        would scan the whole token (larger than the value) for what to escape."""
        if carries_nothing(value):
            return dumps(value)
        return sealed_json(self._placed_token(place, dumps(value).encode("utf-8")))

    def seal_text_at(self, place: Place, text: str) -> str:
        """`seal_text`, reusing a token as `seal_json_at` does."""
        if not text:
            return text
        return TEXT_PREFIX + self._placed_token(place, text.encode("utf-8"))

    def unseal_at(self, place: Place, value: Any) -> Any:
        """`unseal` of the value stored at ``place``."""
        if not is_sealed(value):
            return value
        return loads(self._placed_plain(place, value[SEALED]))

    def unseal_text_at(self, place: Place, text: str) -> str:
        """`unseal_text` of the text stored at ``place``."""
        if not text.startswith(TEXT_PREFIX):
            return text
        return self._placed_plain(place, text[len(TEXT_PREFIX) :]).decode("utf-8")

    def _placed_token(self, place: Place, plain: bytes) -> str:
        last = self._placed.get(place)
        if last is not None and last[0] == plain:
            return last[1]
        token = self._fernet.encrypt(plain).decode("ascii")
        self._place(place, plain, token)
        return token

    def _placed_plain(self, place: Place, token: str) -> bytes:
        last = self._placed.get(place)
        if last is not None and last[1] == token:  # a token is unique: made with a random IV
            return last[0]
        plain = self._decrypt(token)
        self._place(place, plain, token)
        return plain

    def _place(self, place: Place, plain: bytes, token: str) -> None:
        if self._placed_size > _PLACED_BUDGET:  # a long-running server: bounded
            self._placed.clear()
            self._placed_size = 0
        self._placed[place] = (plain, token)
        self._placed_size += len(plain) + len(token) + _PLACED_ENTRY

    def _decrypt(self, token: str) -> bytes:
        from cryptography.fernet import InvalidToken

        try:
            return self._fernet.decrypt(token.encode("ascii"))
        except (InvalidToken, ValueError):
            raise SecretKeyError(
                "a hidden value in the database cannot be decrypted with this key"
            ) from None

    def unseal(self, value: Any) -> Any:
        """The value a sealed one hides; anything else as it is (stored before sealing)."""
        if not is_sealed(value):
            return value
        return loads(self._decrypt(value[SEALED]).decode("utf-8"))

    def seal_text(self, text: str) -> str:
        """A status reason (messages may quote a value derived from a hidden one); an
        empty one as it is (a sealed text is never empty: it has the prefix)."""
        if not text:
            return text
        return TEXT_PREFIX + self._fernet.encrypt(text.encode("utf-8")).decode("ascii")

    def unseal_text(self, text: str) -> str:
        if not text.startswith(TEXT_PREFIX):
            return text
        return self._decrypt(text[len(TEXT_PREFIX) :]).decode()

    def digest(self, text: str, *, sealed: bool) -> str:
        """A keyed digest of a shared document's JSON text (`stoker.store.documents`),
        and of whether its body is sealed: without this store's key, the digest of a
        sealed document confirms no guess of what it hides."""
        data = (b"s" if sealed else b"c") + text.encode("utf-8")
        return hashlib.blake2b(data, key=self._digest_key, digest_size=32).hexdigest()

    def check_value(self) -> str:
        return self._fernet.encrypt(_CHECK_TEXT).decode("ascii")

    def matches(self, check: str) -> bool:
        """Whether ``check`` (a `check_value` stored with the database) was made with this
        key: its Fernet HMAC verifies under this key's signing half."""
        try:
            token = base64.urlsafe_b64decode(check.encode("ascii"))
        except (ValueError, binascii.Error):
            return False
        if len(token) < 1 + 8 + 16 + 32 or token[0] != 0x80:
            return False
        mac = hmac.new(self._signing_key, token[:-32], hashlib.sha256).digest()
        return hmac.compare_digest(mac, token[-32:])


def new_key() -> bytes:
    """A Fernet key: 32 random bytes, url-safe base64."""
    return base64.urlsafe_b64encode(os.urandom(32))


def read_key(source: KeySource) -> bytes | None:
    """The key at ``source``, or None if its file does not exist."""
    if source.file is None:
        return os.environ[KEY_ENV].strip().encode("ascii", "replace")
    try:
        with open(source.file, "rb") as handle:
            return handle.read().strip()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise SecretKeyError(f"cannot read {source.description}: {error.strerror}") from None


def write_key_file(path: Path, key: bytes) -> None:
    """Write ``key`` to ``path`` (0600, its directory 0700 if made here), atomically: a
    reader sees the old key or the new one, never half of one."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(key + b"\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def hides_parameters(template: Mapping[str, Any]) -> bool:
    """Whether a template (as data) declares a hidden parameter (HOT ``hidden``, CFN
    ``NoEcho``). Generous on purpose: sealing one stack too many costs nothing."""
    for section in ("parameters", "Parameters"):
        parameters = template.get(section)
        if not isinstance(parameters, Mapping):
            continue
        for definition in parameters.values():
            if not isinstance(definition, Mapping):
                continue
            for key in ("hidden", "NoEcho"):
                if str(definition.get(key, "")).strip().lower() in _TRUE:
                    return True
    return False


# -- the database side: the check value, first use, rotation ------------------------------


def open_sealer(executor: Executor, sqlite_file: str | None, in_memory: bool) -> Sealer:
    """The sealer for a migrated database: its key checked against the stored check
    value, or (first use) a key made, saved (0600) and its check value stored."""
    name = {"name": CHECK_NAME}
    with executor.reading() as transaction:
        check = transaction.scalar("secret_check", name)
    source = key_source()
    if check is not None:
        return _checked(source, check, sqlite_file)
    # First use: under the database's write lock, so concurrent openers agree on one key.
    with executor.writing() as transaction:
        if executor.dialect_name == "postgresql":
            transaction.rows("advisory_lock", {"key": 1937010545})
        check = transaction.scalar("secret_check", name)
        if check is not None:
            return _checked(source, check, sqlite_file)
        key = read_key(source)
        if key is None:
            key = new_key()
            if source.path is not None and not in_memory:
                key = _create_key_file(source.path, key)
        sealer = Sealer(key)
        values = {"new_name": CHECK_NAME, "new_value": sealer.check_value()}
        transaction.count("insert_secret_check", values)
        return sealer


def _checked(source: KeySource, check: str, sqlite_file: str | None) -> Sealer:
    key = read_key(source)
    sealer = None if key is None else Sealer(key)
    if sealer is not None and sealer.matches(check):
        return sealer
    hint = legacy_key_hint(source, sqlite_file)
    if hint is not None:
        raise SecretKeyError(hint)
    if sealer is None:
        raise SecretKeyError(
            f"this database's hidden values are encrypted, and {source.description} does "
            f"not exist: restore it, or set ${KEY_ENV} to the key they were encrypted with"
        )
    raise SecretKeyError(
        f"the key from {source.description} is not the one this database's hidden "
        f"values were encrypted with: use that key (${KEY_ENV} or the key file)"
    )


def _create_key_file(path: Path, key: bytes) -> bytes:
    """Save a new key unless another process saved one first (then use that one)."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        existing = path.read_bytes().strip()
        if existing:
            return existing
        raise SecretKeyError(f"the key file {path} is empty") from None
    except OSError as error:
        raise SecretKeyError(
            f"cannot create the key file {path}: {error.strerror or error}; set "
            f"${KEY_ENV} or ${KEY_FILE_ENV}"
        ) from None
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(key + b"\n")
        handle.flush()
        os.fsync(handle.fileno())
    return key


def reseal_all(connection: Connection, old: Sealer, new: Sealer) -> int:
    """Re-encrypt every sealed value with ``new`` (in the caller's transaction); returns
    how many values changed. The check value is replaced too. (Through SQLAlchemy: the
    one statement per table and column set is no catalog entry, and rotation is rare.)"""
    from sqlalchemy import select, update

    from stoker.store.models import (
        Document,
        Event,
        RawTemplate,
        Resource,
        Snapshot,
        SoftwareConfig,
        SoftwareDeployment,
        Stack,
        StackTrust,
        StoreMeta,
    )

    count = 0
    columns = (
        (Stack, ("parameters", "prev_parameters", "status_reason")),
        (RawTemplate, ("environment",)),
        (Resource, ("properties", "attributes", "data", "status_reason")),
        (Event, ("reason",)),
        (Snapshot, ("data",)),
        (StackTrust, ("trust_id",)),
        (SoftwareConfig, ("config",)),
        (SoftwareDeployment, ("input_values", "output_values")),
    )
    marks = frozenset({"parameters", "prev_parameters"})  # a stack's mark: always tokens
    for model, names in columns:
        table = model.__table__
        key = table.c.id
        rows = connection.execute(select(key, *(table.c[n] for n in names))).all()
        for row in rows:
            changes: dict[str, Any] = {}
            for name, value in zip(names, row[1:], strict=True):
                if is_sealed(value):
                    seal = new.token if name in marks else new.seal
                    changes[name] = seal(old.unseal(value))
                elif isinstance(value, str) and value.startswith(TEXT_PREFIX):
                    changes[name] = new.seal_text(old.unseal_text(value))
            if changes:
                connection.execute(update(table).where(key == row[0]).values(**changes))
                count += len(changes)
    table = Document.__table__
    documents = connection.execute(select(table.c.id, table.c.digest, table.c.body)).all()
    for id_, digest, body in documents:
        # a document's digest is keyed too: recomputed, or the next writer of an equal
        # document would not find it
        sealed = body.startswith(TEXT_PREFIX)
        plain = old.unseal_text(body)
        changes = {}
        if sealed:
            changes["body"] = new.seal_text(plain)
            count += 1
        if digest is not None:
            changes["digest"] = new.digest(plain, sealed=sealed)
        if changes:
            connection.execute(update(table).where(table.c.id == id_).values(**changes))
    connection.execute(
        update(StoreMeta).where(StoreMeta.name == CHECK_NAME).values(value=new.check_value())
    )
    return count
