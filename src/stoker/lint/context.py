"""What rules read: one context per file and one per package, built once per run.

A template's context holds the same objects ``stoker template validate`` builds (the loaded
document with positions, the parsed `Template`, the merged environment, the
`StackDefinition`) and the findings validation made; facts several rules need (which
parameters are used, what each resource's type resolves to) are computed on first use
and shared.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from enum import StrEnum
from functools import cached_property
from typing import Any

from stoker.definition import StackDefinition, Template, TemplateReads
from stoker.diagnostics import Diagnostic, Span
from stoker.environment import Environment
from stoker.functions.base import Function
from stoker.lint.inputs import Package, SourceFile
from stoker.lint.onap.modules import ModuleRole, PackageLayout
from stoker.lint.providers import ProviderLoader
from stoker.lint.resolution import ResourceType, resolve_resource_types
from stoker.lint.usage import used_parameters
from stoker.template.loader import Document
from stoker.template.nodes import span_of


class FileKind(StrEnum):
    TEMPLATE = "template"
    ENVIRONMENT = "environment"
    UNREADABLE = "unreadable"  # did not load (syntax, encoding, size ...)


class FileContext:
    """One file of a package, and the findings loading and validating it produced.

    The contexts are plain classes, not dataclasses: creating a dataclass compiles its
    generated methods when the module is imported (paid by every lint), and
    nothing compares contexts or prints them."""

    def __init__(
        self,
        source: SourceFile,
        package: PackageContext,
        kind: FileKind,
        document: Document | None = None,
        core: list[Diagnostic] | None = None,
        directives: dict[int, frozenset[str]] | None = None,
    ) -> None:
        self.source = source
        self.package = package
        self.kind = kind
        self.document = document
        self.core = [] if core is None else core
        #: line -> ids silenced by a ``# stoker-lint: ignore=...`` comment on that line
        self.directives = {} if directives is None else directives
        #: facts rules work out once and share (a template's servers, ports ...), by a key
        #: naming the module that computes them; dropped with the file
        self.memo: dict[str, Any] = {}

    @property
    def name(self) -> str:
        return self.source.name

    @cached_property
    def core_by_code(self) -> dict[str, list[Diagnostic]]:
        grouped: dict[str, list[Diagnostic]] = defaultdict(list)
        for diagnostic in self.core:
            grouped[diagnostic.code].append(diagnostic)
        return grouped

    def core_findings(self, code: str) -> list[Diagnostic]:
        """What validation reported under ``code`` for this file."""
        return self.core_by_code.get(code, [])

    @property
    def start(self) -> Span:
        """Where a finding about the file as a whole points: its first node, else 1:1."""
        return span_of(self.data) or Span(self.name, 1, 1)

    @property
    def data(self) -> Any:
        return self.document.data if self.document is not None else None


class EnvironmentContext(FileContext):
    """An environment file; the workspace sets what parsing it made of it."""

    environment: Environment


class TemplateContext(FileContext):
    """A template; the workspace sets what parsing and defining it make of it."""

    template: Template | None = None
    definition: StackDefinition | None = None
    environments: Sequence[EnvironmentContext] = ()
    #: a template by name (ONAP) whose version Heat rejects: those errors, Heat's whole
    #: answer; ``template`` is then its sections read as the latest HOT version
    version_problems: Sequence[Diagnostic] = ()

    @property
    def parsed(self) -> Template:
        assert self.template is not None, "template rules run only on loaded templates"
        return self.template

    @property
    def stack(self) -> StackDefinition:
        assert self.definition is not None, "template rules run only on loaded templates"
        return self.definition

    @property
    def environment(self) -> Environment:
        return self.stack.environment

    @cached_property
    def calls_by_name(self) -> dict[str, list[Function]]:
        """Every function call of the template (all branches), by function name."""
        grouped: dict[str, list[Function]] = defaultdict(list)
        for call in self.parsed.calls:
            grouped[call.name].append(call)
        return grouped

    def calls(self, *names: str) -> list[Function]:
        found: list[Function] = []
        for name in names:
            found.extend(self.calls_by_name.get(name, ()))
        return found

    @cached_property
    def used_parameters(self) -> frozenset[str] | None:
        """Parameters some function reads; None when a name is computed (cannot be known)."""
        return used_parameters(self)

    @cached_property
    def resource_types(self) -> dict[str, ResourceType]:
        """What each resource's type resolves to (catalog type, provider template, unknown)."""
        return resolve_resource_types(self)

    @property
    def role(self) -> ModuleRole:
        """ONAP's classification of this template within its package."""
        return self.package.layout.role(self)


class PackageContext:
    """All files of one input, with what they loaded as (a plain class: see
    `FileContext`)."""

    def __init__(
        self,
        package: Package,
        providers: ProviderLoader,
        problems: list[Diagnostic] | None = None,
    ) -> None:
        self.package = package
        self.providers = providers
        self.templates: list[TemplateContext] = []
        self.environments: list[EnvironmentContext] = []
        self.unreadable: list[FileContext] = []
        #: files found but not linted (content read by get_file), with the reason
        self.skipped: list[tuple[SourceFile, str]] = []
        self.problems = [] if problems is None else problems
        #: facts rules work out once per package (see `FileContext.memo`)
        self.memo: dict[str, Any] = {}
        #: the templates read from disk for what the client would send, once per package
        self.reads = TemplateReads()

    @property
    def name(self) -> str:
        return self.package.name

    @property
    def files(self) -> list[FileContext]:
        everything: list[FileContext] = [*self.templates, *self.environments, *self.unreadable]
        return sorted(everything, key=lambda ctx: ctx.source.relpath)

    @cached_property
    def layout(self) -> PackageLayout:
        """ONAP's view of the package: module roles and environment pairs."""
        return PackageLayout.of(self)

    def release(self) -> None:
        """Drop the files once the rules have run.

        Each file points back at its package, so a package and everything loaded for it
        form a reference cycle: left alone, a run's documents wait for a full collection
        of the cyclic collector, which walks every live object (Heat's catalog included).
        """
        for unit in (*self.templates, *self.environments, *self.unreadable):
            unit.__dict__.clear()
        self.templates.clear()
        self.environments.clear()
        self.unreadable.clear()
        self.__dict__.pop("layout", None)
        self.memo.clear()
        self.reads = TemplateReads()
        self.providers.release()
