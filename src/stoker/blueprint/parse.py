"""Reading a blueprint document (map or list syntax, YAML or JSON) into the located model.

The seed's two syntaxes differ only in where ids and types are written: in map syntax a
component's id is its key and a requirement's type is its key; in list syntax both are
explicit (``id:``, ``type:``), and a one-key item ``{minRam: 4gb}`` names the type by its
key. Both end in the same `Blueprint`. A requirement's or attribute's value that is itself
a component (``run: {type: rpm, ...}``, a tier's ``nodespec``) becomes an in-line
component with an id made from its owner's, and the requirement points at it.

Nothing here needs the library: an abbreviated value (``minRam: 4gb``) and a requirement
without a type stay as written until `stoker.blueprint.infer` knows the types.
"""

from __future__ import annotations

import re
from typing import Any

from stoker.blueprint import codes
from stoker.blueprint.model import FULFILLMENT, Blueprint, Component, Requirement, fresh_id
from stoker.diagnostics import Diagnostic, Path, Span
from stoker.template.nodes import key_span, plain, span_of, value_span

TOP_KEYS = ("name", "description", "components", "requires")
COMPONENT_KEYS = ("id", "type", "requires", "content")
#: a mapping value with one of these keys is a component written in line
COMPONENT_MARKERS = ("type", "content", "requires")


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "nothing"
    return f"{type(value).__name__} {value!r}"


def _slug(text: str) -> str:
    """An id made from a name: ``hello.war`` → ``hello_war``, ``com.example.Foo`` → ``foo``."""
    slug = re.sub(r"[^A-Za-z0-9_]+", "_", text).strip("_").lower()
    return slug or "component"


