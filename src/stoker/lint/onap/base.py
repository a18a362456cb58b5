"""What every ONAP rule shares: its requirement (id, keyword -> severity) and its source."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import chain
from typing import TYPE_CHECKING, Any, ClassVar

from stoker.diagnostics import Diagnostic, Path, Span
from stoker.lint.onap.requirements import SOURCE_DOCUMENT, Requirement
from stoker.lint.onap.written import declared
from stoker.lint.rule import PackageRule, Profile, Source, SourceKind, TemplateRule
from stoker.template.nodes import value_span

if TYPE_CHECKING:
    from stoker.lint.context import PackageContext, TemplateContext

ONAP = frozenset({Profile.ONAP})


def onap_source(requirement: Requirement) -> Source:
    mode = requirement.validation_mode or "not given"
    document = SOURCE_DOCUMENT if requirement.quoted else "ONAP VNF Requirements"
    return Source(
        SourceKind.ONAP,
        f"{requirement.id} ({requirement.keyword}, validation_mode {mode}); "
        f"{document}, {requirement.section}",
    )


def explain(requirement: Requirement, checks: str) -> str:
    """The requirement's own words (or, beyond the seed, a summary), then what stoker
    checks for it."""
    said = requirement.text if requirement.quoted else f"In short: {requirement.text}"
    return f"{said} -- stoker checks: {checks}"


class FromRequirement:
    """A rule declared by the ONAP requirement it checks: ``id``, ``severity``, ``source``
    and ``explanation`` follow from ``requirement`` and the rule's ``checks`` text, so the
    four cannot drift apart (mix in before the rule kind: ``(FromRequirement,
    TemplateRule)``)."""

    requirement: ClassVar[Requirement]
    checks: ClassVar[str] = ""
    profiles = ONAP

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        req = cls.__dict__.get("requirement")
        if req is not None:
            declared = {
                "id": req.id,
                "severity": req.severity,
                "source": onap_source(req),
                "explanation": explain(req, cls.checks),
            }
            for name, value in declared.items():
                setattr(cls, name, value)


class OneSpelling(FromRequirement, PackageRule):
    """A vm-type or network role is written in one letter case across the package: each
    spelling that differs from the first is reported."""

    noun: ClassVar[str]

    def spellings(self, template: TemplateContext) -> Iterator[tuple[str, str, Span | None, Path]]:
        """(the name as written, what writes it, where, path) in one parsed template."""
        raise NotImplementedError

    def check(self, ctx: PackageContext) -> Iterable[Diagnostic]:
        first: dict[str, tuple[str, str]] = {}
        parsed = (template for template in ctx.templates if template.template is not None)
        for name, holder, span, path in chain.from_iterable(map(self.spellings, parsed)):
            seen = first.setdefault(name.lower(), (name, holder))
            if seen[0] != name:
                yield self.finding(
                    f'{holder} writes the {self.noun} "{name}", {seen[1]} writes "{seen[0]}"; '
                    f"a {self.noun} is written in one letter case",
                    span,
                    path,
                )


class ParameterReaders(FromRequirement, TemplateRule):
    """A rule about the parameters a template's resources read, each reported once, as
    its first reader reads it: what reads which parameter, and how a finding names it."""

    def readers(self, ctx: TemplateContext) -> Iterator[tuple[str, Any]]:
        """(parameter, what reads it) in template order."""
        raise NotImplementedError

    def reader(self, holder: Any) -> str:
        """How a finding names what reads the parameter: ``the image of server "x"``
        (built only for a finding)."""
        raise NotImplementedError


class DeclaredType(ParameterReaders):
    """The parameters something reads are declared with one of ``types``; each is
    reported once, as its first reader reads it, or (``once`` false) at every read (one
    not declared is another rule's)."""

    types: ClassVar[tuple[str, ...]] = ("string",)
    once: ClassVar[bool] = True

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        seen: set[str] = set()
        for parameter, holder in self.readers(ctx):
            declaration = declared(ctx, parameter)
            if declaration is None or parameter in seen:
                continue
            if self.once:
                seen.add(parameter)
            if "type" in declaration and declaration["type"] not in self.types:
                reader, kind = self.reader(holder), declaration["type"]
                yield self.finding(
                    f'parameter "{parameter}" ({reader}) has type {kind!r}; '
                    f"it must be {' or '.join(self.types)}",
                    value_span(declaration, "type"),
                    ("parameters", parameter, "type"),
                )
