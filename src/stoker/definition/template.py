"""A parsed template: its version, and each section as typed definitions with positions
(read from a document by `stoker.definition.template_parser`).

Parsing never stops at the first problem: every finding goes to ``Template.diagnostics``
and the definitions hold whatever could be understood, so one run reports everything.
HOT and CFN share this model; the version's key names (heat-semantics §1.3) pick which
spelling a section or definition key has.
"""

from __future__ import annotations

from typing import Any

from stoker.diagnostics import Diagnostic, Path, Span
from stoker.functions.base import Function, FunctionTable
from stoker.parameters import Parameter, ParameterGroup
from stoker.records import NamedRecord, Record
from stoker.template.loader import Document
from stoker.template.versions import (
    TemplateVersion,
)

_DELETION_POLICIES = ("Delete", "Retain", "Snapshot")


class Names(NamedRecord):
    """How one format spells the section and definition keys: two constant tables, so a
    named tuple (a frozen, slotted dataclass of 15 fields is costlier to create at import,
    Python compiling its generated methods; every process parsing a template pays it)."""

    description: str
    parameters: str
    parameter_groups: str | None
    resources: str
    outputs: str
    conditions: str
    mappings: str | None
    type: str
    properties: str
    metadata: str
    depends_on: str
    deletion_policy: str
    update_policy: str
    condition: str
    value: str


HOT_NAMES = Names(
    "description",
    "parameters",
    "parameter_groups",
    "resources",
    "outputs",
    "conditions",
    None,
    "type",
    "properties",
    "metadata",
    "depends_on",
    "deletion_policy",
    "update_policy",
    "condition",
    "value",
)
CFN_NAMES = Names(
    "Description",
    "Parameters",
    None,
    "Resources",
    "Outputs",
    "Conditions",
    "Mappings",
    "Type",
    "Properties",
    "Metadata",
    "DependsOn",
    "DeletionPolicy",
    "UpdatePolicy",
    "Condition",
    "Value",
)


class ResourceDefinition(NamedRecord):
    """One entry of the resources section, with its function trees parsed."""

    name: str
    type: str
    properties: Any
    metadata: Any
    depends_on: tuple[str, ...]
    deletion_policy: Any
    update_policy: Any
    description: str
    condition: Any  # None when unconditional
    external_id: Any
    path: Path
    span: Span | None
    depends_on_spans: tuple[Span | None, ...] = ()


class OutputDefinition(NamedRecord):
    name: str
    value: Any
    description: str
    condition: Any
    path: Path
    span: Span | None


class Template(Record):
    """Everything a template says, parsed once and shared by validation, resolve and lint.
    A `stoker.records` record (compared by value; not a dataclass, which every process
    that reads a template would compile at import)."""

    __slots__ = (
        "document",
        "version",
        "table",
        "names",
        "description",
        "parameters",
        "parameter_groups",
        "conditions",
        "condition_spans",
        "resources",
        "outputs",
        "mappings",
        "capabilities",
        "diagnostics",
        "calls",
    )

    def __init__(
        self,
        document: Document,
        version: TemplateVersion,
        table: FunctionTable,
        names: Names,
        description: Any = "No description",  # usually a string; Heat accepts any value
        parameters: dict[str, Parameter] | None = None,
        parameter_groups: list[ParameterGroup] | None = None,
        conditions: dict[str, Any] | None = None,
        condition_spans: dict[str, Span | None] | None = None,
        resources: dict[str, ResourceDefinition] | None = None,
        outputs: dict[str, OutputDefinition] | None = None,
        mappings: dict[str, Any] | None = None,
        # name -> values; ``resource_type`` lists the types the template can stand in for
        capabilities: dict[str, list[str]] | None = None,
        diagnostics: list[Diagnostic] | None = None,
        calls: list[Function] | None = None,  # every function call parsed
    ) -> None:
        self.document = document
        self.version = version
        self.table = table
        self.names = names
        self.description = description
        self.parameters: dict[str, Parameter] = {} if parameters is None else parameters
        self.parameter_groups: list[ParameterGroup] = (
            [] if parameter_groups is None else parameter_groups
        )
        self.conditions: dict[str, Any] = {} if conditions is None else conditions
        self.condition_spans: dict[str, Span | None] = (
            {} if condition_spans is None else condition_spans
        )
        self.resources: dict[str, ResourceDefinition] = {} if resources is None else resources
        self.outputs: dict[str, OutputDefinition] = {} if outputs is None else outputs
        self.mappings: dict[str, Any] = {} if mappings is None else mappings
        self.capabilities: dict[str, list[str]] = {} if capabilities is None else capabilities
        self.diagnostics: list[Diagnostic] = [] if diagnostics is None else diagnostics
        self.calls: list[Function] = [] if calls is None else calls

    def calls_of(self, name: str) -> list[Function]:
        """Every call of the function ``name`` anywhere in the template (all branches)."""
        return [call for call in self.calls if call.name == name]

    @property
    def file(self) -> str:
        return self.document.file

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.is_error]
