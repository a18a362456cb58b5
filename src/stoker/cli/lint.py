"""``stoker lint``: check templates, environments and VNF packages against the rules.

Thin: settings from ``.stoker-lint.yaml`` and the options, `stoker.lint.lint`, a format.
Exit codes: 0 nothing at or above ``--fail-level``; 1 something is; 2 usage errors (bad
options, an unreadable config file, an unknown rule id for ``--explain``).
"""

from __future__ import annotations

import textwrap

import click

from stoker.cli.lint_report import lint_paths
from stoker.cli.options import EVALUATION_LIMITS, ZIP_LIMITS, limit_options
from stoker.cli.output import RECORD_FORMATS, column_option, emit_rows
from stoker.diagnostics import Severity
from stoker.lint import FORMATTERS, Profile, default_registry
from stoker.lint.onap.requirements import BY_ID as REQUIREMENTS_BY_ID
from stoker.lint.onap.requirements import not_checked

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
    type=click.Choice([*FORMATTERS, *(f for f in RECORD_FORMATS if f not in FORMATTERS)]),
    default="text",
    show_default=True,
    help="Output format: of the report (text, json, sarif, junit), or of --list-rules "
    "(table, json, yaml, value, csv).",
)
@column_option
@click.option(
    "--fail-level",
    type=click.Choice(LEVELS),
    help="Exit 1 when a finding is at or above this severity (default: error).",
)
@click.option(
    "--config",
    "config_file",
    type=click.Path(exists=True, dir_okay=False),
    help="Settings file for every PATH (default: for each PATH, the nearest "
    ".stoker-lint.yaml in its directory or above; see docs/lint-config.md).",
)
@click.option(
    "--ignore", multiple=True, metavar="ID", help="Rule id (or prefix) to skip; repeatable."
)
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the report to a file.")
@limit_options(*EVALUATION_LIMITS, *ZIP_LIMITS)
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
    list_rules: bool,
    explain: str | None,
    columns: tuple[str, ...],
) -> None:
    """Lint templates, environments, directories (recursively) and VNF packages (.zip).

    Findings read FILE:LINE:COLUMN: ID SEVERITY: MESSAGE. Silence one with a comment on
    its line (or its parent's): # stoker-lint: ignore=ID[,ID].
    """
    if explain:
        click.echo(explanation(explain))
        return
    if list_rules:
        if fmt in ("sarif", "junit"):
            raise click.UsageError(f"--list-rules prints {', '.join(RECORD_FORMATS)}, not {fmt}")
        if fmt == "text" and not columns:
            # one aligned line per rule
            for r in rule_rows(profiles):
                click.echo(f"{r['id']:<9} {r['severity']:<8} {r['profiles']:<8} {r['summary']}")
        else:
            emit_rows(rule_rows(profiles), "table" if fmt == "text" else fmt, columns)
        return
    if not paths:
        raise click.UsageError("give at least one PATH (file, directory or .zip)")
    if fmt not in FORMATTERS:
        raise click.UsageError(f"a report's format is one of {', '.join(FORMATTERS)}, not {fmt}")
    if columns:
        raise click.UsageError("-c/--column selects columns of --list-rules only")
    printed = lint_paths(paths, config_file, profiles, ignore, fail_level, fmt)
    if output:
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(printed.text)
    else:
        click.echo(printed.text, nl=False)
    click.echo(printed.summary, err=True)
    click.get_current_context().exit(1 if printed.failed else 0)


def rule_rows(profiles: tuple[str, ...]) -> list[dict[str, str]]:
    """One row per rule (id, severity, profiles, summary), then ONAP's unchecked ones."""
    selected = set(profiles) or set(PROFILES)
    rows = []
    for rule in default_registry().rules():
        names = sorted(p.value for p in rule.profiles)
        if selected & set(names):
            profile = ",".join(names) if len(names) < len(PROFILES) else "all"
            rows.append(
                {
                    "id": rule.id,
                    "severity": rule.severity.value,
                    "profiles": profile,
                    "summary": rule.summary,
                }
            )
    if Profile.ONAP.value in selected:
        for requirement in not_checked():
            if not requirement.checked:
                rows.append(
                    {
                        "id": requirement.id,
                        "severity": "-",
                        "profiles": "onap",
                        "summary": f"not checked: {requirement.not_checked}",
                    }
                )
    return rows


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
