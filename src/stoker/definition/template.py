"""A parsed template: its version, and each section as typed definitions with positions
(read from a document by `stoker.definition.template_parser`).

Parsing never stops at the first problem: every finding goes to ``Template.diagnostics``
and the definitions hold whatever could be understood, so one run reports everything.
HOT and CFN share this model; the version's key names (heat-semantics §1.3) pick which
spelling a section or definition key has.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from stoker.diagnostics import Diagnostic, Path, Span
from stoker.functions.base import Function, FunctionTable
from stoker.parameters import Parameter, ParameterGroup
from stoker.template.loader import Document
from stoker.template.versions import TemplateVersion, cfn_spelling

_DELETION_POLICIES = ("Delete", "Retain", "Snapshot")


class Names(NamedTuple):
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


# HOT spells each key as its field is named, CFN in CamelCase; only CFN has Mappings,
# only HOT parameter_groups.
HOT_NAMES = Names._make(None if name == "mappings" else name for name in Names._fields)
CFN_NAMES = Names._make(
    None if name == "parameter_groups" else cfn_spelling(name) for name in Names._fields
)


class ResourceDefinition(NamedTuple):
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


class OutputDefinition(NamedTuple):
    name: str
    value: Any
    description: str
    condition: Any
    path: Path
    span: Span | None


@dataclass(slots=True)
class Template:
    """Everything a template says, parsed once and shared by validation, resolve and lint;
    compared by value."""

    document: Document
    version: TemplateVersion
    table: FunctionTable
    names: Names
    description: Any = "No description"  # usually a string; Heat accepts any value
    parameters: dict[str, Parameter] = field(default_factory=dict)
    parameter_groups: list[ParameterGroup] = field(default_factory=list)
    conditions: dict[str, Any] = field(default_factory=dict)
    condition_spans: dict[str, Span | None] = field(default_factory=dict)
    resources: dict[str, ResourceDefinition] = field(default_factory=dict)
    outputs: dict[str, OutputDefinition] = field(default_factory=dict)
    mappings: dict[str, Any] = field(default_factory=dict)
    #: name -> values; ``resource_type`` lists the types the template can stand in for
    capabilities: dict[str, list[str]] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    calls: list[Function] = field(default_factory=list)  # every function call parsed
    #: the reference calls (`stoker.definition.sensitive`) under each of the template's
    #: values, by the value's id: the walk for hidden values asks about the same
    #: properties again for every stack of a tree that uses the template, and parsed
    #: values do not change (a copy made with `dataclasses.replace` starts empty)
    references: dict[int, tuple[Function, ...]] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )
    #: `stoker.definition.typos.misspelled_functions` of the template, found on the first
    #: check that reuses no earlier one: every stack made from a template (a provider's,
    #: checked and created once per resource that uses it) has the same ones
    misspelled: tuple[Diagnostic, ...] | None = field(
        default=None, init=False, compare=False, repr=False
    )
    #: `stoker.definition.stack.used_conditions` of the template, found once: each
    #: definition built on it asks twice (to evaluate and to validate its conditions),
    #: and a provider's template is defined for every stack made from it
    conditions_used: frozenset[str] | None = field(
        default=None, init=False, compare=False, repr=False
    )

    def calls_of(self, name: str) -> list[Function]:
        """Every call of the function ``name`` anywhere in the template (all branches)."""
        return [call for call in self.calls if call.name == name]

    @property
    def file(self) -> str:
        return self.document.file

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.is_error]
