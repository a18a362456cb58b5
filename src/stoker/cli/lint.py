"""``stoker lint``: check templates, environments and VNF packages against the rules.

Thin: settings from ``.stoker-lint.yaml`` and the options, `stoker.lint.lint`, a format.
Exit codes: 0 nothing at or above ``--fail-level``; 1 something is; 2 usage errors (bad
options, an unreadable config file, an unknown rule id for ``--explain``).
"""

from __future__ import annotations

import sys
import textwrap

import click

from stoker.diagnostics import Severity
from stoker.lint import (
    FORMATTERS,
    REQUIREMENTS,
    ConfigError,
    LintConfig,
    LintOptions,
    LintReport,
    Profile,
    Rule,
    default_registry,
    find_config,
    load_config,
    merge,
)
from stoker.lint import (
    lint as run_lint,
)
from stoker.lint.onap.requirements import BY_ID as REQUIREMENTS_BY_ID
from stoker.template.loader import DEFAULT_MAX_BYTES, LoadLimits

PROFILES = [profile.value for profile in Profile]
LEVELS = [severity.value for severity in Severity]


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True), metavar="[PATH]...")
@click.option(
    "--profile",
    "profiles",
    multiple=True,
    type=click.Choice(PROFILES),
    help="Rule set to run; repeat for several (default: the config's, else default).",
)
@click.option(
    "-f",
    "--format",
    "fmt",
    type=click.Choice(list(FORMATTERS)),
    default="text",
    show_default=True,
    help="Report format.",
)
@click.option(
    "--fail-level",
    type=click.Choice(LEVELS),
    default=None,
    help="Exit 1 when a finding is at or above this severity (default: error).",
)
@click.option(
    "--config",
    "config_file",
    type=click.Path(exists=True, dir_okay=False),
    help="Settings file (default: .stoker-lint.yaml from here upwards).",
)
@click.option("--ignore", multiple=True, metavar="ID", help="Rule id (or prefix) to skip.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the report to a file.")
@click.option(
    "--max-template-size",
    type=click.IntRange(min=1),
    default=DEFAULT_MAX_BYTES,
    show_default=True,
    help="Largest template or environment file, in bytes.",
)
@click.option("--list-rules", is_flag=True, help="List the rules (of --profile, else all).")
@click.option("--explain", metavar="ID", help="Explain one rule or ONAP requirement.")
def lint(
    paths: tuple[str, ...],
    profiles: tuple[str, ...],
    fmt: str,
    fail_level: str | None,
    config_file: str | None,
    ignore: tuple[str, ...],
    output: str | None,
    max_template_size: int,
    list_rules: bool,
    explain: str | None,
) -> None:
    """Lint templates, environments, directories (recursively) and VNF packages (.zip).

    Findings read FILE:LINE:COLUMN: ID SEVERITY: MESSAGE. Silence one with a comment on
    its line (or its parent's): # stoker-lint: ignore=ID[,ID].
    """
    if explain:
        click.echo(explanation(explain))
        return
    if list_rules:
        click.echo(rule_list(profiles), nl=False)
        return
    if not paths:
        raise click.UsageError("give at least one PATH (file, directory or .zip)")
    config = merge(_config(config_file), profiles=profiles, ignore=ignore, fail_level=fail_level)
    options = LintOptions(config=config, limits=LoadLimits(max_bytes=max_template_size))
    report = run_lint(list(paths), options)
    text = FORMATTERS[fmt](report, _documented(report.rules, report))
    if output:
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        click.echo(text, nl=False)
    click.echo(report.summary(), err=True)
    sys.exit(report.exit_code)


def _config(config_file: str | None) -> LintConfig:
    path = config_file or find_config()
    if path is None:
        return LintConfig()
    try:
        return load_config(path)
    except ConfigError as error:
        raise click.UsageError(f"invalid config file: {error}") from None


def _documented(rules: list[Rule], report: LintReport) -> list[Rule]:
    """The rules that ran, plus any other rule a finding names (E0101 always reports)."""
    registry = default_registry()
    ids = {rule.id for rule in rules}
    extra = [
        rule
        for finding in report.findings
        if finding.code not in ids and (rule := registry.get(finding.code)) is not None
    ]
    unique = {rule.id: rule for rule in [*rules, *extra]}
    return list(unique.values())


def rule_list(profiles: tuple[str, ...]) -> str:
    """One line per rule (id, severity, profiles, summary), then ONAP's unchecked ones."""
    selected = set(profiles) or set(PROFILES)
    lines = []
    for rule in default_registry().rules():
        names = sorted(p.value for p in rule.profiles)
        if selected & set(names):
            profile = ",".join(names) if len(names) < len(PROFILES) else "all"
            lines.append(f"{rule.id:<9} {rule.severity.value:<8} {profile:<8} {rule.summary}")
    if Profile.ONAP.value in selected:
        for requirement in REQUIREMENTS:
            if not requirement.checked:
                lines.append(
                    f"{requirement.id:<9} {'-':<8} {'onap':<8} not checked: "
                    f"{requirement.not_checked}"
                )
    return "".join(line + "\n" for line in lines)


def explanation(rule_id: str) -> str:
    """The documentation of one rule (or of an ONAP requirement that is not checked)."""
    rule = default_registry().get(rule_id)
    if rule is not None:
        profiles = ", ".join(sorted(p.value for p in rule.profiles))
        body = textwrap.fill(rule.explanation, width=88)
        return (
            f"{rule.id} ({rule.severity.value}; profile {profiles}): {rule.summary}\n"
            f"source: {rule.source}\n\n{body}"
        )
    requirement = REQUIREMENTS_BY_ID.get(rule_id)
    if requirement is not None:
        return (
            f"{requirement.id} ({requirement.keyword}; profile onap): not checked\n"
            f"reason: {requirement.not_checked}\n\n{textwrap.fill(requirement.text, width=88)}"
        )
    raise click.BadParameter(
        f"no rule or ONAP requirement has the id {rule_id!r}; see --list-rules",
        param_hint="--explain",
    )
