"""Resolution: from a resource's type to what implements it, a plugin or a provider
template, and the checks of a stack tree this makes possible before anything runs.

One package for the engine (which resolves the types it runs), ``template validate``
(which follows provider templates and nested stacks as far as their inputs are known) and
the linter (ONAP's R-92635 is that same validation; the linter's own view of each
resource's type, `stoker.lint.resolution`, reads provider templates with the same loader).
The environment holds the resource registry and walks it
(`stoker.environment.ResourceRegistry.resolve`); this package decides what the walk ends
at.

- `choice`: the template of a registry list that the environment's ``requires`` selects
  (`choose_provider`), and the walk followed by that choice (`resolve_provider`);
- `types`: each resource's plugin (`resolve_types`), and why a type cannot run;
- `providers`: the one provider-template loader (`ProviderTemplates`: each read and parsed
  once per run) and the engine's runnable form of a provider (`ProviderCache`);
- `tree`: `TreeCheck`, the recursive check of a stack and the templates below it, with
  `attributes` (the ``get_attr`` names against each target's declared attributes),
  `resource_checks` (each resource's properties and policies against its type) and
  `subtrees` (an engine's provider subtree checks kept by their exact inputs,
  `SubtreeMemo`);
- `validation`: what ``stoker template validate`` and ``POST /validate`` answer
  (`validate_tree`, `validation_summary`, `nested_parameters`, `echoed_environment`).

The names below are imported from their modules on first use: the linter needs the
loader for every run and the tree check only for ONAP's R-92635.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stoker.lazy import names_from

if TYPE_CHECKING:
    from stoker.resolution.choice import choose_provider, resolve_provider
    from stoker.resolution.providers import ProviderCache, ProviderTemplates, Reader
    from stoker.resolution.subtrees import SubtreeMemo
    from stoker.resolution.tree import TreeCheck
    from stoker.resolution.types import (
        Resolution,
        cloud_type_names,
        resolve_types,
        type_not_runnable,
    )
    from stoker.resolution.validation import (
        echoed_environment,
        nested_parameters,
        validate_tree,
        validation_summary,
    )

_WHERE = {
    "ProviderCache": "stoker.resolution.providers",
    "ProviderTemplates": "stoker.resolution.providers",
    "Reader": "stoker.resolution.providers",
    "Resolution": "stoker.resolution.types",
    "SubtreeMemo": "stoker.resolution.subtrees",
    "TreeCheck": "stoker.resolution.tree",
    "choose_provider": "stoker.resolution.choice",
    "cloud_type_names": "stoker.resolution.types",
    "resolve_provider": "stoker.resolution.choice",
    "resolve_types": "stoker.resolution.types",
    "type_not_runnable": "stoker.resolution.types",
    "echoed_environment": "stoker.resolution.validation",
    "nested_parameters": "stoker.resolution.validation",
    "validate_tree": "stoker.resolution.validation",
    "validation_summary": "stoker.resolution.validation",
}

__all__ = [
    "ProviderCache",
    "ProviderTemplates",
    "Reader",
    "Resolution",
    "SubtreeMemo",
    "TreeCheck",
    "choose_provider",
    "cloud_type_names",
    "echoed_environment",
    "nested_parameters",
    "resolve_provider",
    "resolve_types",
    "type_not_runnable",
    "validate_tree",
    "validation_summary",
]

__getattr__ = names_from(__name__, _WHERE)
