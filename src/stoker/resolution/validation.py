"""What ``stoker template validate`` checks after the template itself: the tree below it,
and the answer it shows.

One function so that the CLI and ONAP's R-92635 ("Heat would reject it") give the same
answer for the same template and environments: provider templates and the children of
groups, chains and inline stacks are validated as far as their inputs are known.
`validation_summary` is here rather than with the stored stacks' views
(`stoker.engine.views`) so that validating imports nothing of the store.
"""

from __future__ import annotations

import os
from typing import Any

from stoker.definition import StackDefinition
from stoker.diagnostics import Diagnostic
from stoker.parameters import display_value
from stoker.resolution.providers import ProviderCache
from stoker.resolution.tree import TreeCheck
from stoker.resources import ResourceTypeRegistry, default_registry

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
    """The shape of Heat's ``POST /validate`` answer (heat-semantics §8)."""
    template = definition.template
    parameters: dict[str, Any] = {}
    for name, parameter in template.parameters.items():
        summary = parameter.summary()
        if name in definition.parameters:
            summary["Value"] = display_value(parameter, definition.parameters[name])
        parameters[name] = summary
    result: dict[str, Any] = {"Description": template.description, "Parameters": parameters}
    if template.parameter_groups:
        result["ParameterGroups"] = [
            {
                key: value
                for key, value in (
                    ("label", group.label),
                    ("description", group.description),
                    ("parameters", list(group.parameters)),
                )
                if value is not None
            }
            for group in template.parameter_groups
        ]
    return result
