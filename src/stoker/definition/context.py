"""Resolving functions without an engine: everything but live resources is known.

`StaticContext` answers parameters, pseudo parameters, files, mappings and conditions;
asking for a resource's reference or attribute raises `Unresolved`, so callers can show
the expression instead of a value (``stoker template resolve``) or skip it (validate).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any
from urllib.parse import quote

from stoker.definition.conditions import ConditionEvaluator
from stoker.errors import FunctionError
from stoker.functions.base import OMIT, Function, Unresolved, resolve, resolve_call
from stoker.functions.conditions import If

HOT_PSEUDO = ("OS::stack_name", "OS::stack_id", "OS::project_id")
CFN_PSEUDO = ("AWS::StackName", "AWS::StackId", "AWS::Region")
DEFAULT_REGION = "ap-southeast-1"

#: where Fn::GetAZs finds the zones: a chosen cloud's Nova (see `zones_from`); without
#: one there is nothing to ask (a running stack fails the call as Heat does without Nova)
_ZONES: ContextVar[Callable[[], list[str]] | None] = ContextVar("stoker_zones", default=None)


@contextmanager
def zones_from(source: Callable[[], list[str]]) -> Iterator[None]:
    """Within this block Fn::GetAZs answers ``source()`` (a stack command with a cloud
    chosen asks its Nova)."""
    token = _ZONES.set(source)
    try:
        yield
    finally:
        _ZONES.reset(token)


def chosen_zones() -> list[str] | None:
    """The chosen cloud's zones, or None when no cloud is chosen."""
    source = _ZONES.get()
    return source() if source is not None else None


def stack_arn(project: str, stack_name: str, stack_id: str) -> str:
    """A stack's ARN-style identifier, the form Heat gives ``AWS::StackId`` and the
    reference of a provider resource (project and name URL-quoted, as Heat does)."""
    return f"arn:openstack:heat::{quote(project, '')}:stacks/{quote(stack_name, '')}/{stack_id}"


class StaticContext:
    """A `Context` for evaluating functions before any resource exists."""

    def __init__(
        self,
        *,
        parameters: Mapping[str, Any],
        declared_parameters: frozenset[str],
        resources: frozenset[str],
        conditions: ConditionEvaluator,
        files: Mapping[str, str] | None = None,
        unread_files: frozenset[str] = frozenset(),
        mappings: Mapping[str, Any] | None = None,
        stack_name: str | None = None,
        stack_id: str | None = None,
        project_id: str | None = None,
        facade: Mapping[str, Any] | None = None,
    ) -> None:
        self.parameters = dict(parameters)
        self.facade_data = facade
        self.declared = declared_parameters
        self.resources = resources
        self.conditions = conditions
        self.files = files or {}
        self.unread_files = unread_files
        self.mappings = mappings or {}
        self.stack_name = stack_name
        self.stack_id = stack_id
        self.project_id = project_id

    def _pseudo(self, name: str) -> Any:
        values = {
            "OS::stack_name": self.stack_name,
            "AWS::StackName": self.stack_name,
            "OS::stack_id": self.stack_id,
            "OS::project_id": self.project_id,
            "AWS::StackId": (
                stack_arn(self.project_id, self.stack_name, self.stack_id)
                if self.stack_name and self.stack_id and self.project_id
                else None
            ),
            "AWS::Region": DEFAULT_REGION,
        }
        value = values[name]
        if value is None:
            raise Unresolved(f"{name} (known once the stack exists)")
        return value

    def parameter(self, name: str) -> Any:
        if name in self.parameters:  # a template declaring a pseudo-parameter's name wins
            return self.parameters[name]
        if name in self.declared and (name in HOT_PSEUDO or name in CFN_PSEUDO):
            # only the template format's own: a HOT template has no AWS::Region, a CFN one
            # no OS::stack_name (Heat: "was not provided" / an unknown reference)
            return self._pseudo(name)
        if name in self.declared:
            raise Unresolved(f"parameter {name} (no value given)")
        raise FunctionError(f"The Parameter ({name}) was not provided.")

    def has_resource(self, name: str) -> bool:
        return name in self.resources

    def reference(self, resource: str) -> Any:
        self._check_resource(resource)
        raise Unresolved(f"the reference id of {resource}")

    def attribute(self, resource: str, attribute: str, path: tuple[Any, ...]) -> Any:
        self._check_resource(resource)
        raise Unresolved(f"attribute {attribute} of {resource}")

    def all_attributes(self, resource: str) -> Any:
        self._check_resource(resource)
        raise Unresolved(f"the attributes of {resource}")

    def _check_resource(self, resource: str) -> None:
        if resource not in self.resources:
            raise FunctionError(f'The specified reference "{resource}" (in unknown) is incorrect.')

    def file(self, key: str) -> str:
        if key in self.files:
            return self.files[key]
        if key in self.unread_files:
            raise Unresolved(f"the content of {key} (not read)")
        raise FunctionError(f'No content found in the "files" section for get_file path: {key}')

    def condition(self, name: str) -> bool:
        return self.conditions.value(name, self)

    def facade(self, kind: str) -> Any:
        if self.facade_data is None:
            raise Unresolved(f"resource_facade {kind} (known inside a nested stack)")
        return self.facade_data.get(kind)

    def availability_zones(self) -> list[str]:
        zones = chosen_zones()
        if zones is None:  # nothing to ask before a stack runs: show the expression
            raise Unresolved("Fn::GetAZs (no cloud is chosen)")
        return zones

    def mapping(self, name: str) -> Any:
        if name in self.mappings:
            return self.mappings[name]
        raise FunctionError(f'Mapping "{name}" is not defined in the Mappings section')


def partial_resolve(value: Any, context: StaticContext) -> Any:
    """Resolve what can be resolved; a call that needs a live resource stays an expression.

    Arguments of an unresolved call are themselves resolved as far as possible, so the
    result shows exactly what is still missing.
    """
    if isinstance(value, Function):
        try:
            return resolve_call(value, context)
        except Unresolved:
            pass
        if isinstance(value, If):
            # Only the branch the condition selects exists; the other one may name
            # resources that do not (Heat does not even parse it).
            try:
                chosen = value.branch(context)
            except Unresolved:
                chosen = None
            if chosen is not None:
                return chosen if chosen is OMIT else partial_resolve(chosen, context)
        return {value.name: partial_resolve(value.args, context)}
    if isinstance(value, dict):
        entries = ((str(k), partial_resolve(v, context)) for k, v in value.items())
        return {k: v for k, v in entries if v is not OMIT}  # as resolve() drops them
    if isinstance(value, list):
        items = (partial_resolve(v, context) for v in value)
        return [item for item in items if item is not OMIT]
    return resolve(value, context)
