"""A stack definition: template + environment + parameter values + files, validated.

This is where the separately parsed parts meet: parameter values are checked against
their declarations, conditions are evaluated, each function tree is validated in a scope
that knows which resources exist, and the dependency graph is built and checked. The
engine creates stacks from a `StackDefinition`; ``stoker template validate`` and
``resolve`` print what it found.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from stoker import codes
from stoker.definition.conditions import ConditionEvaluator
from stoker.definition.context import (
    CFN_PSEUDO,
    HOT_PSEUDO,
    StaticContext,
)
from stoker.definition.edges import GET_ATTR, GET_RESOURCE
from stoker.definition.graph import DependencyGraph, build_graph
from stoker.definition.known_values import KnownValues
from stoker.definition.relocation import Move
from stoker.definition.reuse import Reuse, relocated
from stoker.definition.sensitive import NO_TAINT, Taint, hidden_names, reads_hidden, withhold_call
from stoker.definition.template import ResourceDefinition, Template
from stoker.definition.typos import template_misspelled, with_hints
from stoker.diagnostics import Diagnostic, Path, Span
from stoker.environment import Environment
from stoker.errors import FunctionError
from stoker.functions.base import (
    Function,
    Scope,
    Unresolved,
    functions_in,
    iter_functions,
    validate_tree,
)
from stoker.functions.refs import CfnGetAtt, GetAttr
from stoker.parameters import CustomConstraintRegistry, default_constraints, resolve_values
from stoker.template.nodes import locate
from stoker.template.versions import Format


@dataclass(slots=True)
class StackDefinition:
    """A template with everything it needs to be validated, resolved or created;
    compared by value."""

    template: Template
    environment: Environment
    files: Mapping[str, str]
    parameters: dict[str, Any] = field(default_factory=dict)  # typed values that are known
    conditions: dict[str, bool] = field(default_factory=dict)  # conditions that are known
    enabled: list[str] = field(default_factory=list)  # resources that exist (or may)
    disabled: list[str] = field(default_factory=list)  # resources whose condition is false
    graph: DependencyGraph | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: failures Heat reports only when an output is read (its ``output_error``): not
    #: errors of the template, but the linter reports them
    output_findings: list[Diagnostic] = field(default_factory=list)
    #: failures of resource values that Heat's validate does not compute and its create
    #: refuses (only filled when not all parameters are required, i.e. for validate)
    create_findings: list[Diagnostic] = field(default_factory=list)
    #: those of `create_findings` about parameter values that a nested stack's facade
    #: does not check (a value of the wrong type, a bad template default): Heat finds
    #: them only when it creates that stack (its resource fails), not before the
    #: parent's create
    parameter_findings: list[Diagnostic] = field(default_factory=list)
    context: StaticContext | None = None
    scope: Scope | None = None
    #: what a parent handed down that derives from its hidden parameters (a nested stack)
    taint: Taint = NO_TAINT
    #: `resource_order`, computed once (the graph does not change after define_stack)
    _order: list[str] | None = field(default=None, compare=False, repr=False)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.is_error]

    def resource_order(self) -> list[str]:
        """Resources in a dependency order, stable with respect to template order."""
        if self._order is None:
            self._order = self.graph.order() if self.graph else list(self.enabled)
        return list(self._order)


def define_stack(
    template: Template,
    environment: Environment,
    files: Mapping[str, str] | None = None,
    *,
    require_all_parameters: bool = False,
    unread_files: frozenset[str] = frozenset(),
    stack_name: str | None = None,
    stack_id: str | None = None,
    project_id: str | None = None,
    facade: Mapping[str, Any] | None = None,
    taint: Taint = NO_TAINT,
    reuse: Reuse | None = None,
    output_values: bool = True,
) -> StackDefinition:
    """Check everything that can be checked before anything runs; collect all findings.

    With ``require_all_parameters`` false (template validate) a parameter without any
    value is not an error, as in Heat's validate API; create and resolve need them all.
    ``taint`` says which parameters a parent fed from its hidden ones (their values stay
    out of messages as a hidden parameter's do). ``reuse`` carries the per-resource
    results of the previous check of this template (`stoker.definition.reuse`): an
    editor's, where most resources are unchanged between two checks. With
    ``output_values`` false the outputs' values are not checked (`output_findings` stays
    empty; their structure still is): a nested stack's definition, which the engine and
    the tree check build, has nobody to report them to (Heat reports them only when an
    output is read, and a parent reads its child's outputs by resolving them).
    """
    definition = StackDefinition(template, environment, dict(files or {}), taint=taint)
    found = definition.diagnostics
    found.extend(template.diagnostics)
    _check_parameters(definition, require_all_parameters, default_constraints())
    pseudo = HOT_PSEUDO if template.version.format is Format.HOT else CFN_PSEUDO
    evaluator = ConditionEvaluator(template.conditions, template.names.conditions)
    context = StaticContext(
        parameters=definition.parameters,
        declared_parameters=frozenset(template.parameters) | frozenset(pseudo),
        resources=frozenset(),
        conditions=evaluator,
        files=definition.files,
        unread_files=unread_files,
        mappings=template.mappings,
        stack_name=stack_name,
        stack_id=stack_id,
        project_id=project_id,
        facade=facade,
    )
    definition.context = context
    _evaluate_conditions(definition, evaluator, context)
    _classify_resources(definition, evaluator, context)
    context.resources = frozenset(definition.enabled)
    scope = Scope(
        version=template.version,
        resources={name: r.type for name, r in template.resources.items()},
        parameters=frozenset(template.parameters) | frozenset(pseudo),
        conditions=frozenset(template.conditions),
        condition_values=dict(definition.conditions),
        disabled_resources=frozenset(definition.disabled),
        mappings=template.mappings,
        files=definition.files if files is not None else None,
        unread_files=unread_files,
        context=context,
    )
    definition.scope = scope
    hints = template_misspelled(template, reuse)
    reuse = reuse or Reuse()
    implicit = _validate_functions(
        definition, scope, reuse, for_create=require_all_parameters, output_values=output_values
    )
    _check_names(definition)
    build_graph(definition, implicit)
    _check_known_values(
        definition,
        context,
        scope,
        reuse,
        for_create=require_all_parameters,
        output_values=output_values,
    )
    definition.diagnostics[:] = with_hints(definition.diagnostics, hints)
    return definition


def _check_parameters(
    definition: StackDefinition, require_all: bool, constraints: CustomConstraintRegistry
) -> None:
    template, environment = definition.template, definition.environment
    deferred: list[Diagnostic] = []
    own: list[Diagnostic] = []
    # a parameter fed from a parent's hidden one is checked as hidden: no value in messages
    fed = definition.taint.parameters
    declarations = {
        name: replace(parameter, hidden=True) if name in fed else parameter
        for name, parameter in template.parameters.items()
    }
    values, found = resolve_values(
        declarations,
        environment.parameters,
        environment.parameter_defaults,
        registry=constraints,
        declared=_declared_names(template),
        for_create=require_all,
        deferred=None if require_all else deferred,
        own=own,
    )
    # Heat's validate does not check parameter values (their type and constraints):
    # its create refuses them before anything starts.
    later = {id(d): create_time(d) for d in deferred if d.is_error}
    definition.create_findings.extend(later.values())
    definition.parameter_findings.extend(later[id(d)] for d in own if id(d) in later)
    found += [d for d in deferred if not d.is_error]
    if not require_all:
        unset = {
            name
            for name, parameter in template.parameters.items()
            if name not in environment.parameters
            and name not in environment.parameter_defaults
            and not parameter.has_default
        }
        found = [
            d for d in found if not (_parameter_of(d) in unset and "not provided" in d.message)
        ]
    definition.parameters.update(values)
    definition.diagnostics.extend(found)


def _declared_names(template: Template) -> frozenset[str]:
    """Every name the parameters section declares, including rejected declarations."""
    section = template.document.data
    raw = section.get(template.names.parameters) if isinstance(section, dict) else None
    return frozenset(str(name) for name in raw) if isinstance(raw, dict) else frozenset()


def _parameter_of(diagnostic: Diagnostic) -> str | None:
    return str(diagnostic.path[1]) if len(diagnostic.path) >= 2 else None


def _evaluate_conditions(
    definition: StackDefinition, evaluator: ConditionEvaluator, context: StaticContext
) -> None:
    template = definition.template
    used = used_conditions(template)
    for name in template.conditions:
        if name not in used:
            continue  # Heat never evaluates a condition nothing uses
        try:
            definition.conditions[name] = evaluator.value(name, context)
        except Unresolved:
            continue
        except FunctionError as error:
            path = error.path or (template.names.conditions, name)
            span = error.span or template.condition_spans.get(name)
            _condition_failed(definition, error.message, template.conditions[name], path, span)


def _classify_resources(
    definition: StackDefinition, evaluator: ConditionEvaluator, context: StaticContext
) -> None:
    template = definition.template
    for name, resource in template.resources.items():
        enabled = _condition_of(definition, resource.condition, resource.path, evaluator, context)
        (definition.disabled if enabled is False else definition.enabled).append(name)


_IF = frozenset({"if", "Fn::If"})


def used_conditions(template: Template) -> frozenset[str]:
    """Conditions that a resource, an output, an ``if`` or another used condition names.

    Heat evaluates only these: an unused condition may even read an undeclared parameter.
    Any string naming a condition counts, which errs on the side of checking. Found once
    per template (a parsed template does not change): kept on it.
    """
    used = template.conditions_used
    if used is None:
        used = template.conditions_used = _used_conditions(template)
    return used


def _used_conditions(template: Template) -> frozenset[str]:
    names = template.conditions
    roots: list[Any] = [r.condition for r in template.resources.values()]
    roots += [o.condition for o in template.outputs.values()]
    # an ``if`` without arguments names no condition; its own check reports the shape
    roots += [
        c.args[0] for c in template.calls if c.name in _IF and isinstance(c.args, list) and c.args
    ]
    used: set[str] = set()
    pending = [root for root in roots if root is not None]
    while pending:
        for leaf in _string_leaves(pending.pop()):
            if leaf in names and leaf not in used:
                used.add(leaf)
                pending.append(names[leaf])
    return frozenset(used)


def _string_leaves(value: Any) -> Iterator[str]:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield str(item)
        elif isinstance(item, Function):
            stack.append(item.args)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _condition_of(
    definition: StackDefinition,
    condition: Any,
    path: Path,
    evaluator: ConditionEvaluator,
    context: StaticContext,
) -> bool | None:
    """The value of a ``condition:`` field: True, False, or None when it cannot be known."""
    if condition is None:
        return True
    field_path = (*path, definition.template.names.condition)
    try:
        return evaluator.evaluate(condition, context)
    except Unresolved:
        return None
    except FunctionError as error:
        span = locate(definition.template.document.data, field_path)
        _condition_failed(definition, error.message, condition, field_path, span)
        return None


def _condition_failed(
    definition: StackDefinition, message: str, expression: Any, path: Path, span: Span | None
) -> None:
    """Report a condition that fails with ``message`` (rebuilt without the values it was
    given when it reads a hidden parameter)."""
    diagnostic = Diagnostic(codes.CONDITION, message, path, span)
    hidden = hidden_names(definition.template, definition.taint)
    if isinstance(expression, Function) and reads_hidden(expression, hidden):
        diagnostic = withhold_call(diagnostic, expression)
    definition.diagnostics.append(diagnostic)


def _resource_trees(resource: ResourceDefinition) -> list[Any]:
    """The trees of ``resource`` that may hold a call. An absent or empty one holds none
    and is left out: most resources have no metadata, policies or external id, and each
    tree costs the walks of `_validate_functions` and `_check_known_values` a visit."""
    trees = (
        resource.properties,
        resource.metadata,
        resource.deletion_policy,
        resource.update_policy,
        resource.external_id,
    )
    return [t for t in trees if t is not None and not (isinstance(t, dict) and not t)]


def _validate_functions(
    definition: StackDefinition,
    scope: Scope,
    reuse: Reuse,
    *,
    for_create: bool,
    output_values: bool = True,
) -> dict[str, dict[str, int]]:
    """Validate every reachable call; return each enabled resource's implicit dependencies,
    each with the `stoker.definition.edges` bits of the calls that make it.

    One walk per tree does both, since both visit the same calls. A resource ``reuse``
    says is unchanged, in the same context, has its results of the last check. The
    outputs' calls are checked for their structure, and (``output_values``) their values.
    """
    template, found = definition.template, definition.diagnostics
    hidden = hidden_names(template, definition.taint)
    used = used_conditions(template)
    for name, expression in template.conditions.items():
        if name in used:
            found.extend(_validate_tree(expression, scope, hidden))
        else:  # only its structure: Heat never evaluates it
            for function in iter_functions(expression, scope):
                found.extend(function.structure(scope))
    needs: dict[str, dict[str, int]] = {}
    reusing = reuse.start(_VALIDATED, _reuse_context(definition, hidden, for_create))
    for name, resource in template.resources.items():
        kept = reuse.reused(_VALIDATED, name, _relocate_validated) if reusing else None
        if kept is None:
            kept = _validate_resource(definition, name, resource, scope, hidden, for_create)
            reuse.keep(_VALIDATED, name, kept)
        own, later, references = kept
        found.extend(own)
        definition.create_findings.extend(later)
        if references is not None:
            needs[name] = references
    for output in template.outputs.values():
        if output.condition is not None:
            found.extend(_validate_tree(output.condition, scope, hidden))
            if _known_false(definition, output.condition):
                continue
        for function in iter_functions(output.value, scope):
            structural = list(function.structure(scope))
            found.extend(structural)
            if not output_values:
                continue
            later = [d for d in function.validate(scope) if d not in structural]
            definition.output_findings.extend(
                output_time(d) for d in _withheld(function, later, scope, hidden)
            )
    return needs


#: `Reuse` stages: a resource's calls validated, its known values computed
_VALIDATED = "validated"
_KNOWN = "known values"


_Validated = tuple[list[Diagnostic], list[Diagnostic], dict[str, int] | None]


def _relocate_validated(kept: _Validated, move: Move) -> _Validated | None:
    own, later = relocated(kept[0], move), relocated(kept[1], move)
    return None if own is None or later is None else (own, later, kept[2])


def _reuse_context(definition: StackDefinition, hidden: set[str], for_create: bool) -> Hashable:
    """What a resource's checks read of the rest of the template that its own text does
    not say: the other resources' names and types, which are disabled, the conditions'
    values, the hidden parameters. (The other sections' text and the environment are the
    caller's to compare: see `stoker.definition.reuse`.)"""
    return (
        tuple((name, resource.type) for name, resource in definition.template.resources.items()),
        frozenset(definition.disabled),
        tuple(sorted(definition.conditions.items())),
        frozenset(hidden),
        for_create,
    )


def _validate_resource(
    definition: StackDefinition,
    name: str,
    resource: ResourceDefinition,
    scope: Scope,
    hidden: set[str],
    for_create: bool,
) -> _Validated:
    """One resource's calls validated: the findings of validate, those Heat reports only
    at create, and its implicit dependencies (None for a disabled resource)."""
    own: list[Diagnostic] = []
    later: list[Diagnostic] = []
    if resource.condition is not None:
        own.extend(_validate_tree(resource.condition, scope, hidden))
    if name in definition.disabled:
        return own, later, None  # Heat does not validate what does not exist
    references: dict[str, int] = {}
    for tree in _resource_trees(resource):
        for function in functions_in(tree, scope):
            checks = _withheld(function, list(function.validate(scope)), scope, hidden)
            if for_create:
                own.extend(checks)
            else:
                # Heat's validate checks the structure and the references it needs
                # for the dependency graph; values wait for create
                structural = list(function.structure(scope))
                structural += [d for d in checks if d.code in _REFERENCE_CODES]
                own.extend(d for d in checks if d in structural)
                later.extend(create_time(d) for d in checks if d not in structural)
            if tree is resource.properties or tree is resource.metadata:
                reason = GET_ATTR if isinstance(function, _ATTRIBUTE_CALLS) else GET_RESOURCE
                for dependency in function.dependencies(scope):
                    references[dependency] = references.get(dependency, 0) | reason
    return own, later, references


#: the calls whose reference is an attribute's (the others name the resource itself)
_ATTRIBUTE_CALLS = (GetAttr, CfnGetAtt)


def _validate_tree(value: Any, scope: Scope, hidden: set[str]) -> list[Diagnostic]:
    """`validate_tree`, with the value checks of calls reading a hidden parameter withheld."""
    if not hidden:
        return validate_tree(value, scope)
    found: list[Diagnostic] = []
    for function in iter_functions(value, scope):
        found.extend(_withheld(function, list(function.validate(scope)), scope, hidden))
    return found


def _withheld(
    function: Function, found: list[Diagnostic], scope: Scope, hidden: set[str]
) -> list[Diagnostic]:
    """``found`` (``function``'s checks) with every check of a value rebuilt without the
    value when ``function`` reads a hidden parameter. Structural checks quote only the
    template's text, which is no secret, and stay as they are."""
    if not found or not reads_hidden(function, hidden):
        return found
    structural = list(function.structure(scope))
    return [d if d in structural else withhold_call(d, function) for d in found]


OUTPUT_TIME_NOTE = "Heat accepts the template and fails only when the output is read"
CREATE_TIME_NOTE = "Heat's validate accepts the template; its create refuses it"
_REFERENCE_CODES = frozenset({codes.UNKNOWN_RESOURCE})


def create_time(diagnostic: Diagnostic) -> Diagnostic:
    """A finding about a resource's value, marked as one Heat reports only at create."""
    return replace(diagnostic, message=f"{diagnostic.message} ({CREATE_TIME_NOTE})")


def output_time(diagnostic: Diagnostic) -> Diagnostic:
    """A finding about an output's value, marked as one Heat reports at output time."""
    return replace(diagnostic, message=f"{diagnostic.message} ({OUTPUT_TIME_NOTE})")


def _known_false(definition: StackDefinition, condition: Any) -> bool:
    if isinstance(condition, bool):
        return not condition
    if isinstance(condition, str):
        return definition.conditions.get(condition) is False
    scope = definition.scope
    return scope is not None and scope.condition_value(condition) is False


def _check_names(definition: StackDefinition) -> None:
    template = definition.template
    clashes = sorted(set(template.parameters) & set(template.resources))
    for name in clashes:
        resource = template.resources[name]
        definition.diagnostics.append(
            Diagnostic(
                codes.RESOURCE_NAME,
                f"Duplicate names {{'{name}'}}: a parameter and a resource may not share a name",
                resource.path,
                resource.span,
            )
        )


def _check_known_values(
    definition: StackDefinition,
    context: StaticContext,
    scope: Scope,
    reuse: Reuse,
    *,
    for_create: bool,
    output_values: bool = True,
) -> None:
    """Resolve what needs no running resource, so errors like a bad index show now
    (in the outputs too, unless ``output_values`` is false).

    Only subtrees that reference no resource are resolved; a call that does is looked
    into (just the branch an ``if`` takes), so no work is spent on values that cannot be
    known before create.
    """
    if definition.errors:
        return  # values computed from an invalid template would only repeat the errors
    template = definition.template
    hidden = hidden_names(template, definition.taint)
    checker = KnownValues(context, scope, hidden)
    found: list[Diagnostic] = []
    reusing = reuse.start(_KNOWN, _reuse_context(definition, hidden, for_create))
    for name in definition.enabled:
        kept = reuse.reused(_KNOWN, name, relocated) if reusing else None
        if kept is None:
            checker.found = []
            for tree in _resource_trees(template.resources[name]):
                checker.check(tree)
            kept = checker.found
            reuse.keep(_KNOWN, name, kept)
        found.extend(kept)
    if for_create:
        definition.diagnostics.extend(found)
    else:
        seen = {d.path for d in definition.create_findings}
        definition.create_findings.extend(create_time(d) for d in found if d.path not in seen)
    if not output_values:
        return
    checker.found = []
    for output in template.outputs.values():
        if output.condition is None or not _known_false(definition, output.condition):
            checker.check(output.value)
    seen = {d.path for d in definition.output_findings}  # one finding per call
    for diagnostic in map(output_time, checker.found):
        if diagnostic.path not in seen:
            definition.output_findings.append(diagnostic)
