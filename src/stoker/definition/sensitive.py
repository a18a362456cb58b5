"""Which outputs carry a value derived from a hidden parameter.

Heat shows such an output's value to whoever reads the stack (the author asked for it: a
generated password, say), so machine formats show it too. The human table view follows
Terraform's *sensitive values* instead and prints ``<sensitive>`` unless asked not to: a
secret should not land on a shared screen or in a terminal recording by accident.

The walk is static and conservative: an output is sensitive when its expression reaches
``get_param`` (or ``Ref``) of a hidden parameter, or refers (``get_resource``,
``get_attr``, ``Ref``, ``Fn::GetAtt``) to a resource whose properties or metadata do,
directly or through other resources. A parameter name computed at run time counts as
hidden when any parameter is.

The walk crosses stack boundaries through a `Taint`: what reaches one template from its
parent (parameters fed by a value derived from the parent's hidden parameters; for groups
and chains, whose members' properties are copied into the child, every member) and from
its children (the attributes of a nested-stack resource that read the child's outputs
derived from a hidden parameter). Heat 24.1.2 shows all of these values in clear, a
child's parameter fed from a parent's hidden one included (measured); stoker shows them
as Heat does except where it withholds derived values (the table view, property and
function errors, `resource show`'s attributes, a generated member template), and it
shows a child's parameter fed so masked, as a hidden parameter is (the project's rule:
hidden values are masked wherever they are shown).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, NamedTuple

from stoker.definition.template import Template
from stoker.diagnostics import Diagnostic, Path
from stoker.errors import FunctionError
from stoker.functions.base import Function
from stoker.functions.refs import CfnGetAtt, GetAttr, GetParam, GetResource, Ref

SENSITIVE: Final = "<sensitive>"


def _calls(value: Any) -> Iterator[Function]:
    """Every function call in ``value``, nested ones included, whatever their arguments."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Function):
            yield item
            stack.append(item.args)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)


def _first(args: Any) -> Any:
    if isinstance(args, list | tuple):
        return args[0] if args else None
    return args


def _second(args: Any) -> Any:
    if isinstance(args, list | tuple) and len(args) > 1:
        return args[1]
    return None


class ChildTaint(NamedTuple):
    """What the child stack of one nested-stack resource gives its parent that derives
    from a hidden parameter (the child's own or one its parent handed down)."""

    outputs: frozenset[str] = frozenset()  # the child's outputs that derive from one
    names: frozenset[str] = frozenset()  # all the child's outputs
    inside: bool = False  # some resource of the child (a group's member) carries one

    @property
    def any(self) -> bool:
        return bool(self.outputs) or self.inside

    def reads(self, attribute: Any) -> bool:
        """Whether ``get_attr [resource, attribute]`` may carry a hidden value: an output
        by its name; anything else (``resource.x.y``, a group's member attributes,
        ``OS::Heat::Stack``'s ``outputs`` map, a computed name) when anything may."""
        if isinstance(attribute, str) and attribute in self.names:
            return attribute in self.outputs
        return self.any


@dataclass(slots=True, frozen=True)
class Taint:
    """What reaches a template from outside and derives from a hidden parameter."""

    parameters: frozenset[str] = frozenset()
    #: every property carries one (group members)
    resources: frozenset[str] = frozenset()
    #: by resource name
    children: Mapping[str, ChildTaint] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not (self.parameters or self.resources or any(c.any for c in self.children.values()))


NO_TAINT: Final = Taint()


#: the calls that read a parameter, a resource or an attribute: all a value's own
#: exposure depends on
_REFERENCES = (GetParam, Ref, GetResource, GetAttr, CfnGetAtt)


def _references(value: Any) -> tuple[Function, ...]:
    """The reference calls in ``value``, nested ones included, in `_calls`' order."""
    return tuple(call for call in _calls(value) if isinstance(call, _REFERENCES))


