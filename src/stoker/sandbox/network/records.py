"""What every Neutron object shares: its row in the sandbox store, who may see it, its
standard attributes (timestamps, revision, tags, description) and its not-found error."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from stoker.sandbox.http_errors import BadRequest, NotFound, OverQuota
from stoker.sandbox.service import Hub, iso_time, new_id
from stoker.sandbox.store import Document, SandboxStore, copy_document

#: attributes a client may not set on any object (Neutron answers 400 for them)
READ_ONLY = frozenset({"id", "created_at", "updated_at", "revision_number", "status"})


class Records:
    """The objects of one kind (``network.port``...), scoped per project as Neutron scopes
    them: a project sees its own, and ``visible_extra`` says which others it sees too (the
    shared and external networks)."""

    def __init__(
        self,
        hub: Hub,
        kind: str,
        label: str,
        *,
        missing: Callable[[str], str] | None = None,
        visible_extra: Callable[[Document], bool] | None = None,
    ) -> None:
        self.hub = hub
        self.kind = f"network.{kind}"
        self.label = label
        self._missing = missing or (lambda id: f"{label} {id} could not be found.")
        self._extra = visible_extra

    @property
    def store(self) -> SandboxStore:
        return self.hub.store

    def visible(self, document: Mapping[str, Any], project: str | None) -> bool:
        """Whether ``project`` sees it (None: the sandbox itself, which sees everything)."""
        if project is None or document.get("project_id") == project:
            return True
        return self._extra is not None and self._extra(dict(document))

    def find(self, id: str, project: str | None) -> Document | None:
        document = self.store.get(self.kind, str(id))
        if document is None or not self.visible(document, project):
            return None
        return document

    def get(self, id: str, project: str | None) -> Document:
        document = self.find(id, project)
        if document is None:
            kind = "".join(word[0].upper() + word[1:] for word in self.label.split())
            raise NotFound(self._missing(str(id)), kind=f"{kind}NotFound")
        return document

    def all(self, project: str | None) -> list[Document]:
        return [copy_document(d) for d in self.scan(project)]

    def scan(self, project: str | None) -> list[Mapping[str, Any]]:
        """`all`, but the store's own documents (`SandboxStore.scan`): for a listing that
        filters many and copies only what it shows. Never change one."""
        return [d for d in self.store.scan(self.kind) if self.visible(d, project)]

    def where(self, test: Callable[[Mapping[str, Any]], bool]) -> list[Document]:
        """Every project's objects that pass ``test`` (the backend's own integrity checks
        look across projects, as Neutron's database constraints do)."""
        return self.store.list(self.kind, where=test)

    def insert(self, document: Document) -> Document:
        self._check_quota(document.get("project_id") or "")
        self.store.insert(self.kind, document["id"], document, document.get("project_id"))
        return document

    def _check_quota(self, project: str) -> None:
        """The fault plan's quota for this kind (``quotas: {network: {port: 5}}``), counted
        per project as Neutron counts it."""
        faults = self.hub.config.faults
        resource = self.kind.partition(".")[2]
        limit = faults.quota("network", resource) if faults is not None else None
        if limit is None or not project:
            return
        if self.store.count(self.kind, project_id=project) >= limit:
            raise OverQuota(
                f"Quota exceeded for resources: ['{resource}'].", kind="OverQuota", status=409
            )

    def save(self, document: Document) -> Document:
        document["revision_number"] = int(document.get("revision_number", 0)) + 1
        document["updated_at"] = iso_time(self.hub.now())
        self.store.put(self.kind, document["id"], document)
        return document

    def delete(self, id: str) -> None:
        self.store.delete(self.kind, id)

    def new(self, project: str, body: Mapping[str, Any], **attributes: Any) -> Document:
        """A new object's standard attributes, then ``attributes``."""
        now = iso_time(self.hub.now())
        document: Document = {
            "id": new_id(),
            "project_id": project,
            "tenant_id": project,
            "description": str(body.get("description") or ""),
            "tags": _tags(body.get("tags")),
            "created_at": now,
            "updated_at": now,
            "revision_number": 0,
        }
        document.update(attributes)
        return document


def reject_read_only(body: Mapping[str, Any], method: str = "POST") -> None:
    """Neutron refuses a body that sets an attribute clients cannot set."""
    for name in sorted(READ_ONLY - {"id"} if method == "POST" else READ_ONLY):
        if name in body:
            raise BadRequest(f"Attribute '{name}' not allowed in {method}", kind="HTTPBadRequest")


def require(body: Mapping[str, Any], name: str) -> None:
    """Neutron's refusal of a create body without a required attribute."""
    if name not in body:
        raise BadRequest(
            f"Failed to parse request. Required attribute '{name}' not specified",
            kind="HTTPBadRequest",
        )


def boolean(body: Mapping[str, Any], name: str, default: bool) -> bool:
    """A boolean attribute as Neutron's validators accept one (``true``/``"True"``/1)."""
    value = body.get(name, default)
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "1", "yes", "on"):
        return True
    if text in ("false", "0", "no", "off"):
        return False
    raise invalid(name, f"'{value}' cannot be converted to boolean")


def _tags(value: Any) -> list[str]:
    """Tags given at creation (the ``tag-creation`` extension)."""
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise invalid("tags", f"'{value}' is not a list")
    return list(dict.fromkeys(value))


def invalid(name: str, reason: str) -> BadRequest:
    """Neutron's refusal of an attribute its validators reject."""
    return BadRequest(f"Invalid input for {name}. Reason: {reason}.", kind="HTTPBadRequest")


def integer(value: Any, name: str) -> int:
    """An integer attribute (``mtu``, ``ip_version``...), as Neutron's validators take one."""
    if isinstance(value, bool):
        raise invalid(name, f"'{value}' is not a valid integer")
    try:
        return int(value)
    except (TypeError, ValueError):
        raise invalid(name, f"'{value}' is not a valid integer") from None


def as_list(value: Any, name: str) -> list[Any]:
    """A list attribute; None is the empty list."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise invalid(name, f"'{value}' is not a list")
    return value


def as_mapping(value: Any, name: str) -> dict[str, Any]:
    """A dictionary attribute; None is the empty one."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise invalid(name, f"'{value}' is not a dictionary")
    return dict(value)