class _Reader:
    def __init__(self, file: str) -> None:
        self.file = file
        self.found: list[Diagnostic] = []
        self.components: dict[str, Component] = {}
        self.taken: set[str] = set()

    def error(self, message: str, path: Path, span: Span | None) -> None:
        self.found.append(
            Diagnostic(codes.BLUEPRINT_SHAPE, message, path, span or Span(self.file, 1, 1))
        )

    def fresh_id(self, wanted: str) -> str:
        candidate = fresh_id(wanted, self.taken)
        self.taken.add(candidate)
        return candidate

    # ------------------------------------------------------------------ components
    def components_of(self, value: Any, span: Span | None) -> None:
        path: Path = ("components",)
        if isinstance(value, dict):
            self.taken.update(str(key) for key in value)
            for key, body in value.items():
                where = value_span(value, key) or key_span(value, key) or span
                if body is None:
                    body = {}
                if not isinstance(body, dict):
                    self.error(
                        f'component "{key}" must be a mapping (got {_kind(body)})',
                        (*path, str(key)),
                        where,
                    )
                    continue
                self.component(str(key), True, body, (*path, str(key)), key_span(value, key))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                name = item.get("id") if isinstance(item, dict) else None
                if not isinstance(name, str):
                    continue
                if name in self.taken:
                    self.error(
                        f'two components have the id "{name}"',
                        (*path, index, "id"),
                        value_span(item, "id") or value_span(value, index) or span,
                    )
                self.taken.add(str(name))
            for index, body in enumerate(value):
                where = value_span(value, index) or span
                if not isinstance(body, dict):
                    self.error(
                        f"component {index + 1} must be a mapping (got {_kind(body)})",
                        (*path, index),
                        where,
                    )
                    continue
                ident = body.get("id")
                if ident is not None and not isinstance(ident, str):
                    self.error(
                        f"component {index + 1}: id must be a string (got {_kind(ident)})",
                        (*path, index, "id"),
                        value_span(body, "id") or where,
                    )
                    ident = None
                if ident is None:
                    ident = self.fresh_id(self.made_up_id(body, index))
                self.component(str(ident), "id" in body, body, (*path, index), where)
        else:
            self.error(
                f"components must be a list of components or a mapping of components by id "
                f"(got {_kind(value)})",
                path,
                span,
            )

    @staticmethod
    def made_up_id(body: dict[Any, Any], index: int) -> str:
        content = body.get("content")
        if isinstance(content, str) and content:
            return _slug(content.rstrip("/").rsplit("/", 1)[-1])
        kind = body.get("type")
        if isinstance(kind, str) and kind:
            return _slug(re.split(r"[.:]", kind)[-1])
        return f"component_{index + 1}"

    def component(
        self,
        ident: str,
        id_given: bool,
        body: dict[Any, Any],
        path: Path,
        span: Span | None,
        origin: str = "blueprint",
    ) -> Component:
        kind = body.get("type")
        if kind is not None and not isinstance(kind, str):
            self.error(
                f'component "{ident}": type must be a string (got {_kind(kind)})',
                (*path, "type"),
                value_span(body, "type") or span,
            )
            kind = None
        component = Component(
            id=ident,
            type=str(kind) if kind is not None else None,
            type_from="explicit" if kind is not None else "",
            id_given=id_given,
            origin=origin,
            path=path,
            span=span or span_of(body),
        )
        self.components[ident] = component
        if "content" in body:
            component.content = plain(body["content"])
        for key, value in body.items():
            if key in COMPONENT_KEYS:
                continue
            if isinstance(value, dict) and any(marker in value for marker in COMPONENT_MARKERS):
                inner = self.component(
                    self.fresh_id(f"{ident}_{_slug(str(key))}"),
                    False,
                    value,
                    (*path, str(key)),
                    value_span(body, key),
                    origin="in-line",
                )
                component.attributes[str(key)] = inner.id
            else:
                component.attributes[str(key)] = plain(value)
        if "requires" in body:
            component.requires = self.requirements(
                body["requires"], ident, (*path, "requires"), value_span(body, "requires") or span
            )
        return component

    # ------------------------------------------------------------------ requirements
    def requirements(
        self, value: Any, owner: str | None, path: Path, span: Span | None
    ) -> list[Requirement]:
        found: list[Requirement] = []
        if value is None:
            return found
        if isinstance(value, dict):
            for key, item in value.items():
                where = key_span(value, key) or span
                found.append(
                    self.requirement_value(str(key), "key", item, owner, (*path, str(key)), where)
                )
        elif isinstance(value, list):
            for index, item in enumerate(value):
                where = value_span(value, index) or span
                found.append(self.list_item(item, owner, (*path, index), where))
        else:
            found.append(
                Requirement(
                    None,
                    "",
                    value=plain(value),
                    abbreviated=True,
                    owner=owner,
                    path=path,
                    span=span,
                )
            )
        return found

    def list_item(self, item: Any, owner: str | None, path: Path, span: Span | None) -> Requirement:
        if isinstance(item, dict) and "type" in item:
            kind = item["type"]
            if not isinstance(kind, str):
                self.error(
                    f"a requirement's type must be a string (got {_kind(kind)})",
                    (*path, "type"),
                    value_span(item, "type") or span,
                )
                kind = None
            rest = {k: v for k, v in item.items() if k != "type"}
            requirement = Requirement(kind, "explicit", owner=owner, path=path, span=span)
            self.attributes_into(requirement, rest, item)
            return requirement
        if isinstance(item, dict) and len(item) == 1:
            key, value = next(iter(item.items()))
            return self.requirement_value(
                str(key), "list key", value, owner, (*path, str(key)), key_span(item, key) or span
            )
        if isinstance(item, dict):
            requirement = Requirement(None, "", owner=owner, path=path, span=span)
            self.attributes_into(requirement, item, item)
            return requirement
        return Requirement(
            None, "", value=plain(item), abbreviated=True, owner=owner, path=path, span=span
        )

    def requirement_value(
        self,
        kind: str,
        type_from: str,
        value: Any,
        owner: str | None,
        path: Path,
        span: Span | None,
    ) -> Requirement:
        requirement = Requirement(kind, type_from, owner=owner, path=path, span=span)
        if isinstance(value, dict) and any(marker in value for marker in COMPONENT_MARKERS):
            base = f"{owner}_{_slug(kind)}" if owner else _slug(kind)
            inner = self.component(
                self.fresh_id(base), False, value, path, span_of(value) or span, "in-line"
            )
            requirement.fulfillment = [inner.id]
            requirement.fulfillment_spans = [inner.span]
        elif isinstance(value, dict):
            self.attributes_into(requirement, value, value)
        else:
            requirement.value = plain(value)
            requirement.abbreviated = True
        return requirement

    def attributes_into(
        self, requirement: Requirement, values: dict[Any, Any], node: dict[Any, Any]
    ) -> None:
        for key, value in values.items():
            if key == FULFILLMENT:
                self.fulfillment_into(requirement, value, value_span(node, key) or requirement.span)
            else:
                requirement.attributes[str(key)] = plain(value)

    def fulfillment_into(self, requirement: Requirement, value: Any, span: Span | None) -> None:
        items = value if isinstance(value, list) else [value]
        for index, item in enumerate(items):
            where = (value_span(value, index) if isinstance(value, list) else None) or span
            if not isinstance(item, str) or not item:
                self.error(
                    f'{requirement.label}: fulfillment must name a component ("id:other" or '
                    f'"other") or a list of them (got {_kind(item)})',
                    (*requirement.path, FULFILLMENT),
                    where,
                )
                continue
            requirement.fulfillment.append(str(item).removeprefix("id:"))
            requirement.fulfillment_spans.append(where)


def parse_blueprint(data: Any, file: str) -> tuple[Blueprint | None, list[Diagnostic]]:
    """The model of a loaded blueprint document, and every shape error found."""
    reader = _Reader(file)
    if not isinstance(data, dict):
        reader.error(f"a blueprint must be a mapping (got {_kind(data)})", (), span_of(data))
        return None, reader.found
    for key in data:
        if key not in TOP_KEYS:
            reader.error(
                f'unknown blueprint key "{key}"; a blueprint has {", ".join(TOP_KEYS)}',
                (str(key),),
                key_span(data, key),
            )
    name = data.get("name")
    if name is not None and not isinstance(name, str):
        reader.error(
            f"name must be a string (got {_kind(name)})", ("name",), value_span(data, "name")
        )
        name = None
    if "components" not in data:
        reader.error("a blueprint needs components", (), span_of(data))
        return None, reader.found
    reader.components_of(data["components"], value_span(data, "components"))
    requires = reader.requirements(
        data.get("requires"), None, ("requires",), value_span(data, "requires")
    )
    blueprint = Blueprint(
        str(name) if name is not None else None, reader.components, requires, file
    )
    return blueprint, reader.found
