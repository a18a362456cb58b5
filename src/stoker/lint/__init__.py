"""The linter: stable rule ids over the parsed template, the ONAP profile, CI reports.

    report = lint(["templates/"], LintOptions(config=LintConfig(profiles=(Profile.ONAP,))))
    print(render_text(report, report.rules), report.exit_code)

Rules read the same parsed structures validation builds (`stoker.lint.context`); the
registry lists every rule (`stoker.lint.registry`); the runner isolates crashes and applies
suppression (`stoker.lint.runner`); formats render the report (`stoker.lint.formats`).
"""

from stoker.lint.config import ConfigError, LintConfig, find_config, load_config, merge
from stoker.lint.formats import FORMATTERS
from stoker.lint.onap.requirements import REQUIREMENTS, Requirement
from stoker.lint.registry import RuleRegistry, default_registry, rule_classes
from stoker.lint.report import LintedFile, LintReport, combine
from stoker.lint.rule import Profile, Rule, Scope, Source, SourceKind
from stoker.lint.runner import LintOptions, enabled_rules, lint

__all__ = [
    "FORMATTERS",
    "REQUIREMENTS",
    "ConfigError",
    "LintConfig",
    "LintOptions",
    "LintReport",
    "LintedFile",
    "Profile",
    "Requirement",
    "Rule",
    "RuleRegistry",
    "Scope",
    "Source",
    "SourceKind",
    "combine",
    "default_registry",
    "enabled_rules",
    "find_config",
    "lint",
    "load_config",
    "merge",
    "rule_classes",
]
