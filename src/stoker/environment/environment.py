"""The Environment value: what one environment file (or a merge of several) says.

Parameter values stay `MappingNode`s so each keeps the position it was written at; a
parameter error found much later can then say "value from env.yaml:3:5".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NamedTuple

from stoker.diagnostics import Span
from stoker.environment.registry import ResourceRegistry
from stoker.environment.resolved import ResolvedType
from stoker.template.nodes import MappingNode, plain, value_span


class Section(StrEnum):
    """The sections Heat accepts in an environment, in the order Heat lists them."""

    PARAMETERS = "parameters"
    PARAMETER_DEFAULTS = "parameter_defaults"
    ENCRYPTED_PARAM_NAMES = "encrypted_param_names"
    EVENT_SINKS = "event_sinks"
    PARAMETER_MERGE_STRATEGIES = "parameter_merge_strategies"
    RESOURCE_REGISTRY = "resource_registry"


# Heat's documentation calls the list of names to encrypt this, but Heat rejects it.
ENCRYPTED_PARAMETERS_ALIAS = "encrypted_parameters"

# The capabilities spec's environment section (never in Heat, which rejects it): which
# capabilities the templates chosen from resource_registry lists must have.
REQUIRES = "requires"


class MergeStrategy(StrEnum):
    """How a parameter given by two environment files is combined."""

    OVERWRITE = "overwrite"
    MERGE = "merge"
    DEEP_MERGE = "deep_merge"


DEFAULT_STRATEGY_KEY = "default"
ZAQAR_QUEUE = "zaqar-queue"


class EventSink(NamedTuple):
    """Where Heat copies the stack's events: a Zaqar queue (the only kind Heat has)."""

    type: str
    target: str
    ttl: int | None = None
    span: Span | None = None

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.type, "target": self.target}
        if self.ttl is not None:
            data["ttl"] = self.ttl
        return data


@dataclass(slots=True)
class Environment:
    """Parameters, defaults, registry and the rest of one (possibly merged) environment.

    ``parameters`` apply to the top template only; ``parameter_defaults`` to every template
    in the tree that declares the name. ``parameter_merge_strategies`` holds, for a single
    file, the section as written (``default`` included) and, for a merged environment, the
    strategy each merged parameter ended up with. ``files`` names the environment files this
    came from, in order.

    ``requires`` maps a capability name to the values acceptable for it (a list: any one
    matches); it chooses among the templates a ``resource_registry`` list offers, in this
    stack and in every nested one. It keeps the position of each value. Compared by
    value.
    """

    parameters: MappingNode = field(default_factory=MappingNode)
    parameter_defaults: MappingNode = field(default_factory=MappingNode)
    resource_registry: ResourceRegistry = field(default_factory=ResourceRegistry)
    event_sinks: list[EventSink] = field(default_factory=list)
    parameter_merge_strategies: MappingNode = field(default_factory=MappingNode)
    encrypted_param_names: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    requires: MappingNode = field(default_factory=MappingNode)

    def default_span(self, name: str) -> Span | None:
        """Where the value ``parameter_defaults`` gives ``name`` was written, if known."""
        if name not in self.parameter_defaults:
            return None
        return value_span(self.parameter_defaults, name)

    def to_data(self, *, absolute_paths: bool = False) -> dict[str, Any]:
        """Plain data in Heat's stored-environment shape (``GET .../environment``).

        ``absolute_paths``: write provider template paths so they resolve from anywhere
        (for storing with a stack; see RegistryBlock.to_data).

        ``requires`` appears only when set, so environments without it keep Heat's shape
        and ones with it read back the same (a stored stack chooses the same templates).
        """
        data: dict[str, Any] = {
            Section.PARAMETERS.value: plain(self.parameters),
            Section.PARAMETER_DEFAULTS.value: plain(self.parameter_defaults),
            Section.RESOURCE_REGISTRY.value: self.resource_registry.to_data(
                absolute_paths=absolute_paths
            ),
            Section.EVENT_SINKS.value: [sink.to_data() for sink in self.event_sinks],
            Section.ENCRYPTED_PARAM_NAMES.value: list(self.encrypted_param_names),
        }
        if self.requires:
            data[REQUIRES] = plain(self.requires)
        return data


def node_from(values: Mapping[str, Any] | None) -> MappingNode:
    """A `MappingNode` copy of ``values``, keeping spans when it already is one (each
    value's as `value_span` finds it). Every nested stack's environment is such a copy of
    its parent's ``parameter_defaults`` (TripleO's has hundreds): one pass, no call per key."""
    node = MappingNode(getattr(values, "span", None))
    if not values:
        return node
    node.update(values)
    if isinstance(values, MappingNode):
        keys, own = values.key_spans, values.value_spans
        node.key_spans = {key: keys[key] for key in values if key in keys}
        spans = node.value_spans
        for key, value in values.items():
            span = getattr(value, "span", None) or own.get(key) or keys.get(key)
            if span is not None:
                spans[key] = span
    return node


def child_environment(
    parent: Environment,
    resource_name: str,
    parameters: Mapping[str, Any] | None = None,
    *,
    expanded: ResolvedType | None = None,
) -> Environment:
    """The environment of the nested stack that resource ``resource_name`` creates.

    Heat builds it from the parent's user environment: the registry (minus the mapping that
    made this resource a template, and with ``resources:`` narrowed to this resource's
    nested blocks), ``parameter_defaults`` and ``event_sinks``; ``parameters`` become the
    values the resource passes down as properties. ``requires`` (stoker's) reaches every
    nested stack too: a choice like ``deployment: puppet`` is made once for the whole tree.
    """
    return environment_below(
        parent, parameters, parent.resource_registry.for_child(resource_name, expanded)
    )


#: the fields of a parent's environment that a child's copies (`environment_below`)
INHERITED = ("parameter_defaults", "event_sinks", "files", "requires")


def environment_below(
    parent: Environment, parameters: Mapping[str, Any] | None, registry: ResourceRegistry
) -> Environment:
    """A child's environment (`child_environment`) once its registry is known: a function
    of ``parameters``, ``registry`` and the parent's `INHERITED` fields only, so a check
    that compares those need not build it (a provider subtree's kept check is found
    before its environment is made)."""
    return Environment(
        parameters=node_from(parameters),
        parameter_defaults=node_from(parent.parameter_defaults),
        resource_registry=registry,
        event_sinks=list(parent.event_sinks),
        files=list(parent.files),
        requires=node_from(parent.requires),
    )
