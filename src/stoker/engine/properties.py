"""A resource's properties as its handler gets them: resolved over the recorded state,
checked against its type's schema and its type's own checks, hidden values withheld.

Used by create, by adopt (which stores them as a create would), by update (the new
properties of a resource it changes) and by planning (what an update would change).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from stoker.definition import (
    sensitive_properties,
    withheld_failure,
    withheld_messages,
    withhold,
)
from stoker.errors import FunctionError, PropertyError
from stoker.functions.base import OMIT, resolve
from stoker.resources import ResourcePlugin, validate_properties

if TYPE_CHECKING:
    from stoker.definition import StackDefinition
    from stoker.engine.operation import Operation
    from stoker.engine.state import ResourceRecord


def resolve_properties(
    operation: Operation,
    name: str,
    plugin: ResourcePlugin,
    records: Mapping[str, ResourceRecord] | None = None,
    definition: StackDefinition | None = None,
) -> dict[str, Any]:
    """The properties of resource ``name``, resolved and validated (`PropertyError` with
    every problem otherwise). Functions read the operation's records, or ``records`` when
    given (an update's preview reads every resource as not created yet, as Heat's does).
    The resource is the operation's definition's, or ``definition``'s when given (an
    adopt walks a new stack's records with no definition of its own)."""
    definition = definition or operation.definition
    assert definition is not None
    resource = definition.template.resources[name]
    values: dict[str, Any] = {}
    properties = resource.properties if isinstance(resource.properties, dict) else {}
    if not properties and plugin.traits.dynamic_properties:
        # No property, and a type that takes any (OS::Heat::None, as each of 10,000
        # may be): the schema has nothing to check, no value can be hidden, and
        # only the type's own checks remain.
        problems = plugin.validate(values)
        if problems:
            raise PropertyError("; ".join(problems))
        return values
    if properties:
        read = operation.records if records is None else records
        context = operation.engine.runtime(definition, read)
    for key, tree in properties.items():
        try:
            value = resolve(tree, context)
        except FunctionError as error:  # rebuilt without a hidden value it read
            template, taint = definition.template, definition.taint
            raise withheld_failure(error, tree, template, taint) from None
        if value is not OMIT:
            values[str(key)] = value
    path = (*resource.path, definition.template.names.properties)
    validated, found = validate_properties(
        plugin.properties_schema,
        values,
        path=path,
        type_name=plugin.type_name,
        dynamic=plugin.traits.dynamic_properties,
    )
    sensitive = sensitive_properties(definition.template, name, definition.taint)
    problems = [d.render() for d in withhold(found, path, sensitive) if d.is_error]
    if not problems:
        problems = withheld_messages(plugin.validate(validated), sensitive)
    if problems:
        raise PropertyError("; ".join(problems))
    return validated
