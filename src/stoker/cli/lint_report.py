"""What ``stoker lint PATH...`` prints: the report and its summary line, made apart from
the Click command (`stoker.cli.lint`) that parses the command line and echoes them."""

from __future__ import annotations

import os
from typing import NamedTuple

from stoker.limits import active_limits
from stoker.lint import (
    FORMATTERS,
    ConfigError,
    LintConfig,
    LintOptions,
    LintReport,
    Rule,
    combine,
    default_registry,
    find_config,
    load_config,
    merge,
)
from stoker.lint import (
    lint as run_lint,
)
from stoker.template.loader import LoadLimits


class Printed(NamedTuple):
    """A lint run as the command shows it."""

    text: str  # the report in its format (stdout, or the --output file)
    summary: str  # one line for stderr
    failed: bool  # something is at or above the fail level: exit status 1


def lint_paths(
    paths: tuple[str, ...],
    config_file: str | None,
    profiles: tuple[str, ...],
    ignore: tuple[str, ...],
    fail_level: str | None,
    fmt: str,
) -> Printed:
    """Lint ``paths`` under the limits in force (`stoker.limits.applied`), each path under
    its own settings: ``--config``, else the nearest ``.stoker-lint.yaml`` from the path
    upwards (as ruff and cfn-lint look it up); paths that share a file are linted
    together. The one report is rendered as ``fmt`` (one of `stoker.lint.FORMATTERS`),
    failed when any part failed."""
    limits = LoadLimits.of(active_limits())
    groups: dict[str | None, list[str]] = {}
    for path in paths:
        found = config_file or find_config(path if os.path.isdir(path) else os.path.dirname(path))
        groups.setdefault(found, []).append(path)
    reports = []
    for found, members in groups.items():
        config = merge(_config(found), profiles=profiles, ignore=ignore, fail_level=fail_level)
        reports.append(run_lint(members, LintOptions(config=config, limits=limits)))
    report = combine(reports)
    text = FORMATTERS[fmt](report, documented(report.rules, report))
    return Printed(text, report.summary(), any(part.failed for part in reports))


def _config(path: str | None) -> LintConfig:
    if path is None:
        return LintConfig()
    try:
        return load_config(path)
    except ConfigError as error:
        raise ConfigError(f"invalid config file: {error}") from None


def documented(rules: list[Rule], report: LintReport) -> list[Rule]:
    """The rules that ran, plus any other rule a finding names (E0101 always reports)."""
    ids = {rule.id for rule in rules}
    unknown = [finding.code for finding in report.findings if finding.code not in ids]
    registry = default_registry() if unknown else None  # every profile's: seldom needed
    extra = [rule for code in unknown if registry and (rule := registry.get(code)) is not None]
    unique = {rule.id: rule for rule in [*rules, *extra]}
    return list(unique.values())
