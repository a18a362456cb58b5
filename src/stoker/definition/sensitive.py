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
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from dataclasses import replace
from typing import Any, Final

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


def _reaches(value: Any, hidden: set[str], tainted: set[str]) -> bool:
    """Whether ``value`` reads a hidden parameter or a tainted resource."""
    for call in _calls(value):
        if isinstance(call, GetParam | Ref | GetResource | GetAttr | CfnGetAtt):
            name = _first(call.args)
            if not isinstance(name, str):
                if hidden:  # a computed name: it may be a hidden one
                    return True
                continue
            if isinstance(call, GetParam | Ref) and name in hidden:
                return True
            if not isinstance(call, GetParam) and name in tainted:
                return True
    return False


def carrying_secrets(template: Template) -> Template:
    """A copy of the template of a nested stack whose facade's properties read a hidden
    parameter of the stack above (or that is itself nested below such a facade), marked
    so (a copy: provider templates are parsed once and shared by every facade).

    Such a value reaches the child as a plain parameter (a provider template's ``p``, not
    declared hidden) or as a literal in a generated template (a group's members), so the
    child cannot tell which of its values carry it: every parameter is hidden, and every
    property, attribute, output and failure counts as derived from one.
    """
    hidden = {name: replace(p, hidden=True) for name, p in template.parameters.items()}
    return replace(template, parameters=hidden, carries_secrets=True)


def sensitive_outputs(template: Template) -> set[str]:
    """Names of the outputs whose value may derive from a hidden parameter."""
    if template.carries_secrets:
        return set(template.outputs)
    hidden = hidden_parameters(template)
    if not hidden:
        return set()
    tainted = _tainted(template, hidden)
    return {n for n, output in template.outputs.items() if _reaches(output.value, hidden, tainted)}


def sensitive_properties(template: Template, resource: str) -> set[str]:
    """Names of ``resource``'s properties whose value may derive from a hidden parameter."""
    hidden = hidden_parameters(template)
    definition = template.resources.get(resource)
    if definition is None or not isinstance(definition.properties, dict):
        return set()
    if template.carries_secrets:
        return {str(name) for name in definition.properties}
    if not hidden:
        return set()
    tainted = _tainted(template, hidden)
    return {
        str(name)
        for name, value in definition.properties.items()
        if _reaches(value, hidden, tainted)
    }


def _tainted(template: Template, hidden: set[str]) -> set[str]:
    """The resources whose properties or metadata may carry a hidden parameter's value."""
    tainted: set[str] = set()
    changed = True
    while changed:  # to a fixed point: taint flows along references between resources
        changed = False
        for name, resource in template.resources.items():
            if name in tainted:
                continue
            if _reaches(resource.properties, hidden, tainted) or _reaches(
                resource.metadata, hidden, tainted
            ):
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


def withheld_messages(messages: Sequence[str], sensitive: Collection[str]) -> list[str]:
    """A type's own property checks (messages without a path) for a resource whose
    properties read a hidden parameter: the messages may quote it, so one value-free
    message stands for them all."""
    if not sensitive or not messages:
        return list(messages)
    names = ", ".join(sorted(sensitive))
    return [f"Property error in {names}: a value read from a hidden parameter is not valid here"]


def sensitive_resources(template: Template) -> set[str]:
    """Names of the resources whose properties or metadata may carry a hidden parameter's
    value: their attributes may carry it too (an ``OS::Heat::Value`` hands it back)."""
    if template.carries_secrets:
        return set(template.resources)
    hidden = hidden_parameters(template)
    return _tainted(template, hidden) if hidden else set()


def withheld_failure(error: FunctionError, tree: Any, template: Template) -> FunctionError:
    """``error`` raised while resolving ``tree``, or the same failure (same path and place)
    with a value-free message when the call that failed reads a hidden parameter.

    A function's message quotes its arguments (an attribute name, a reference, the string
    it could not split), and those may be a hidden parameter's value. The call is found by
    the error's path among the calls in ``tree`` (the whole tree when the error carries
    none), and judged by what it reads, never by searching the message for the secret.
    """
    hidden = hidden_parameters(template)
    if not hidden and not template.carries_secrets:
        return error
    call: Any = tree
    if error.path:
        call = next((c for c in _calls(tree) if tuple(c.path) == tuple(error.path)), tree)
    if not template.carries_secrets and not _reaches(call, hidden, _tainted(template, hidden)):
        return error
    name = call.name if isinstance(call, Function) else "a function"
    message = f"{name}: a value read from a hidden parameter is not valid here (not shown)"
    return FunctionError(message, error.path, error.span)


def shown_template(data: Any, template: Template) -> Any:
    """A stored template as ``stack template show`` prints it: unchanged, except that a
    nested stack fed a hidden value (`carrying_secrets`) shows each resource's properties
    and metadata as `SENSITIVE`, since a generated template (a group's members) holds the
    value itself, written in as a literal. Chosen by the resource's place in the
    template, never by searching it for the secret."""
    if not template.carries_secrets or not isinstance(data, dict):
        return data
    names = template.names
    resources = data.get(names.resources)
    if not isinstance(resources, dict):
        return data
    masked: dict[Any, Any] = {}
    for name, resource in resources.items():
        if isinstance(resource, dict):
            resource = {
                key: ({k: SENSITIVE for k in value} if isinstance(value, dict) else SENSITIVE)
                if key in (names.properties, names.metadata)
                else value
                for key, value in resource.items()
            }
        masked[name] = resource
    return {**data, names.resources: masked}
