"""A template's sections as written: what the ONAP rules read instead of the parse.

ONAP's rules apply to a file Heat rejects too (a parameter without a type, a resource
whose properties are not a mapping), so they read the loaded document, whose mappings
carry positions, rather than the `Template` Heat's parse makes of it. Every such read
checks the shape it finds: a section or definition of the wrong type reads as empty.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

from stoker.diagnostics import Path, Span
from stoker.lint.context import FileContext
from stoker.patterns import LazyPattern
from stoker.template.nodes import key_span, value_span

#: what ONAP's names (parameters, resource ids, vm-types, network roles) may hold
NAME_CHARACTERS = LazyPattern(r"^[A-Za-z0-9_]+$")
#: ``int`` as a word of a name, which vm-types and network roles may not have
INT_WORD = LazyPattern(r"(^|_)int(_|$)")


def section(data: Any, name: str) -> dict[Any, Any]:
    """The mapping under ``name`` of a document (``{}`` when absent or not a mapping)."""
    found = data.get(name) if isinstance(data, dict) else None
    return found if isinstance(found, dict) else {}


def resources_of(
    ctx: FileContext, *kinds: str
) -> Iterator[tuple[str, dict[Any, Any], Span | None]]:
    """(name, definition, where its name is) of each resource whose type is one of
    ``kinds``, in the order written."""
    data = ctx.data  # inline, not section(): asked by every rule of every template
    resources = data.get("resources") if isinstance(data, dict) else None
    for name, definition in resources.items() if isinstance(resources, dict) else ():
        if isinstance(definition, dict) and definition.get("type") in kinds:
            yield str(name), definition, key_span(resources, name)


class Resource(Protocol):
    """A resource as written (a server, a port): its properties and its path."""

    @property
    def properties(self) -> dict[Any, Any]: ...
    @property
    def path(self) -> Path: ...


def property_at(resource: Resource, prop: str) -> tuple[Span | None, Path]:
    """Where a finding about a resource's property points: its value, by its path."""
    return value_span(resource.properties, prop), (*resource.path, "properties", prop)


def parameter_read(value: Any) -> str | None:
    """The parameter a ``{get_param: NAME}`` or ``{get_param: [NAME, ...]}`` reads."""
    if isinstance(value, dict) and len(value) == 1 and "get_param" in value:
        argument = value["get_param"]
        if isinstance(argument, str):
            return argument
        if isinstance(argument, list) and argument and isinstance(argument[0], str):
            return str(argument[0])
    return None


def declared(ctx: FileContext, name: str) -> dict[Any, Any] | None:
    """The declaration of parameter ``name`` as written, when it is a mapping."""
    data = ctx.data  # inline, not section(): every rule on every parameter asks
    parameters = data.get("parameters") if isinstance(data, dict) else None
    found = parameters.get(name) if isinstance(parameters, dict) else None
    return found if isinstance(found, dict) else None


def declared_type(ctx: FileContext, name: str) -> Any:
    """The type parameter ``name`` is declared with (None when it is not declared)."""
    declaration = declared(ctx, name)
    return declaration.get("type") if declaration is not None else None
