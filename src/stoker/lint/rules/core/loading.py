"""Reading a file: syntax, encoding, size, duplicate keys, depth, the top-level shape."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from stoker.diagnostics import Diagnostic, Severity
from stoker.lint.context import FileContext
from stoker.lint.rule import Profile, Source, SourceKind
from stoker.lint.rules.core.base import CodeRule

_LOADER = Source(SourceKind.HEAT, "heat/common/template_format.py (parse)")


class YamlSyntax(CodeRule):
    id = "E0000"
    severity = Severity.ERROR
    summary = "The file is not valid YAML or JSON"
    explanation = (
        "The document could not be parsed: a YAML or JSON syntax error, several documents "
        "in one file, an undefined alias, a YAML tag other than plain data, or a file that "
        "cannot be read at all. A document whose first non-blank character is '{' is read "
        "strictly as JSON. Heat rejects such a template with 'Error parsing template'. Fix "
        "the syntax at the position given."
    )
    source = _LOADER
    profiles = frozenset({Profile.DEFAULT})


class Encoding(CodeRule):
    id = "E0001"
    severity = Severity.ERROR
    summary = "The file is not UTF-8"
    explanation = (
        "Templates and environments are UTF-8 text (a byte-order mark is allowed). The "
        "finding points at the first byte that is not valid UTF-8; save the file as UTF-8."
    )
    source = _LOADER


class TooLarge(CodeRule):
    id = "E0002"
    severity = Severity.ERROR
    summary = "The file is larger than Heat accepts"
    explanation = (
        "Heat refuses templates larger than max_template_size (524288 bytes by default): "
        "'Template size (<n> bytes) exceeds maximum allowed size'. Split the template into "
        "nested templates."
    )
    source = _LOADER


class DuplicateKey(CodeRule):
    id = "E0003"
    severity = Severity.ERROR
    summary = "A mapping has the same key twice"
    explanation = (
        "YAML and JSON parsers keep only one of two equal keys (Heat's keeps the last one "
        "silently), so half of what was written is lost. The finding points at the second "
        "key and names the line of the first; remove one of them. template validate and "
        "the engine accept the document as Heat does (the last value wins) with a warning; "
        "the linter reports it as an error."
    )
    source = Source(SourceKind.HEAT, "YAML/JSON loading keeps one of two equal keys")

    def check(self, ctx: FileContext) -> Iterable[Diagnostic]:
        # Heat accepts the document, so validation only warns; the linter's opinion is
        # stricter: a silently dropped entry is never what the author meant
        for finding in ctx.core_findings(self.id):
            yield replace(finding, severity=Severity.ERROR)


class TooDeep(CodeRule):
    id = "E0004"
    severity = Severity.ERROR
    summary = "The document nests too deeply or expands too far"
    explanation = (
        "More than 100 levels of nesting, a recursive YAML alias, or aliases that expand the "
        "document past a million nodes (an expansion bomb). Such input is refused before it "
        "is built; flatten the data."
    )
    source = Source(SourceKind.STOKER, "loader limits that protect against hostile input")


class NotAMapping(CodeRule):
    id = "E0005"
    severity = Severity.ERROR
    summary = "The template is not a mapping"
    explanation = (
        "A template is a YAML mapping or JSON object whose first key is usually "
        "heat_template_version. Heat: 'The template is not a JSON object or YAML mapping.'"
    )
    source = _LOADER
