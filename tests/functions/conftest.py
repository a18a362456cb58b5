"""Shared helpers for the function tests: a dict-backed `Context` and parse/validate/resolve.

Test data is plain Python (no source positions). `evaluate` runs the three steps the engine
runs: parse with the version's function table, validate with a `Scope`, resolve with a
context. Test modules import these helpers relatively (``from .conftest import ...``), so
the folder is a package.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from stoker.diagnostics import Diagnostic
from stoker.errors import FunctionError
from stoker.functions.base import Parser, Scope, resolve, validate_tree
from stoker.functions.tables import table_for
from stoker.template.versions import ALL_VERSIONS, HOT_VERSIONS, TemplateVersion


@dataclass
class DictContext:
    """A `Context` over plain dicts; unknown names fail the way Heat's do."""

    parameters: dict[str, Any] = field(default_factory=dict)
    resources: dict[str, str] = field(default_factory=dict)  # name -> reference id
    attributes: dict[str, dict[str, Any]] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    conditions: dict[str, bool] = field(default_factory=dict)
    mappings: dict[str, Any] = field(default_factory=dict)
    stack_name: str | None = "teststack"
    stack_id: str | None = "4f1b1f5e-0000-0000-0000-000000000000"
    project_id: str | None = "project"

    def parameter(self, name: str) -> Any:
        if name not in self.parameters:
            raise FunctionError(f"The Parameter ({name}) was not provided.")
        return self.parameters[name]

    def has_resource(self, name: str) -> bool:
        return name in self.resources

    def reference(self, resource: str) -> Any:
        if resource not in self.resources:
            raise FunctionError(f'The specified reference "{resource}" (in unknown) is incorrect.')
        return self.resources[resource]

    def attribute(self, resource: str, attribute: str, path: tuple[Any, ...]) -> Any:
        value: Any = self.attributes[resource][attribute]
        for key in path:
            value = value[key]
        return value

    def all_attributes(self, resource: str) -> Any:
        return dict(self.attributes[resource])

    def file(self, key: str) -> str:
        if key not in self.files:
            raise FunctionError(f'No content found in the "files" section for get_file path: {key}')
        return self.files[key]

    def condition(self, name: str) -> bool:
        if name not in self.conditions:
            raise FunctionError(f'Invalid condition "{name}"')
        return self.conditions[name]

    def facade(self, kind: str) -> Any:
        raise FunctionError("resource_facade is only available in provider templates")

    def availability_zones(self) -> list[str]:
        return ["nova"]

    def mapping(self, name: str) -> Any:
        if name not in self.mappings:
            raise FunctionError(f'There is no mapping "{name}" in Mappings')
        return self.mappings[name]


_UNSET: Any = object()


@dataclass
class Outcome:
    """What happened to one expression: parse warnings, validation findings, value or error."""

    warnings: list[Diagnostic]
    findings: list[Diagnostic]
    value: Any = None
    error: str | None = None

    @property
    def codes(self) -> list[str]:
        return sorted(d.code for d in self.findings)

    def expect(
        self, value: Any = _UNSET, *, error: str | None = None, codes: tuple[str, ...] = ()
    ) -> None:
        """Assert the findings' codes, then either the error (a substring) or the value."""
        assert self.codes == sorted(codes), [d.render() for d in self.findings]
        if error is not None:
            assert self.error is not None, f"expected an error, got the value {self.value!r}"
            assert error in self.error, self.error
            return
        assert self.error is None, self.error
        if value is not _UNSET:
            assert self.value == value
            assert type(self.value) is type(value), (type(self.value), type(value))


def scope_for(version: TemplateVersion, context: DictContext, **overrides: Any) -> Scope:
    """The static scope matching ``context`` (declared names; condition values unknown)."""
    options: dict[str, Any] = {
        "version": version,
        "resources": {name: "OS::Heat::None" for name in context.resources},
        "parameters": frozenset(context.parameters),
        "conditions": frozenset(context.conditions),
        "mappings": context.mappings,
        "files": context.files,
    }
    options.update(overrides)
    return Scope(**options)


def evaluate(
    version: TemplateVersion,
    data: Any,
    *,
    condition: bool = False,
    scope: dict[str, Any] | None = None,
    **context_fields: Any,
) -> Outcome:
    """Parse, validate and resolve ``data`` as an output value of a ``version`` template.

    With ``condition`` it is parsed as a condition definition instead; ``scope`` overrides
    fields of the `Scope`; other keywords are `DictContext` fields.
    """
    context = DictContext(**context_fields)
    parser = Parser(table_for(version))
    if condition:
        tree = parser.parse_condition(data, ("conditions", "cond"))
    else:
        tree = parser.parse(data, ("outputs", "out", "value"))
    findings = validate_tree(tree, scope_for(version, context, **(scope or {})))
    outcome = Outcome(parser.diagnostics, findings)
    try:
        outcome.value = resolve(tree, context)
    except FunctionError as exc:
        outcome.error = exc.message
    return outcome


def having(name: str) -> list[TemplateVersion]:
    """Every version (HOT and CFN) in which ``name`` is a function."""
    return [v for v in ALL_VERSIONS if name in table_for(v).functions]


def hot_range(first: str, last: str = "9999") -> list[TemplateVersion]:
    """The HOT versions from ``first`` to ``last`` inclusive."""
    return [v for v in HOT_VERSIONS if first <= v.value <= last]


def pytest_make_parametrize_id(config: pytest.Config, val: object, argname: str) -> str | None:
    """Readable test ids for template versions: ``2015-10-15``, ``cfn-2010-09-09``."""
    if isinstance(val, TemplateVersion):
        return val.value if val.format == "hot" else f"cfn-{val.value}"
    return None


def case(id: str, data: Any, *, ctx: dict[str, Any] | None = None, **expected: Any) -> Any:
    """One table row: ``data`` evaluated with context fields ``ctx`` gives ``expected``
    (keywords of `Outcome.expect`: ``value``, or ``error`` and ``codes``)."""
    return pytest.param(data, ctx or {}, expected, id=id)
