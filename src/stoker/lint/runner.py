"""Running the rules: every enabled rule over every file and package, crashes isolated.

The runner builds the contexts once, hands each rule the contexts of its scope, and turns
whatever comes back into findings: the rule's id, a position (the file's start when a rule
gave none). A rule that raises becomes one internal-error finding (E0100) for that file,
and the run goes on. Ignored ids never run; per-path ignores and inline comments are
applied to what the rules found. Hidden parameter values are kept out where each message
is built (`Parameter.shown`, `definition.sensitive`), never searched for in the findings.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from stoker.collector import collector_paused
from stoker.diagnostics import Diagnostic, Severity, Span
from stoker.errors import LimitExceeded
from stoker.lint.codes import INTERNAL_ERROR
from stoker.lint.config import LintConfig
from stoker.lint.context import (
    EnvironmentContext,
    FileContext,
    FileKind,
    PackageContext,
    TemplateContext,
)
from stoker.lint.inputs import discover
from stoker.lint.providers import ProviderLoader
from stoker.lint.registry import RuleRegistry, default_registry
from stoker.lint.report import LintedFile, LintReport
from stoker.lint.rule import FileRule, Profile, Rule, Scope, Source, SourceKind
from stoker.lint.suppress import inline_suppressed, matches, path_suppressed
from stoker.lint.workspace import build_package
from stoker.template.loader import LoadLimits
from stoker.template.nodes import locate

_LIMITS = LoadLimits()


@dataclass(slots=True, frozen=True)
class LintOptions:
    """A run's settings and limits."""

    config: LintConfig = field(default_factory=LintConfig)
    limits: LoadLimits = _LIMITS


class UnlistedCode(FileRule):
    """Validation findings under a code no rule documents yet (a new code in
    `stoker.codes`): reported as they are rather than lost. The registry test fails until
    the code has its rule."""

    id = "unlisted"
    severity = Severity.ERROR
    summary = "A validation finding whose code has no rule yet"
    explanation = "See the registry test: every code of stoker.codes needs a rule."
    source = Source(SourceKind.STOKER, "nothing validation finds is dropped")

    def __init__(self, known: set[str]) -> None:
        self.known = known

    def check(self, ctx: FileContext) -> Iterable[Diagnostic]:
        return [d for d in ctx.core if d.code not in self.known]


def enabled_rules(registry: RuleRegistry, config: LintConfig) -> list[Rule]:
    """The rules of the selected profiles whose ids are not ignored."""
    profiles = set(config.profiles)
    return [
        rule
        for rule in registry.rules()
        if rule.profiles & profiles and not matches(rule.id, config.ignore)
    ]


def lint(
    paths: Sequence[str],
    options: LintOptions | None = None,
    registry: RuleRegistry | None = None,
) -> LintReport:
    """Lint files, directories and packages; the report holds every finding."""
    options = options or LintOptions()
    # The cyclic collector is paused for the run (the profile's rule modules imported, the
    # files loaded) and resumed only once everything the run loaded is gone (freed by
    # reference counting: see PackageContext.release). Left on, it walks and promotes the
    # run's hundreds of thousands of nodes again and again.
    with collector_paused():
        return _lint(paths, options, registry or default_registry(options.config.profiles))


def rules_to_run(registry: RuleRegistry, config: LintConfig) -> list[Rule]:
    """`enabled_rules`, and under the default profile the findings of codes no rule
    documents (`UnlistedCode`)."""
    rules = enabled_rules(registry, config)
    if Profile.DEFAULT in config.profiles:
        rules.append(UnlistedCode({rule.id for rule in registry.rules()}))
    return rules


def _lint(paths: Sequence[str], options: LintOptions, registry: RuleRegistry) -> LintReport:
    rules = rules_to_run(registry, options.config)
    providers = ProviderLoader(options.limits)
    by_name = Profile.ONAP in options.config.profiles
    inputs = discover(list(paths), stack_packages=not by_name)
    pairing = dict(options.config.environments)
    packages = [build_package(p, options.limits, providers, by_name, pairing) for p in inputs]
    try:
        return run(packages, rules, options.config)
    finally:
        for package in packages:
            package.release()


