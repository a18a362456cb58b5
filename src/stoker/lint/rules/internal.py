"""Findings of the linter's own machinery, documented like rules (they run in every profile).

The runner and the context builder make these findings; the rules hand them on.
"""

from __future__ import annotations

from collections.abc import Iterable

from stoker.diagnostics import Diagnostic, Severity, Span
from stoker.lint.codes import BLUEPRINT_NOT_LINTED, INTERNAL_ERROR, PACKAGE_UNREADABLE
from stoker.lint.context import FileContext, PackageContext
from stoker.lint.rule import FileRule, PackageRule, Profile, Source, SourceKind
from stoker.lint.workspace import BLUEPRINT_SKIPPED

_ALL = frozenset(Profile)


class InternalError(FileRule):
    id = INTERNAL_ERROR
    severity = Severity.ERROR
    summary = "A rule failed with an internal error"
    explanation = (
        "A rule (or validation itself) raised an exception on this file. The runner "
        "reports it here and runs every other rule, so one bug does not hide the other "
        "findings. This is a bug in stoker: please report it with the file."
    )
    source = Source(SourceKind.STOKER, "the lint runner isolates rule crashes")
    profiles = _ALL

    def check(self, ctx: FileContext) -> Iterable[Diagnostic]:
        """Crashes while building the file's context (loading, parsing, validating); the
        runner itself reports a rule that crashes."""
        return ctx.core_findings(self.id)


class PackageUnreadable(PackageRule):
    id = PACKAGE_UNREADABLE
    severity = Severity.ERROR
    summary = "A package that cannot be opened"
    explanation = (
        "A .zip input that is not a zip archive, cannot be read, or is over the zip limits "
        "(members, expanded size, compression ratio: --max-zip-*). A stack package "
        "(heat.yaml or blueprint.yaml at its root, outside the onap profile) is refused "
        "as stack create refuses it: also for a member that leaves the archive (..), an "
        "absolute path, a symbolic link, or a member over --max-template-size. Nothing "
        "in it is linted."
    )
    source = Source(SourceKind.STOKER, "packages are read as zip archives")
    profiles = _ALL

    def check(self, ctx: PackageContext) -> Iterable[Diagnostic]:
        return [problem for problem in ctx.problems if problem.code == self.id]


class BlueprintNotLinted(PackageRule):
    id = BLUEPRINT_NOT_LINTED
    severity = Severity.INFO
    summary = "A blueprint, which is compiled rather than linted"
    explanation = (
        "The file is a blueprint (it has components and no template version key, the "
        "test stack create and the API use too), not a HOT template: stack create "
        "compiles it to HOT against a cloud's flavors and images, which lint has not. It "
        "is listed and left alone rather than reported as a template without a version; "
        "check it with stoker blueprint explain (and template validate --os-cloud NAME "
        "compiles and validates it)."
    )
    source = Source(SourceKind.STOKER, "blueprints are recognised by their content")
    profiles = _ALL

    def check(self, ctx: PackageContext) -> Iterable[Diagnostic]:
        return [
            Diagnostic(
                self.id, BLUEPRINT_SKIPPED, severity=self.severity, span=Span(source.name, 1, 1)
            )
            for source, reason in ctx.skipped
            if reason == BLUEPRINT_SKIPPED
        ]
