"""Merging several environment files into the one environment a stack is created with.

The rules are Heat's (``environment_util.merge_environments``): request parameters first,
then each file in order, a file's ``parameters`` overriding what came before unless a
merge strategy says otherwise; ``resource_registry`` merged one level deep with ``null``
entries skipped. Where Heat crashes (two files with ``event_sinks``) or silently picks one
value, this module does the evident thing and reports what it did.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, NamedTuple

from stoker.codes import ENVIRONMENT
from stoker.diagnostics import Diagnostic, Severity, Span
from stoker.environment.environment import (
    DEFAULT_STRATEGY_KEY,
    Environment,
    MergeStrategy,
    Section,
    node_from,
)
from stoker.environment.registry import ResourceRegistry
from stoker.environment.registry_section import RESOURCES_KEY, RegistryBlock
from stoker.environment.strategies import MISSING, MergeRejected, merge_parameter
from stoker.template.nodes import MappingNode, value_span


class _Chosen(NamedTuple):
    """The strategy a parameter got from the first file that gave it a value (a named
    tuple: a frozen, slotted dataclass costs more to create at import, Python compiling
    its generated methods, and every process reading an environment pays it)."""

    strategy: MergeStrategy
    file: str
    span: Span | None


def merge_environments(
    environments: Sequence[Environment],
    *,
    explicit_parameters: Mapping[str, Any] | None = None,
    template_parameter_names: Collection[str] | None = None,
    parameter_types: Mapping[str, str] | None = None,
) -> tuple[Environment, list[Diagnostic]]:
    """Merge environment files in order, over the request's explicit parameters.

    * ``parameters`` and ``parameter_defaults``: per parameter, the strategy comes from the
      first file giving it a value (its own entry in ``parameter_merge_strategies``, else
      that file's ``default``, else ``overwrite``); a later file naming a different strategy
      for it is a conflict. ``overwrite`` replaces (so a file beats an explicit request
      parameter, as measured on Heat); ``merge``/``deep_merge`` combine (see
      `stoker.environment.strategies`). Once a section already has values, names that
      ``template_parameter_names`` does not know are dropped, as Heat drops them.
    * ``resource_registry``: a later entry replaces an earlier one; a later ``resources:``
      block for a resource name replaces the earlier block for that name; ``null`` entries
      are skipped, so a later file cannot delete an earlier mapping.
    * ``event_sinks`` are concatenated. Heat feeds a second file's list to its map-merge
      code and fails; keeping every sink is what such an environment evidently means.
    * ``encrypted_param_names`` are concatenated without repeats.
    * ``requires`` (stoker's, from the capabilities spec) merges key by key in file order:
      a later file's value for a capability replaces an earlier one's, and keys only one
      file names are kept. So a base environment can set ``deployment: puppet`` and a later
      one switch just that to ``docker``; each value keeps the position it was written at.

    ``parameter_types`` (name → HOT or CFN type) makes merging follow declared types, as
    Heat does; without it the values' shapes decide.
    """
    merger = _Merger(
        None if template_parameter_names is None else frozenset(template_parameter_names),
        dict(parameter_types or {}),
    )
    merged = Environment(parameters=node_from(explicit_parameters), files=[])
    for environment in environments:
        merger.add(merged, environment)
    merged.parameter_merge_strategies = merger.strategy_table()
    merged.resource_registry = merger.registry(environments)
    known = {(d.message, d.span) for env in environments for d in env.resource_registry.check()}
    for diagnostic in merged.resource_registry.check():
        if (diagnostic.message, diagnostic.span) not in known:
            merger.found.append(diagnostic)
    return merged, merger.found


class _Merger:
    def __init__(self, known_names: frozenset[str] | None, types: dict[str, str]) -> None:
        self.known_names = known_names
        self.types = types
        self.chosen: dict[str, _Chosen] = {}
        self.found: list[Diagnostic] = []

    def add(self, merged: Environment, environment: Environment) -> None:
        file = environment.files[-1] if environment.files else "<environment>"
        strategies = environment.parameter_merge_strategies
        for section, target, values in (
            (Section.PARAMETERS, merged.parameters, environment.parameters),
            (Section.PARAMETER_DEFAULTS, merged.parameter_defaults, environment.parameter_defaults),
        ):
            if values:
                self.merge_section(section, target, values, strategies, file)
        merged.event_sinks.extend(environment.event_sinks)
        for key, values in environment.requires.items():
            merged.requires.pop(key, None)  # re-inserted last: the merged order is file order
            merged.requires.key_spans.pop(key, None)
            if key in environment.requires.key_spans:
                merged.requires.key_spans[key] = environment.requires.key_spans[key]
            _put(merged.requires, key, values, value_span(environment.requires, key))
        for name in environment.encrypted_param_names:
            if name not in merged.encrypted_param_names:
                merged.encrypted_param_names.append(name)
        merged.files.extend(environment.files)

    def known(self, name: str) -> bool:
        return self.known_names is None or name in self.known_names

    def merge_section(
        self,
        section: Section,
        target: MappingNode,
        values: MappingNode,
        strategies: MappingNode,
        file: str,
    ) -> None:
        conflicted = self.record_strategies(values, strategies, file)
        if not target:
            # Heat takes the first values of a section whole, names it does not know too;
            # they are reported later as parameters the template does not define.
            for name in values:
                _put(target, name, values[name], value_span(values, name))
            return
        for name, value in values.items():
            if not self.known(name):
                self.found.append(
                    Diagnostic(
                        ENVIRONMENT,
                        f'{section.value} "{name}" from {file} is dropped: no template '
                        "declares it (Heat ignores it)",
                        (section.value, name),
                        value_span(values, name),
                        Severity.INFO,
                    )
                )
                continue
            if value is None or name in conflicted:
                continue
            span = value_span(values, name)
            strategy = self.chosen[name].strategy
            if strategy is MergeStrategy.OVERWRITE:
                _put(target, name, value, span)
                continue
            try:
                combined = merge_parameter(
                    name, target.get(name, MISSING), value, strategy, self.types.get(name)
                )
            except MergeRejected as rejected:
                self.found.append(
                    Diagnostic(ENVIRONMENT, str(rejected), (section.value, name), span)
                )
                continue
            _put(target, name, combined, span)

    def record_strategies(
        self, values: MappingNode, strategies: MappingNode, file: str
    ) -> set[str]:
        """Fix each parameter's strategy on first sight; report later files disagreeing."""
        conflicted: set[str] = set()
        default = strategies.get(DEFAULT_STRATEGY_KEY)
        for name, value in values.items():
            if value is None or not self.known(name):
                continue
            explicit = strategies.get(name)
            earlier = self.chosen.get(name)
            if earlier is None:
                strategy = explicit or default or MergeStrategy.OVERWRITE.value
                source = name if explicit else DEFAULT_STRATEGY_KEY if default else None
                span = value_span(strategies, source) if source is not None else None
                self.chosen[name] = _Chosen(MergeStrategy(strategy), file, span)
            elif explicit is not None and explicit != earlier.strategy.value:
                where = f" at {earlier.span}" if earlier.span else ""
                self.found.append(
                    Diagnostic(
                        ENVIRONMENT,
                        f"Conflicting merge strategy '{explicit}' for parameter '{name}' in "
                        f"file '{file}'. (it was given '{earlier.strategy.value}' by "
                        f"{earlier.file}{where}; one parameter keeps one strategy across files)",
                        (Section.PARAMETER_MERGE_STRATEGIES.value, name),
                        value_span(strategies, name),
                    )
                )
                conflicted.add(name)
        return conflicted

    def strategy_table(self) -> MappingNode:
        table = MappingNode()
        for name, chosen in self.chosen.items():
            _put(table, name, chosen.strategy.value, chosen.span)
        return table

    def registry(self, environments: Sequence[Environment]) -> ResourceRegistry:
        merged = RegistryBlock()
        resources = RegistryBlock()
        global_sections: list[RegistryBlock] = []
        for environment in environments:
            registry = environment.resource_registry
            global_sections.extend(registry.global_sections)
            # The user block has every null of its file applied already, so what is left
            # are the entries a merge may copy.
            for key, item in registry.user_block.items.items():
                if key == RESOURCES_KEY and isinstance(item, RegistryBlock):
                    for name, block in item.blocks():
                        resources.items.pop(name, None)
                        resources.items[name] = block
                else:
                    merged.items.pop(key, None)
                    merged.items[key] = item
        if resources.items:
            merged.items[RESOURCES_KEY] = resources
        return ResourceRegistry([merged], global_sections=global_sections)


def overlay_environment(
    stored: Environment, merged: Environment, given: Sequence[Environment]
) -> Environment:
    """A PATCH's environment: the stored one with the request's loaded over it.

    Heat loads the request's environment (``merged``: its files merged with each other and
    over the explicit parameters, by `merge_environments`) into the stack's stored one the
    way it loads any environment: ``parameters`` and ``parameter_defaults`` replaced name by
    name, no merge strategy reaching the stored values (and none is stored); the registry
    applied section by section, so a request with only ``parameter_defaults`` keeps the
    stored ``resource_registry`` and a ``null`` entry (of ``given``, the request's own
    environments, as written) deletes a stored mapping; ``event_sinks`` added to the
    stored ones.
    """
    sections = [*stored.resource_registry.sections]
    sections += [block for env in given for block in env.resource_registry.sections]
    globals_ = merged.resource_registry.global_sections or stored.resource_registry.global_sections
    return Environment(
        parameters=_overlaid(stored.parameters, merged.parameters),
        parameter_defaults=_overlaid(stored.parameter_defaults, merged.parameter_defaults),
        resource_registry=ResourceRegistry(sections, global_sections=globals_),
        event_sinks=[*stored.event_sinks, *merged.event_sinks],
        parameter_merge_strategies=merged.parameter_merge_strategies,
        encrypted_param_names=list(merged.encrypted_param_names),
        files=[*stored.files, *merged.files],
        requires=_overlaid(stored.requires, merged.requires),
    )


def _overlaid(stored: MappingNode, given: MappingNode) -> MappingNode:
    """A copy of ``stored`` with ``given``'s values replacing its own name by name."""
    result = node_from(stored)
    for name, value in given.items():
        _put(result, name, value, value_span(given, name))
    return result


def _put(target: MappingNode, name: str, value: Any, span: Span | None) -> None:
    target[name] = value
    if span is not None:
        target.value_spans[name] = span
    else:
        target.value_spans.pop(name, None)