def run(packages: list[PackageContext], rules: list[Rule], config: LintConfig) -> LintReport:
    documented = [rule for rule in rules if not isinstance(rule, UnlistedCode)]
    report = LintReport(rules=documented, fail_level=config.fail_level)
    enabled = {rule.id for rule in rules}
    raw: list[Diagnostic] = []
    files: dict[str, FileContext] = {}
    # the rules each kind of file gets, chosen once rather than per file and rule
    by_scope = {
        scope: [rule for rule in rules if rule.scope in (Scope.FILE, scope)]
        for scope in (Scope.TEMPLATE, Scope.ENVIRONMENT, Scope.FILE)
    }
    for package in packages:
        for unit in package.files:
            files[unit.name] = unit
            report.files.append(LintedFile(unit.name, unit.kind.value))
            for rule in by_scope[_scope(unit)]:
                raw.extend(_check(rule, unit, enabled))
        for source, reason in package.skipped:
            report.files.append(LintedFile(source.name, "skipped", reason))
        for rule in rules:
            if rule.scope is Scope.PACKAGE:
                raw.extend(_check(rule, package, enabled))
    seen: set[tuple[str, str, int, int, str]] = set()
    for finding in raw:
        span = finding.span or Span("?", 1, 1)
        key = (finding.code, span.file, span.line, span.column, finding.message)
        if key in seen:
            continue
        seen.add(key)
        if _suppressed(finding, files, config):
            report.suppressed += 1
            continue
        report.findings.append(finding)
    report.findings.sort(key=_order)
    return report


def _order(finding: Diagnostic) -> tuple[str, int, int, str, str]:
    span = finding.span or Span("", 0, 0)
    return (span.file, span.line, span.column, finding.code, finding.message)


def _scope(unit: FileContext) -> Scope:
    """The scope of the rules a file gets: FILE for one that did not load as a template
    or an environment."""
    if isinstance(unit, TemplateContext) and unit.definition is not None:
        return Scope.TEMPLATE
    if isinstance(unit, EnvironmentContext) and unit.kind is FileKind.ENVIRONMENT:
        return Scope.ENVIRONMENT
    return Scope.FILE


def _check(rule: Rule, ctx: FileContext | PackageContext, enabled: set[str]) -> list[Diagnostic]:
    """Run one rule on one context; an exception becomes an internal-error finding."""
    try:
        found = list(rule.check(ctx))  # type: ignore[attr-defined]
    except LimitExceeded as error:  # e.g. the tree below the template is too large
        return error.diagnostics
    except Exception as error:
        if INTERNAL_ERROR not in enabled:
            return []
        return [
            Diagnostic(
                INTERNAL_ERROR,
                f"rule {rule.id} failed: {type(error).__name__}: {error} (please report it; "
                "the other rules ran)",
                span=_start(ctx),
            )
        ]
    if not found:  # most rules on most files
        return found
    return [_complete(finding, rule, ctx) for finding in found]


def _start(ctx: FileContext | PackageContext) -> Span:
    if isinstance(ctx, FileContext):
        return ctx.start
    return Span(ctx.name or "<files>", 1, 1)


def _complete(finding: Diagnostic, rule: Rule, ctx: FileContext | PackageContext) -> Diagnostic:
    """The rule's id, and a position: the path's when the rule gave none, else the file's."""
    if finding.code != rule.id and not isinstance(rule, UnlistedCode):
        finding = replace(finding, code=rule.id)
    if finding.span is None:
        span = None
        if isinstance(ctx, FileContext) and finding.path:
            span = locate(ctx.data, finding.path)
        finding = replace(finding, span=span or _start(ctx))
    return finding


def _suppressed(finding: Diagnostic, files: dict[str, FileContext], config: LintConfig) -> bool:
    if path_suppressed(finding, config.per_path, config.base_dir):
        return True
    unit = files.get(finding.span.file) if finding.span else None
    if unit is None:
        return False
    return inline_suppressed(finding, unit.directives, unit.data)
