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
    summary = "The file is not UTF-8"
    explanation = (
        "Templates and environments are UTF-8 text (a byte-order mark is allowed). The "
        "finding points at the first byte that is not valid UTF-8; save the file as UTF-8."
    )
    source = _LOADER


class TooLarge(CodeRule):
    id = "E0002"
    summary = "The file is larger than Heat accepts"
    explanation = (
        "Heat refuses templates larger than max_template_size (524288 bytes by default): "
        "'Template size (<n> bytes) exceeds maximum allowed size'. Split the template into "
        "nested templates. stoker's limit is --max-template-size ($STOKER_MAX_TEMPLATE_SIZE); "
        "the same code reports a document whose text, YAML aliases expanded, passes "
        "--max-expanded-size (a YAML bomb)."
    )
    source = _LOADER


class DuplicateKey(CodeRule):
    id = "E0003"
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
    summary = "The document nests too deeply or expands too far"
    explanation = (
        "More than 100 levels of nesting (--max-depth), a recursive YAML alias, or a "
        "document of more than 250,000 nodes, aliases counted where they are used "
        "(--max-nodes; an expansion bomb). Such input is refused before it is built; "
        "flatten the data."
    )
    source = Source(SourceKind.STOKER, "loader limits that protect against hostile input")


class LimitReached(CodeRule):
    id = "E0006"
    summary = "The template asks for more work than the evaluation's budget allows"
    explanation = (
        "Evaluating the template would cross a limit of stoker's budget: a value a "
        "function builds (repeat, str_replace, list_join, map_merge, list_concat, yaql ...) "
        "larger than --max-value-size or nested deeper than --max-depth, more than "
        "--max-total-value-size built in all, or more resources in the tree than "
        "--max-resources (group members included). The evaluation stops there; the finding "
        "names the limit, and its option (or STOKER_MAX_* variable) raises it."
    )
    source = Source(SourceKind.STOKER, "the evaluation budget (stoker.limits)")


class NotAMapping(CodeRule):
    id = "E0005"
    summary = "The template is not a mapping"
    explanation = (
        "A template is a YAML mapping or JSON object whose first key is usually "
        "heat_template_version. Heat: 'The template is not a JSON object or YAML mapping.'"
    )
    source = _LOADER