def _template_references(template: Template, value: Any) -> tuple[Function, ...]:
    """`_references` of a value that belongs to ``template`` (a resource's properties or
    metadata, an output's value), found once per template and value."""
    found = template.references.get(id(value))
    if found is None:
        found = template.references[id(value)] = _references(value)
    return found


def _reaches(
    value: Any, hidden: Collection[str], tainted: Collection[str], taint: Taint = NO_TAINT
) -> bool:
    """Whether ``value`` reads a hidden parameter, a tainted resource, or an attribute of a
    nested stack that carries a hidden value."""
    return _any_reaches(_references(value), hidden, tainted, taint)


def _any_reaches(
    calls: Iterable[Function],
    hidden: Collection[str],
    tainted: Collection[str],
    taint: Taint = NO_TAINT,
) -> bool:
    """`_reaches` of the reference calls of a value."""
    for call in calls:
        name = _first(call.args)
        if not isinstance(name, str):
            if hidden or not taint.empty:  # a computed name: it may be a hidden one
                return True
            continue
        if isinstance(call, GetParam | Ref) and name in hidden:
            return True
        child = taint.children.get(name)
        if child is not None and isinstance(call, GetAttr | CfnGetAtt):
            # the child stack knows which of its attributes carry a hidden value
            if child.reads(_second(call.args)):
                return True
            continue
        if not isinstance(call, GetParam) and name in tainted:
            return True
    return False


def hidden_names(template: Template, taint: Taint = NO_TAINT) -> set[str]:
    """The parameters whose values count as hidden: the template's own hidden ones, and
    those a parent fed with a value derived from its hidden parameters."""
    return hidden_parameters(template) | (set(taint.parameters) & set(template.parameters))


#: nested-stack types that copy their member definition's properties into the child
MEMBER_TYPES: Final = frozenset(
    {"OS::Heat::ResourceGroup", "OS::Heat::ResourceChain", "OS::Heat::AutoScalingGroup"}
)
INLINE_STACK: Final = "OS::Heat::Stack"


def handed_down(parent: Template, resource: str, taint: Taint, child: Template) -> Taint:
    """What ``child``, the nested stack of ``parent``'s ``resource``, receives that derives
    from a hidden parameter: a provider template the parameters fed by such properties; a
    group's or chain's members (their properties are copies) all of it; ``OS::Heat::Stack``
    every parameter when its ``parameters`` map carries one."""
    facade = parent.resources.get(resource)
    sensitive = sensitive_properties(parent, resource, taint)
    if facade is None or not sensitive:
        return NO_TAINT
    if facade.type in MEMBER_TYPES:
        return Taint(resources=frozenset(child.resources))
    if facade.type == INLINE_STACK:
        fed = frozenset(child.parameters) if "parameters" in sensitive else frozenset()
        return Taint(parameters=fed)
    return Taint(parameters=frozenset(sensitive))  # a provider: parameters are properties


def sensitive_outputs(template: Template, taint: Taint = NO_TAINT) -> set[str]:
    """Names of the outputs whose value may derive from a hidden parameter."""
    exposure = _exposure(template, taint)
    if exposure is None:
        return set()
    hidden, tainted = exposure
    return {
        n
        for n, output in template.outputs.items()
        if _any_reaches(_template_references(template, output.value), hidden, tainted, taint)
    }


def sensitive_properties(template: Template, resource: str, taint: Taint = NO_TAINT) -> set[str]:
    """Names of ``resource``'s properties whose value may derive from a hidden parameter."""
    exposure = _exposure(template, taint)
    if exposure is None:
        return set()
    hidden, tainted = exposure
    definition = template.resources.get(resource)
    if definition is None or not isinstance(definition.properties, dict):
        return set()
    if resource in taint.resources:
        return {str(name) for name in definition.properties}
    return {
        str(name)
        for name, value in definition.properties.items()
        if _any_reaches(_template_references(template, value), hidden, tainted, taint)
    }


