"""The checks a stack tree gets before create (and `template validate` makes): each
resource's properties and attributes against its type (the attributes' part is
`stoker.resolution.attributes`, the rest `stoker.resolution.resource_checks`), update
policies, and provider templates and nested stacks followed recursively, so an unknown
property, a missing parameter, a template that includes itself or a tree deeper than the
limit is reported before anything is created, with both locations. Types are found by
`stoker.resolution.types`. An engine keeps provider subtrees' checks by their inputs
(`stoker.resolution.subtrees`).
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

from stoker import codes
from stoker.definition import (
    StackDefinition,
    define_stack,
    handed_down,
    parse_template,
)
from stoker.diagnostics import Diagnostic, Path, Severity, Span
from stoker.environment import child_environment
from stoker.errors import LimitExceeded
from stoker.limits import Budget, active_limits, current, exceeded
from stoker.parameters.custom import cloud_refused
from stoker.resolution.attributes import check_attributes, member_attributes
from stoker.resolution.providers import ProviderCache, is_default_error
from stoker.resolution.resource_checks import (
    check_catalog_properties,
    check_properties,
    check_update_policies,
    known_properties,
    properties_path,
    snapshot_policy,
    validate_known,
)
from stoker.resolution.subtrees import Inputs, Recording, Subtree, SubtreeMemo
from stoker.resolution.types import Resolution, resolve_types
from stoker.resources import (
    InlineStack,
    NestedStackPlugin,
    ResourceFailure,
    ResourceTypeRegistry,
    TemplateResource,
    validate_properties,
)
from stoker.template.loader import Document

#: what Heat's validate checks of a nested template: that it parses, and its parameters'
#: declarations (they are the facade's properties schema)
#: (and, before that, python-heatclient reads every get_file of the tree)
_CHECKED_IN_NESTED = frozenset(
    {codes.SYNTAX, codes.ENCODING, codes.TOO_LARGE, codes.VERSION, codes.FILE_MISSING}
)
NESTED_AT_CREATE = "Heat's validate does not look inside nested templates; its create fails"


class TreeCheck:
    """A recursive check of a stack and the provider templates below it (a plain slotted
    class: a dataclass compiles its generated methods when the module is imported, which
    every ONAP lint pays; nothing compares or prints a tree check)."""

    __slots__ = (
        "registry",
        "max_depth",
        "require_types",
        "cache",
        "nested",
        "resources",
        "refused",
        "top",
        "resolutions",
        "memo",
        "_recordings",
    )

    registry: ResourceTypeRegistry
    max_depth: int
    #: false for template validation: only provider templates and nested types are followed
    require_types: bool
    cache: ProviderCache
    #: the nested definitions found: (path of facade names, template location, definition)
    nested: list[tuple[tuple[str, ...], str, StackDefinition]]
    #: resources of the whole tree seen so far (``--max-resources`` bounds them)
    resources: int
    #: what python-heatclient refuses before any request (a provider template loop):
    #: errors at validate, wherever in the tree they are found
    refused: list[Diagnostic]
    #: the types of the top stack's resources, once checked
    top: Resolution | None
    #: the types of each checked stack's resources, by its path of facade names (``()``
    #: the top one): what a preview shows of the tree
    resolutions: dict[tuple[str, ...], Resolution]
    #: provider templates' subtree checks kept by their inputs (an engine's, across its
    #: checks), or None
    memo: SubtreeMemo | None
    #: the subtree checks running, to be kept: each notes what this check does
    _recordings: list[Recording]

    def __init__(
        self,
        registry: ResourceTypeRegistry,
        max_depth: int,
        require_types: bool = True,
        cache: ProviderCache | None = None,
        memo: SubtreeMemo | None = None,
    ) -> None:
        self.registry = registry
        self.max_depth = max_depth
        self.require_types = require_types
        self.cache = ProviderCache() if cache is None else cache
        self.nested = []
        self.resources = 0
        self.refused = []
        self.top = None
        self.resolutions = {}
        self.memo = memo
        self._recordings = []

    def check(
        self,
        definition: StackDefinition,
        base_dir: str | None,
        chain: tuple[str, ...] = (),
        names: tuple[str, ...] = (),
        resolution: Resolution | None = None,
    ) -> list[Diagnostic]:
        """The stack's findings, the provider templates and nested stacks below it
        included; ``resolution``: its resources' types, when the caller resolved them
        already (as this check resolves them)."""
        found: list[Diagnostic] = []
        if not names:
            template = definition.template
            self._count(len(template.resources), "the template", (template.names.resources,), None)
        if resolution is None:
            resolution = resolve_types(
                definition, self.registry, base_dir, self.cache, require_types=self.require_types
            )
        if not names:
            self.top = resolution
        self._resolved(names, resolution)
        found.extend(resolution.diagnostics)
        found.extend(check_attributes(definition, resolution))
        found.extend(check_catalog_properties(definition, resolution))
        found.extend(check_update_policies(definition, resolution))
        for name, plugin in resolution.plugins.items():
            if isinstance(plugin, TemplateResource):
                # a provider's known properties are checked, then handed down: found and
                # validated once
                known = known_properties(definition, name)
                validation = validate_known(plugin, known, properties_path(definition, name))
                found.extend(
                    check_properties(
                        definition,
                        name,
                        plugin,
                        for_create=self.require_types,
                        known=known,
                        validation=validation,
                    )
                )
                found.extend(snapshot_policy(definition, name, plugin))
                found.extend(
                    self._nested(
                        definition, name, plugin, resolution, (known, validation), chain, names
                    )
                )
                continue
            found.extend(check_properties(definition, name, plugin, for_create=self.require_types))
            found.extend(snapshot_policy(definition, name, plugin))
            if isinstance(plugin, NestedStackPlugin):
                found.extend(
                    self._members(definition, name, plugin, resolution, base_dir, chain, names)
                )
        return found

    def _members(
        self,
        definition: StackDefinition,
        name: str,
        plugin: NestedStackPlugin,
        resolution: Resolution,
        base_dir: str | None,
        chain: tuple[str, ...],
        names: tuple[str, ...],
    ) -> list[Diagnostic]:
        """A group's, chain's or inline stack's child, when its definition is known now."""
        known, unknown = known_properties(definition, name)
        schema = plugin.properties_schema
        if any(key in unknown for key, prop in schema.items() if prop.required):
            return []  # the child depends on values known only at create
        validated, problems = validate_properties(
            schema, known, path=(), type_name=name, dynamic=plugin.traits.dynamic_properties
        )
        if any(d.is_error for d in problems):
            return []  # already reported by check_properties
        resource = definition.template.resources[name]
        try:
            spec = plugin.child_spec(validated, name)
        except LimitExceeded as error:  # located here, where the member count was asked for
            located = replace(error.diagnostics[0], path=resource.path, span=resource.span)
            raise LimitExceeded(located, error.limit) from None
        except Exception:  # e.g. an inline template that does not parse: create reports it
            return []
        members = spec.template.get("resources") if isinstance(spec.template, dict) else None
        self._count(len(members or ()), f"{name}'s nested stack", resource.path, resource.span)
        too_deep = self._too_deep(names, None, resource.path, resource.span)
        if too_deep:
            return too_deep
        environment = child_environment(
            definition.environment, name, spec.parameters, expanded=resolution.resolved.get(name)
        )
        child_template = parse_template(Document(spec.template, "yaml", spec.location))
        taint = handed_down(definition.template, name, definition.taint, child_template)
        child = define_stack(
            child_template,
            environment,
            spec.files,
            require_all_parameters=False,
            taint=taint,
            output_values=False,
        )
        self._found_nested((*names, name), spec.location, child)
        found = list(child.errors) + self._before_create(child)
        members = None
        if self.require_types and not isinstance(plugin, InlineStack):
            # the members' types, as the check of the child below resolves them: it is
            # handed them rather than resolving every member again
            members = resolve_types(child, self.registry, base_dir, self.cache)
            for recording in self._recordings:
                recording.looked(members.looked_up)
            found += member_attributes(definition, name, plugin, members)
        below = self.check(child, base_dir, chain, (*names, name), members)
        if self.require_types and not isinstance(plugin, InlineStack):
            # Heat checks a group's members before the create only as templates (unknown
            # properties, types); a member's property value fails the group resource when
            # its nested stack is created (measured on 24.1.2: nested_matrix/group_member).
            # A value the chosen cloud refuses is the exception: the create would fail
            # there after making the rest, so it stops the command before anything is made
            below = [d for d in below if d.code != codes.PROPERTY_VALUE or cloud_refused(d.message)]
        if self.require_types:
            # a child template the group made (or an inline one) has no place in a file:
            # its findings point at the resource that holds it
            below = [
                replace(d, path=(*resource.path, *d.path), span=resource.span)
                if d.span is None
                else d
                for d in below
            ]
        found += below
        return self._reported(found)

    def _nested(
        self,
        definition: StackDefinition,
        name: str,
        plugin: TemplateResource,
        resolution: Resolution,
        properties: tuple[tuple[dict[str, Any], set[str]], tuple[dict[str, Any], list[Diagnostic]]],
        chain: tuple[str, ...],
        names: tuple[str, ...],
    ) -> list[Diagnostic]:
        """A provider resource's handover and its template's subtree; ``properties``: its
        properties known before create and the others' names (`known_properties`), and
        the known ones validated (`validate_known`)."""
        resource = definition.template.resources[name]
        where: Path = (*resource.path, definition.template.names.type)
        span: Span | None = resource.span
        location = os.path.abspath(plugin.location)
        trail = (*chain, location)
        for recording in self._recordings:
            recording.locations.add(location)
        if location in chain:
            loop = " -> ".join(os.path.basename(p) for p in (*trail[trail.index(location) :],))
            looped = Diagnostic(
                codes.RESOURCE_DEFINITION,
                f"The provider template of {name} includes itself: {loop}",
                where,
                span,
            )
            if self.require_types:
                return [looped]
            # python-heatclient follows provider paths recursively to build the files
            # map and never ends on a loop: the user's command fails before Heat sees
            # anything, so validate refuses it wherever in the tree it is
            self._refuse(looped)
            return []
        too_deep = self._too_deep(names, trail, where, span)
        if too_deep:
            return too_deep
        model = plugin.template_model  # type: ignore[attr-defined]
        self._count(len(model.resources), f"{name}'s provider template", where, span)
        (known, unknown), (validated, problems) = properties
        found: list[Diagnostic] = []
        if not _refused(problems, unknown):  # else reported by check_properties
            # what the facade hands down: an explicit null is the type's empty value
            # (Heat gives a required string parameter ''; measured on 24.1.2); a known
            # value it cannot hand down (a list of numbers for a comma_delimited_list,
            # say) makes Heat's create refuse the stack
            try:
                known = dict(plugin.child_spec(validated, name).parameters)
            except ResourceFailure as error:
                found.append(
                    Diagnostic(
                        codes.PROPERTY_VALUE,
                        str(error),
                        (*resource.path, definition.template.names.properties),
                        resource.span,
                    )
                )
        parent = definition.environment
        inputs = Inputs(
            parent,
            known,
            parent.resource_registry.for_child(name, resolution.resolved.get(name)),
            plugin.files,  # type: ignore[attr-defined]
            handed_down(definition.template, name, definition.taint, model),
        )
        found += self._subtree(model, plugin, inputs, chain, (*names, name))
        return self._reported(found)

    def _subtree(
        self,
        model: Any,
        plugin: TemplateResource,
        inputs: Inputs,
        chain: tuple[str, ...],
        names: tuple[str, ...],
    ) -> list[Diagnostic]:
        """The child definition of a provider template and its check, subtree included;
        kept in (and taken from) the memo by its inputs (`stoker.resolution.subtrees`)."""
        location = os.path.abspath(plugin.location)
        trail = (*chain, location)
        memo = self.memo
        if memo is None:
            return self._check_subtree(model, plugin, inputs, trail, names)[1]
        budget = current()
        key_objects = (model, self.registry, self.cache.templates)
        key = (
            *map(id, key_objects),
            plugin.location,
            location,
            plugin.base_dir,
            self.require_types,
            self.max_depth,
            self.cache.files_root,
            budget.limits,
            inputs.fingerprint(),
        )
        kept = memo.find(key, inputs, chain, len(names), self.max_depth, budget)
        if kept is not None:
            self._replay(kept, names, budget)
            return list(kept.found)
        recording = Recording(names)
        spent = budget.spent
        self._recordings.append(recording)
        try:
            child, found = self._check_subtree(model, plugin, inputs, trail, names)
        finally:
            self._recordings.pop()
        if len(names) + recording.height <= self.max_depth and recording.locations.isdisjoint(
            chain
        ):  # nothing it found depends on the templates above it or its depth
            spent = budget.spent - spent
            memo.keep(key, Subtree(key_objects, inputs, child, found, recording, spent))
        return found

    def _check_subtree(
        self,
        model: Any,
        plugin: TemplateResource,
        inputs: Inputs,
        trail: tuple[str, ...],
        names: tuple[str, ...],
    ) -> tuple[StackDefinition, list[Diagnostic]]:
        child = define_stack(
            model,
            inputs.environment,
            inputs.files,
            require_all_parameters=False,
            taint=inputs.taint,
            output_values=False,
        )
        self._found_nested(names, plugin.location, child)
        found = [d for d in child.diagnostics if d.code != codes.PARAMETER_UNKNOWN]
        # the child's values: a create refuses them, except its parameters' values, which
        # Heat checks only when it creates the child (the facade fails; measured on 24.1.2)
        found += self._before_create(child)
        found += self.check(child, plugin.base_dir, trail, names)
        return child, found

    # ------------------------------------------------ what a check does to the TreeCheck
    def _replay(self, kept: Subtree, names: tuple[str, ...], budget: Budget) -> None:
        """Do to this check what the kept subtree check did (at ``names`` now)."""
        recording = kept.recording
        for recorded in self._recordings:
            recorded.locations |= recording.locations
            recorded.looked(recording.looked_up)
            level = len(names) - len(recorded.base) + recording.height
            recorded.height = max(recorded.height, level)
        budget.spent += kept.spent
        for event in recording.events:
            kind = event[0]
            if kind == "count":
                self._count(*event[1:])
            elif kind == "nested":
                self._found_nested((*names, *event[1]), event[2], event[3])
            elif kind == "resolution":
                self._resolved((*names, *event[1]), event[2])
            else:
                self._refuse(event[1])

    def _found_nested(
        self, names: tuple[str, ...], location: str, definition: StackDefinition
    ) -> None:
        self.nested.append((names, location, definition))
        for recording in self._recordings:
            recording.events.append(("nested", names[len(recording.base) :], location, definition))

    def _resolved(self, names: tuple[str, ...], resolution: Resolution) -> None:
        self.resolutions[names] = resolution
        for recording in self._recordings:
            recording.events.append(("resolution", names[len(recording.base) :], resolution))
            recording.looked(resolution.looked_up)

    def _refuse(self, diagnostic: Diagnostic) -> None:
        self.refused.append(diagnostic)
        for recording in self._recordings:
            recording.events.append(("refused", diagnostic))

    def _too_deep(
        self, names: tuple[str, ...], trail: tuple[str, ...] | None, path: Path, span: Span | None
    ) -> list[Diagnostic]:
        """The stack below ``names`` compared with the depth limit: the error when it is
        deeper (a provider's naming the ``trail`` of templates that led there), else
        nothing. The trail is joined only then: the comparison runs for every provider."""
        level = len(names) + 1
        for recording in self._recordings:
            recording.height = max(recording.height, level - len(recording.base))
        if level <= self.max_depth:
            return []
        message = f"Recursion depth exceeds {self.max_depth}"
        if trail is not None:
            shown = " -> ".join(os.path.basename(p) for p in trail)
            message += f": {shown} (raise the limit with --max-nested-depth)"
        return [Diagnostic(codes.RESOURCE_DEFINITION, message, path, span)]

    def _reported(self, found: list[Diagnostic]) -> list[Diagnostic]:
        """``found`` below a resource as this check reports it. For template validate,
        errors inside a nested template, which Heat reports only when creating the stack,
        as warnings: it shows them without refusing what Heat accepts. A request's files
        map was read by its client already: a ``get_file`` it lacks is then Heat's
        engine's to find, at create."""
        if self.require_types:
            return found
        from_request = self.cache.source is not None
        result = []
        for diagnostic in found:
            code = diagnostic.code
            checked = (
                code in _CHECKED_IN_NESTED and not (from_request and code == codes.FILE_MISSING)
            ) or (diagnostic.code == codes.PARAMETER_SCHEMA and not is_default_error(diagnostic))
            if diagnostic.is_error and not checked:
                diagnostic = replace(
                    diagnostic,
                    severity=Severity.WARNING,
                    notes=(*diagnostic.notes, NESTED_AT_CREATE),
                )
            result.append(diagnostic)
        return result

    def _count(self, added: int, what: str, path: Path, span: Span | None) -> None:
        """Count the resources of one more stack of the tree against ``--max-resources``
        (Heat's max_resources_per_stack counts the whole tree too)."""
        for recording in self._recordings:
            recording.events.append(("count", added, what, path, span))
        self.resources += added
        if self.resources > active_limits().resources:
            raise exceeded(
                "resources",
                f"{what} brings the resources of the tree to {self.resources:,}",
                path=path,
                span=span,
            )

    def _before_create(self, child: StackDefinition) -> list[Diagnostic]:
        """What the parent's create refuses of a child found while checking the tree."""
        if not self.require_types:
            return list(child.create_findings)  # validate shows them all (as warnings)
        return [d for d in child.create_findings if d not in child.parameter_findings]


def _refused(problems: list[Diagnostic], unknown: set[str]) -> bool:
    """Whether a provider's known properties (validated with the others pending) cannot
    be handed down. A property known only at create is not missing here: the known ones
    are handed down as the create will hand them (a null list as ``''``: TripleO's
    ``EnabledNetworks:`` beside properties that read other resources' attributes); a
    pending one the template does not declare is reported (by `check_properties`), and
    leaves the known ones as they are."""
    return any(
        d.is_error and not (d.code == codes.PROPERTY_UNKNOWN and d.path[-1] in unknown)
        for d in problems
    )
