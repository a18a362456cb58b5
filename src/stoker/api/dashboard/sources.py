"""A template or environment as the dashboard shows it: its text, each line numbered,
each finding (the engine's `Diagnostic`, with its file, line and column) beside the
line it points at, and the findings that point at no line of it listed above."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import yaml

from stoker.diagnostics import Diagnostic, render_path

TEMPLATE_LABEL = "template.yaml"
ENVIRONMENT_LABEL = "environment.yaml"


@dataclass(slots=True)
class Finding:
    severity: str  # error, warning, info
    message: str  # ``path: message`` (the line is where it is shown)
    column: int = 0


@dataclass(slots=True)
class Line:
    number: int
    text: str
    findings: list[Finding] = field(default_factory=list)

    @property
    def severity(self) -> str:
        """The line's worst finding's severity ("" without one)."""
        found = {f.severity for f in self.findings}
        return next((s for s in ("error", "warning", "info") if s in found), "")


@dataclass(slots=True)
class Listing:
    label: str
    lines: list[Line]
    elsewhere: list[Finding]  # findings that point at no line of this text

    @property
    def errors(self) -> int:
        every = [*self.elsewhere, *(f for line in self.lines for f in line.findings)]
        return sum(1 for f in every if f.severity == "error")


def _finding(diagnostic: Diagnostic) -> Finding:
    text = diagnostic.message
    if diagnostic.path:
        text = f"{render_path(diagnostic.path)}: {text}"
    column = diagnostic.span.column if diagnostic.span is not None else 0
    return Finding(diagnostic.severity.value, text, column)


def listing(text: str, label: str, diagnostics: Iterable[Diagnostic]) -> Listing:
    """``text`` (read from ``label``) with the findings at their lines."""
    lines = [Line(number, line) for number, line in enumerate(text.splitlines(), start=1)]
    elsewhere: list[Finding] = []
    for diagnostic in diagnostics:
        span = diagnostic.span
        if span is not None and span.file == label and span.line == len(lines) + 1:
            lines.append(Line(span.line, ""))  # at the end of the text (YAML left open)
        if span is not None and span.file == label and 1 <= span.line <= len(lines):
            lines[span.line - 1].findings.append(_finding(diagnostic))
        else:
            elsewhere.append(_finding(diagnostic))
    return Listing(label, lines, elsewhere)


def as_yaml(data: Any) -> str:
    """Stored data as YAML, in its own key order."""
    if not data:
        return ""
    return yaml.safe_dump(data, sort_keys=False, default_flow_style=False, allow_unicode=True)


def template_findings(text: str, label: str = TEMPLATE_LABEL) -> list[Diagnostic]:
    """What loading the template finds (errors and warnings), parameters not required:
    the stack's own values are not part of the template."""
    from stoker.definition import LoadOptions, RequestInputs, load_request

    result = load_request(RequestInputs(template=text, label=label), LoadOptions())
    return list(result.diagnostics)


def environment_findings(text: str, label: str = ENVIRONMENT_LABEL) -> list[Diagnostic]:
    from stoker.environment.parse import parse_environment
    from stoker.errors import TemplateError
    from stoker.template.loader import load_document

    if not text.strip():
        return []
    try:
        document = load_document(text, label)
    except TemplateError as error:
        return list(error.diagnostics)
    _, found = parse_environment(document)
    return [*document.warnings, *found]


def without_hidden_defaults(data: Any, hidden: set[str]) -> Any:
    """The template's data with the default of each hidden parameter (by name, in HOT's
    ``parameters`` or CFN's ``Parameters``) masked: the dashboard never shows a hidden
    value, the template author's own default included."""
    from stoker.parameters import MASK

    if not isinstance(data, dict) or not hidden:
        return data
    shown = dict(data)
    for section in ("parameters", "Parameters"):
        declared = shown.get(section)
        if not isinstance(declared, dict):
            continue
        masked = {}
        for name, declaration in declared.items():
            if name in hidden and isinstance(declaration, dict):
                declaration = {
                    key: MASK if key in ("default", "Default") else value
                    for key, value in declaration.items()
                }
            masked[name] = declaration
        shown[section] = masked
    return shown


def stored_template(data: Any, hidden: set[str]) -> Listing:
    """The stored template, hidden defaults masked (`without_hidden_defaults`), with what
    validating the real one finds: at their lines when masking kept every line where it
    was, else listed above it."""
    text = as_yaml(data)
    shown = as_yaml(without_hidden_defaults(data, hidden))
    found = template_findings(text)
    if shown.count("\n") != text.count("\n"):
        found = [Diagnostic(d.code, d.message, d.path, None, d.severity) for d in found]
    return listing(shown, TEMPLATE_LABEL, found)


def stored_environment(data: Any) -> Listing:
    text = as_yaml(data)
    return listing(text, ENVIRONMENT_LABEL, environment_findings(text))