#: what `_exposure` found, by the identities of the template and taint it looked at
#: (kept with them, so neither identity is taken by another object while kept)
_exposures: dict[
    tuple[int, int], tuple[Template, Taint, tuple[frozenset[str], frozenset[str]] | None]
] = {}
#: how many `_exposures` are kept, the oldest going first (a long-running engine's
#: templates come and go)
EXPOSURES_KEPT = 64


def _exposure(template: Template, taint: Taint) -> tuple[frozenset[str], frozenset[str]] | None:
    """The hidden parameters of ``template`` and the resources they reach, None when
    nothing can carry a hidden value. Finding the tainted resources walks the whole
    template (to a fixed point), and an operation asks once per resource: the answer is
    kept per template and taint (templates do not change once parsed, taints are
    frozen). A tree check asks about a parent's resources, then its children's, then
    the parent's again, so more than the last template asked about is kept."""
    key = (id(template), id(taint))
    kept = _exposures.get(key)
    if kept is not None and kept[0] is template and kept[1] is taint:
        return kept[2]
    hidden = hidden_names(template, taint)
    found = None
    if hidden or not taint.empty:
        found = frozenset(hidden), frozenset(_tainted(template, hidden, taint))
    if len(_exposures) >= EXPOSURES_KEPT:
        del _exposures[next(iter(_exposures))]
    _exposures[key] = (template, taint, found)
    return found


def child_taint(template: Template, taint: Taint = NO_TAINT) -> ChildTaint:
    """What ``template``, the child of a nested-stack resource, gives its parent."""
    inside = bool(sensitive_resources(template, taint)) or any(
        child.any for child in taint.children.values()
    )
    return ChildTaint(
        frozenset(sensitive_outputs(template, taint)), frozenset(template.outputs), inside
    )


def _tainted(template: Template, hidden: Collection[str], taint: Taint = NO_TAINT) -> set[str]:
    """The resources whose properties or metadata may carry a hidden parameter's value."""
    tainted: set[str] = set(taint.resources) & set(template.resources)
    changed = True
    while changed:  # to a fixed point: taint flows along references between resources
        changed = False
        for name, resource in template.resources.items():
            if name in tainted:
                continue
            calls = (
                *_template_references(template, resource.properties),
                *_template_references(template, resource.metadata),
            )
            if _any_reaches(calls, hidden, tainted, taint):
                tainted.add(name)
                changed = True
    return tainted


def hidden_parameters(template: Template) -> set[str]:
    return {name for name, parameter in template.parameters.items() if parameter.hidden}


