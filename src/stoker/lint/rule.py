"""What a lint rule is: a stable id, a severity, its documentation, and one check.

Rules are small classes whose metadata is data (class attributes), so ``--list-rules``,
``--explain``, SARIF's rule table and ``docs/rules.md`` all read the same facts. A rule
never parses anything: it reads the contexts the runner built once per file and package.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import TYPE_CHECKING, ClassVar, NamedTuple, Protocol

from stoker.diagnostics import Diagnostic, Path, Severity, Span

if TYPE_CHECKING:
    from stoker.lint.context import (
        EnvironmentContext,
        FileContext,
        PackageContext,
        TemplateContext,
    )


class Located(Protocol):
    """Something read from a file that knows where: its span and its path."""

    @property
    def span(self) -> Span | None: ...
    @property
    def path(self) -> Path: ...


class Profile(StrEnum):
    """A named set of rules; ``--profile`` (or the config file) picks which run."""

    DEFAULT = "default"  # any Heat template
    ONAP = "onap"  # ONAP's VNF Heat requirements


class Scope(StrEnum):
    """What a rule looks at, which decides the context it is given."""

    FILE = "file"  # any file: templates, environments, files that did not load
    TEMPLATE = "template"
    ENVIRONMENT = "environment"
    PACKAGE = "package"  # all files of one input (directory, zip, or the files named)


class SourceKind(StrEnum):
    HOT_SPEC = "HOT specification"
    HEAT = "Heat behaviour"
    ONAP = "ONAP requirement"
    STOKER = "stoker"  # stoker's own advice or machinery


class Source(NamedTuple):
    """Where a rule comes from: a spec section, a Heat code path, an ONAP requirement id."""

    kind: SourceKind
    reference: str

    def __str__(self) -> str:
        return f"{self.kind.value}: {self.reference}"


SEVERITY_RANK = {Severity.INFO: 0, Severity.WARNING: 1, Severity.ERROR: 2}


def at_or_above(severity: Severity, level: Severity) -> bool:
    return SEVERITY_RANK[severity] >= SEVERITY_RANK[level]


class Rule:
    """Metadata shared by every rule; subclasses pick a scope by their base class."""

    id: ClassVar[str]
    severity: ClassVar[Severity]
    summary: ClassVar[str]  # one line
    explanation: ClassVar[str]  # what it checks, why, and how to fix it
    source: ClassVar[Source]
    profiles: ClassVar[frozenset[Profile]] = frozenset({Profile.DEFAULT})
    scope: ClassVar[Scope]

    def finding(self, message: str, span: Span | None, path: Path = ()) -> Diagnostic:
        """A finding of this rule at ``span`` (the offending key or value)."""
        return Diagnostic(self.id, message, path, span, self.severity)

    def finding_at(self, message: str, node: Located) -> Diagnostic:
        """A finding at a node that knows where it is written (a resource, a call ...)."""
        return Diagnostic(self.id, message, node.path, node.span, self.severity)


class FileRule(Rule):
    """Runs on every file: template, environment, or one that could not be loaded."""

    scope = Scope.FILE

    def check(self, ctx: FileContext) -> Iterable[Diagnostic]:
        raise NotImplementedError


class TemplateRule(Rule):
    """Runs on every template that loaded."""

    scope = Scope.TEMPLATE

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        raise NotImplementedError


class EnvironmentRule(Rule):
    """Runs on every environment file that loaded."""

    scope = Scope.ENVIRONMENT

    def check(self, ctx: EnvironmentContext) -> Iterable[Diagnostic]:
        raise NotImplementedError


class PackageRule(Rule):
    """Runs once per package, seeing all its templates and environments together."""

    scope = Scope.PACKAGE

    def check(self, ctx: PackageContext) -> Iterable[Diagnostic]:
        raise NotImplementedError
