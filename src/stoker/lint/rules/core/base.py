"""A rule that reports what loading and validation found under one code.

Validation runs once per file (the runner builds it into the file's context); each code
rule hands on the findings with its code. Their severity is the one validation gave: a
few codes also carry warnings or information (E1020 warns about a truthy ``hidden: "no"``).
"""

from __future__ import annotations

from collections.abc import Iterable

from stoker.diagnostics import Diagnostic, Severity
from stoker.lint.context import FileContext, TemplateContext
from stoker.lint.properties import check_resource_properties
from stoker.lint.rule import FileRule


class CodeRule(FileRule):
    """Reports validation's findings with this rule's code: an error (an ``E`` code)
    unless the rule says otherwise."""

    severity = Severity.ERROR

    def check(self, ctx: FileContext) -> Iterable[Diagnostic]:
        return ctx.core_findings(self.id)


class LintedCodeRule(CodeRule):
    """A code the linter also finds itself, from the catalog, on templates that loaded.

    ``template validate`` cannot check properties and attributes (Heat does so only at
    create); the linter can, with the same code.
    """

    def linted(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        raise NotImplementedError

    def check(self, ctx: FileContext) -> Iterable[Diagnostic]:
        yield from ctx.core_findings(self.id)
        if isinstance(ctx, TemplateContext) and ctx.definition is not None:
            yield from self.linted(ctx)


class PropertyCodeRule(LintedCodeRule):
    """One code of the property checks against the catalog, which run once for all of
    them."""

    def linted(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        return [d for d in check_resource_properties(ctx) if d.code == self.id]