def without_hidden(value: Any, hidden: set[str]) -> Any:
    """``value`` (unresolved template data) with every function call that reads a hidden
    parameter replaced, whole, by `SENSITIVE`; plain maps and lists keep their other parts.

    For displays of resolved templates (``template resolve``): a call is replaced rather
    than its value masked afterwards, so no string is ever searched for a secret.
    """
    if not hidden:
        return value
    if isinstance(value, Function):
        return SENSITIVE if _reaches(value, hidden, set()) else value
    if isinstance(value, dict):
        return {key: without_hidden(item, hidden) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [without_hidden(item, hidden) for item in value]
    return value


def withhold(
    found: Sequence[Diagnostic], base: Path, sensitive: Collection[str]
) -> list[Diagnostic]:
    """``found`` with the message of each finding about a property in ``sensitive`` (below
    ``base``, the resource's properties path) rebuilt without the value.

    Property checks quote the offending value, and a value read from a hidden parameter
    must not reach an event, a status reason or stderr; the finding is chosen by the
    property's name, never by searching its text for the secret.
    """
    if not sensitive:
        return list(found)
    depth = len(base)
    result = []
    for diagnostic in found:
        path = diagnostic.path
        if (
            len(path) > depth
            and tuple(path[:depth]) == tuple(base)
            and str(path[depth]) in sensitive
        ):
            message = (
                f"Property {path[depth]}: the value, read from a hidden parameter, is not "
                "valid here (not shown)"
            )
            diagnostic = replace(diagnostic, message=message, notes=())
        result.append(diagnostic)
    return result


def reads_hidden(value: Any, hidden: Collection[str]) -> bool:
    """Whether ``value`` (template data, calls included) reads a hidden parameter (see
    `hidden_names` for the parameters a parent fed with one)."""
    return bool(hidden) and _reaches(value, set(hidden), set())


def withhold_call(diagnostic: Diagnostic, function: Function) -> Diagnostic:
    """``diagnostic``, a failure of ``function`` on the values it was given, rebuilt
    without them: ``function`` reads a hidden parameter, and a function's message may
    quote its arguments (``Items to concat must be lists. [...]``). The call is chosen by
    what it reads, never by searching the message for the secret; path and position stay."""
    return replace(diagnostic, message=f"{function.name}: {_FAILS_ON_HIDDEN}", notes=())


#: how a call's failure reads when the call reads a hidden parameter (`withhold_call`,
#: `withheld_failure`)
_FAILS_ON_HIDDEN = "fails on a value read from a hidden parameter (not shown)"


def withheld_messages(messages: Sequence[str], sensitive: Collection[str]) -> list[str]:
    """A type's own property checks (messages without a path) for a resource whose
    properties read a hidden parameter: the messages may quote it, so one value-free
    message stands for them all."""
    if not sensitive or not messages:
        return list(messages)
    names = ", ".join(sorted(sensitive))
    return [f"Property error in {names}: a value read from a hidden parameter is not valid here"]


def sensitive_resources(template: Template, taint: Taint = NO_TAINT) -> set[str]:
    """Names of the resources whose properties or metadata may carry a hidden parameter's
    value (the template's own, or one the `Taint` says reached it): their attributes may
    carry it too (an ``OS::Heat::Value`` hands it back)."""
    exposure = _exposure(template, taint)
    return set() if exposure is None else set(exposure[1])


def withheld_failure(
    error: FunctionError, tree: Any, template: Template, taint: Taint = NO_TAINT
) -> FunctionError:
    """``error``, raised while resolving ``tree`` at run time, or the same failure (same
    path and place) rebuilt without values as `withhold_call` rebuilds a failure found
    before anything runs, when the call that failed reads a hidden parameter (the
    template's own, one the `Taint` says a parent fed, or a resource carrying one).

    A function's message quotes its arguments (an attribute name, a reference, the string
    it could not split), and those may be a hidden parameter's value. The call is found by
    the error's path among the calls in ``tree`` (the whole tree when the error carries
    none), and judged by what it reads, never by searching the message for the secret.
    """
    exposure = _exposure(template, taint)
    if exposure is None:
        return error
    hidden, tainted = exposure
    call: Any = tree
    if error.path:
        call = next((c for c in _calls(tree) if tuple(c.path) == tuple(error.path)), tree)
    if not _reaches(call, hidden, tainted, taint):
        return error
    name = call.name if isinstance(call, Function) else "a function"
    return FunctionError(f"{name}: {_FAILS_ON_HIDDEN}", error.path, error.span)


def shown_template(data: Any, template: Template, taint: Taint = NO_TAINT) -> Any:
    """A stored template as ``stack template show`` prints it: unchanged, except the
    resources whose every property the `Taint` says carries a parent's hidden value (a
    group's or chain's members: the generated template holds the value itself, written
    in as a literal) show their properties and metadata as `SENSITIVE`. Chosen by the
    resource's place in the template, never by searching it for the secret. (A provider
    template holds no such literal: its values arrive as parameters, masked where shown.)"""
    masked_names = set(taint.resources) & set(template.resources)
    if not masked_names or not isinstance(data, dict):
        return data
    names = template.names
    resources = data.get(names.resources)
    if not isinstance(resources, dict):
        return data
    masked: dict[Any, Any] = {}
    for name, resource in resources.items():
        if isinstance(resource, dict) and name in masked_names:
            resource = {
                key: ({k: SENSITIVE for k in value} if isinstance(value, dict) else SENSITIVE)
                if key in (names.properties, names.metadata)
                else value
                for key, value in resource.items()
            }
        masked[name] = resource
    return {**data, names.resources: masked}
