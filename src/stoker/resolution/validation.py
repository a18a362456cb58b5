"""What ``stoker template validate`` checks after the template itself: the tree below it,
and the answer it shows.

One function so that the CLI and ONAP's R-92635 ("Heat would reject it") give the same
answer for the same template and environments: provider templates and the children of
groups, chains and inline stacks are validated as far as their inputs are known.
`validation_summary` is here rather than with the stored stacks' views
(`stoker.engine.stack_views`) so that validating imports nothing of the store.
"""

from __future__ import annotations

import os
from typing import Any

from stoker.definition import StackDefinition
from stoker.diagnostics import Diagnostic
from stoker.environment.registry_section import is_template_name
from stoker.parameters import MASK
from stoker.resolution.providers import ProviderCache
from stoker.resolution.tree import TreeCheck
from stoker.resources import ResourceTypeRegistry, default_registry
from stoker.template.nodes import plain

DEFAULT_MAX_NESTED_DEPTH = 5


def validate_tree(
    definition: StackDefinition,
    template_path: str,
    max_depth: int = DEFAULT_MAX_NESTED_DEPTH,
    cache: ProviderCache | None = None,
    registry: ResourceTypeRegistry | None = None,
) -> tuple[list[Diagnostic], TreeCheck]:
    """The findings of validating everything below ``definition`` (read from
    ``template_path``), and the check itself (its ``nested`` definitions). A caller
    validating many templates passes one ``cache`` and ``registry`` for all."""
    tree = TreeCheck(
        registry or default_registry(),
        max_depth,
        require_types=False,
        cache=cache if cache is not None else ProviderCache(),
    )
    top = os.path.abspath(template_path)
    found = tree.check(definition, os.path.dirname(top), (top,))
    return found + tree.refused, tree


def validation_summary(definition: StackDefinition) -> dict[str, Any]:
    """The shape of Heat's ``POST /validate`` answer (heat-semantics §8), as Heat's
    ``format_validate_parameter`` writes each parameter: ``Label`` defaults to the
    parameter's name; ``Default`` is the ``parameter_defaults`` value when the environment
    gives one; ``Value`` is the value the request (or the parent's facade) gave, as given,
    and only when it is set (Heat tests ``if param.user_value``). Hidden ones masked."""
    template = definition.template
    environment = definition.environment
    given = plain(environment.parameters) if environment is not None else {}
    defaults = plain(environment.parameter_defaults) if environment is not None else {}
    parameters: dict[str, Any] = {}
    for name, parameter in template.parameters.items():
        summary = parameter.summary()
        if summary.get("Label") is None:
            summary["Label"] = name
        if name in defaults and defaults[name] is not None:
            summary["Default"] = MASK if parameter.hidden else defaults[name]
        value = given.get(name) if isinstance(given, dict) else None
        if value:  # Heat's `if param.user_value`: an empty or zero value is not shown
            summary["Value"] = MASK if parameter.hidden else value
        parameters[name] = summary
    result: dict[str, Any] = {"Description": template.description, "Parameters": parameters}
    groups = parameter_groups(definition)
    if groups:
        result["ParameterGroups"] = groups
    return result


def parameter_groups(definition: StackDefinition) -> list[dict[str, Any]]:
    """The template's ``parameter_groups`` as Heat lists them (keys it was given only)."""
    return [
        {
            key: value
            for key, value in (
                ("label", group.label),
                ("description", group.description),
                ("parameters", list(group.parameters)),
            )
            if value is not None
        }
        for group in definition.template.parameter_groups
    ]


def nested_parameters(
    definition: StackDefinition, tree: TreeCheck, *, locations: bool = False
) -> dict[str, Any]:
    """Heat's ``NestedParameters`` (``show_nested``): per resource backed by a nested
    stack, the type the template names, the nested template's description, parameters
    (with the values the facade gives them, where known) and parameter groups, and its own
    ``NestedParameters`` when it has any, as Heat's ``Stack.get_nested_parameters``.
    ``locations`` adds stoker's ``Template``: the template file the type resolved to (which
    one a ``requires`` choice picked), for ``stoker template validate``."""
    result: dict[str, Any] = {}
    definitions: dict[tuple[str, ...], StackDefinition] = {(): definition}
    for names, location, child in tree.nested:
        definitions[names] = child
        parent = definitions.get(names[:-1])
        level = result
        for name in names[:-1]:
            level = level.setdefault(name, {}).setdefault("NestedParameters", {})
        entry = level.setdefault(names[-1], {})
        resources = parent.template.resources if parent is not None else {}
        declared = resources.get(names[-1])
        entry["Type"] = declared.type if declared is not None else ""
        if locations:
            entry["Template"] = location
        entry.update(validation_summary(child))
    return result


def echoed_environment(definition: StackDefinition) -> dict[str, Any]:
    """The ``Environment`` of Heat's ``POST /validate`` answer (its
    ``user_env_as_dict``): the four sections a user may write, without stoker's own
    (``encrypted_param_names``, ``requires``); a resource whose type names a template file
    (``.yaml``/``.template``) registers that name to itself, as Heat's registry does when
    it meets one."""
    data = definition.environment.to_data()
    registry = dict(data.get("resource_registry") or {})
    for resource in definition.template.resources.values():
        kind = resource.type
        if isinstance(kind, str) and is_template_name(kind):
            registry.setdefault(kind, kind)
    registry.setdefault("resources", {})
    return {
        "parameters": data.get("parameters", {}),
        "parameter_defaults": data.get("parameter_defaults", {}),
        "resource_registry": registry,
        "event_sinks": data.get("event_sinks", []),
    }
