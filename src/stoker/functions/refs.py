"""Functions that read the stack: parameters, resources, attributes, files, the facade.

These are the only functions that create dependencies between resources.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from stoker import codes
from stoker.diagnostics import Diagnostic
from stoker.functions.base import Context, Function, Scope, resolve


def navigate(value: Any, path: Sequence[Any], *, index_from_strings: bool) -> Any:
    """Follow map keys and list indexes; raises LookupError/TypeError/ValueError on failure."""
    for key in path:
        if type(value) is dict or isinstance(value, Mapping):  # a dict without the ABC's check
            value = value[key]
        elif isinstance(value, Sequence):
            # a string is a sequence for Heat too: get_param and get_attr paths index it
            # ('hello'[1] is 'e'; measured on 24.1.2)
            try:
                index = int(key) if index_from_strings else key
            except OverflowError:  # int(inf): as any other key that is no index
                raise ValueError(f"list index must be an integer, not {key!r}") from None
            if isinstance(index, bool) or not isinstance(index, int):
                raise TypeError(f"list index must be an integer, not {key!r}")
            value = value[index]
        else:
            raise TypeError(f"cannot look up {key!r} in {type(value).__name__}")
    return value


def _reference_errors(function: Function, name: str, scope: Scope) -> Iterator[Diagnostic]:
    """What is wrong with ``function``'s reference to the resource ``name`` (one finding
    at most)."""
    if name not in scope.resources:
        yield function.invalid(
            f'The specified reference "{name}" (in {_owner(function)}) is incorrect: there '
            "is no such resource",
            codes.UNKNOWN_RESOURCE,
        )
    elif name in scope.disabled_resources:
        yield function.invalid(
            f'The specified reference "{name}" (in {_owner(function)}) is incorrect: the '
            "resource's condition is false, so it does not exist",
            codes.UNKNOWN_RESOURCE,
        )


def _owner(function: Function) -> str:
    """The resource or output a call sits in, as Heat names it in reference errors."""
    if len(function.path) >= 2 and function.path[0] in ("resources", "Resources"):
        return str(function.path[1])
    return "unknown"  # Heat's word for outputs and anything else


def _enabled_resource(name: Any, scope: Scope) -> list[str]:
    if isinstance(name, str) and name in scope.resources and name not in scope.disabled_resources:
        return [str(name)]
    return []


def _first_argument_resource(args: Any, scope: Scope) -> list[str]:
    """The resource named by the first item of an attribute lookup, if it exists."""
    if isinstance(args, list) and args:
        return _enabled_resource(args[0], scope)
    return []


class GetParam(Function):
    """The value of a parameter, optionally navigated into: ``get_param: [name, key, 0]``."""

    def _parts(self) -> tuple[Any, list[Any]]:
        if isinstance(self.args, list):
            return (self.args[0] if self.args else None), list(self.args[1:])
        return self.args, []

    def structure(self, scope: Scope) -> Iterable[Diagnostic]:
        return ()  # Heat looks the parameter up only when it resolves the call

    def validate(self, scope: Scope) -> Iterable[Diagnostic]:
        if isinstance(self.args, list) and not self.args:
            yield self.invalid('Function "get_param" must have arguments')
            return
        name, _ = self._parts()
        if isinstance(name, Function):
            return
        if not isinstance(name, str):
            yield self.invalid(f"Parameter name must be a string, not {name!r}")
        elif name not in scope.parameters:
            yield self.invalid(
                f"The Parameter ({name}) was not defined in template.", codes.UNKNOWN_PARAMETER
            )

    def resolve(self, context: Context) -> Any:
        name, path = self._parts()
        name = resolve(name, context)
        if not isinstance(name, str):
            raise self.error(f"Parameter name must be a string, not {name!r}")
        value = context.parameter(name)
        if not path:
            return value
        try:
            return navigate(value, resolve(path, context), index_from_strings=True)
        except (LookupError, TypeError, ValueError):
            return ""  # Heat: any failure of the path gives an empty string


class GetResource(Function):
    """The reference id of a resource: ``get_resource: server``."""

    def structure(self, scope: Scope) -> Iterable[Diagnostic]:
        # Heat looks a resource name up only when it resolves the call, but a name that is
        # not a string (a list, a map) already breaks its dependency walk at validate.
        if not isinstance(self.args, Function | str):
            yield self.invalid(f"Resource name must be a string, not {self.args!r}")

    def validate(self, scope: Scope) -> Iterable[Diagnostic]:
        if isinstance(self.args, str):
            yield from _reference_errors(self, self.args, scope)
        else:
            yield from self.structure(scope)

    def dependencies(self, scope: Scope) -> Iterable[str]:
        return _enabled_resource(self.args, scope)

    def resolve(self, context: Context) -> Any:
        return context.reference(str(resolve(self.args, context)))


class GetAttr(Function):
    """An attribute of a resource: ``get_attr: [server, networks, private, 0]``.

    Options reflect the version matrix (heat-semantics §1.4 notes 1-3): ``path_to_resource``
    passes the path to the resource (so groups and nested stacks can interpret it) instead
    of walking it locally; ``all_attributes`` allows ``[res]`` alone.
    """

    def __init__(
        self,
        name: str,
        args: Any,
        *,
        path_to_resource: bool = True,
        all_attributes: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(name, args, **kwargs)
        self.path_to_resource = path_to_resource
        self.all_attributes = all_attributes
        if all_attributes and isinstance(args, str) and len(args) == 1:
            # Heat reads any sequence of one item as [resource_name], and a one-character
            # string is one (``get_attr: v`` gives all of v's attributes; measured on 24.1.2)
            self.args = [args]

    def validate(self, scope: Scope) -> Iterable[Diagnostic]:
        minimum = 1 if self.all_attributes else 2
        if not isinstance(self.args, list) or len(self.args) < minimum:
            yield self.invalid(
                f'Arguments to "{self.name}" must be a list of the form '
                "[resource_name, (attribute, (path), ...)]"
                if self.all_attributes
                else f'Arguments to "{self.name}" must be of the form '
                "[resource_name, attribute, (path), ...]"
            )
            return
        resource = self.args[0]
        if isinstance(resource, Function):
            return
        if not isinstance(resource, str):
            yield self.invalid(f"Resource name must be a string, not {resource!r}")
            return
        yield from _reference_errors(self, resource, scope)

    def dependencies(self, scope: Scope) -> Iterable[str]:
        return _first_argument_resource(self.args, scope)

    def resolve(self, context: Context) -> Any:
        args = resolve(self.args, context)
        if not isinstance(args, list) or not args:
            raise self.error(f'Arguments to "{self.name}" must be a list')
        resource = str(args[0])
        if len(args) == 1:
            return context.all_attributes(resource)
        attribute, path = args[1], tuple(args[2:])
        if self.path_to_resource:
            return context.attribute(resource, attribute, path)
        value = context.attribute(resource, attribute, ())
        try:
            return navigate(value, path, index_from_strings=False)
        except (LookupError, TypeError, ValueError):
            return None


class CfnGetAtt(Function):
    """CFN ``Fn::GetAtt: [resource, attribute]`` (exactly two arguments)."""

    def validate(self, scope: Scope) -> Iterable[Diagnostic]:
        if not isinstance(self.args, list) or len(self.args) != 2:
            yield self.invalid(
                'Arguments to "Fn::GetAtt" must be of the form [resource_name, attribute]'
            )
            return
        if isinstance(self.args[0], str):
            yield from _reference_errors(self, self.args[0], scope)

    def dependencies(self, scope: Scope) -> Iterable[str]:
        return _first_argument_resource(self.args, scope)

    def resolve(self, context: Context) -> Any:
        resource, attribute = resolve(self.args, context)
        return context.attribute(str(resource), attribute, ())


class Ref(Function):
    """CFN ``Ref: name``: a resource's reference id, else a parameter's value.

    In CFN conditions only parameters may be referenced (``parameters_only``).
    """

    def __init__(self, name: str, args: Any, *, parameters_only: bool = False, **kwargs: Any):
        super().__init__(name, args, **kwargs)
        self.parameters_only = parameters_only

    def structure(self, scope: Scope) -> Iterable[Diagnostic]:
        return ()  # Heat looks the name up only when it resolves the call

    def validate(self, scope: Scope) -> Iterable[Diagnostic]:
        if not isinstance(self.args, str):
            yield self.invalid(f'Argument to "{self.name}" must be a string')
            return
        if not self.parameters_only and self.args in scope.resources:
            yield from _reference_errors(self, self.args, scope)
        elif self.args not in scope.parameters:
            what = "parameter" if self.parameters_only else "resource or parameter"
            yield self.invalid(
                f'The specified reference "{self.args}" (in {_owner(self)}) is incorrect: '
                f"there is no such {what}",
                codes.UNKNOWN_RESOURCE,
            )

    def dependencies(self, scope: Scope) -> Iterable[str]:
        return [] if self.parameters_only else _enabled_resource(self.args, scope)

    def resolve(self, context: Context) -> Any:
        name = str(resolve(self.args, context))
        if not self.parameters_only and context.has_resource(name):
            return context.reference(name)
        return context.parameter(name)


class GetFile(Function):
    """The content of a file from the files map: ``get_file: scripts/setup.sh``."""

    def structure(self, scope: Scope) -> Iterable[Diagnostic]:
        return ()  # Heat looks the file up only when it resolves the call

    def validate(self, scope: Scope) -> Iterable[Diagnostic]:
        if not isinstance(self.args, str):
            yield self.invalid('Argument to "get_file" must be a string (a path or URL)')
            return
        files = scope.files
        known = files is not None and self.args not in scope.unread_files
        if known and files is not None and self.args not in files:
            yield self.invalid(
                f'No content found in the "files" section for get_file path: {self.args}',
                codes.FILE_MISSING,
            )

    def resolve(self, context: Context) -> Any:
        return context.file(str(resolve(self.args, context)))


class ResourceFacade(Function):
    """Data of the facade resource in the parent template, inside a provider template."""

    KINDS = ("metadata", "deletion_policy", "update_policy")

    def __init__(self, name: str, args: Any, *, cfn: bool = False, **kwargs: Any) -> None:
        super().__init__(name, args, **kwargs)
        self.kinds = ("Metadata", "DeletionPolicy", "UpdatePolicy") if cfn else self.KINDS

    def validate(self, scope: Scope) -> Iterable[Diagnostic]:
        if self.args not in self.kinds:
            yield self.invalid(f'Argument to "{self.name}" must be one of: {", ".join(self.kinds)}')

    def resolve(self, context: Context) -> Any:
        kind = self.KINDS[self.kinds.index(self.args)]
        return context.facade(kind)


class GetAZs(Function):
    """CFN ``Fn::GetAZs``: the availability zones (its argument is ignored)."""

    def children(self, scope: Scope | None) -> Iterable[Any]:
        return ()

    def resolve(self, context: Context) -> Any:
        return context.availability_zones()
