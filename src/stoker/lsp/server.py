"""``stoker lsp``: the Language Server Protocol over stdio, on pygls.

Each change of a buffer is checked at once as ``stoker lint`` checks the file
(`stoker.lsp.analysis`) and its findings published with their rule ids and severities;
the last analysis that parsed is kept for completion, hover and navigation, so they keep
working while the text is half-typed.
"""

from __future__ import annotations

import asyncio
import gc
import os
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from stoker import __version__
from stoker.diagnostics import Diagnostic, Severity
from stoker.lint.context import TemplateContext
from stoker.lsp.analysis import Analysis, analyse
from stoker.lsp.completion import complete
from stoker.lsp.cursor import cursor_at
from stoker.lsp.navigation import (
    can_rename,
    definition,
    hover,
    references,
    rename,
    symbols,
    word_at,
)
from stoker.lsp.symbols import Index

#: seconds without a change after which the garbage collector runs (see `serve`)
IDLE_COLLECTION = 2.0

_SEVERITIES = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}


class Buffer:
    """One open document: its lines, its latest analysis, and the last one whose
    template parsed (with its index of names)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.lines: list[str] = []
        self.analysis: Analysis | None = None
        self.unit: TemplateContext | None = None
        self._index: Index | None = None
        self._indexed: list[str] = []  # the lines of the text `unit` was parsed from
        self._kept: Analysis | None = None

    @property
    def index(self) -> Index | None:
        """The names of the last template that parsed, found when first asked for (by
        hover, navigation, symbols, rename), not at every change."""
        if self._index is None and self.unit is not None:
            self._index = Index(self.unit.parsed, self._indexed)
        return self._index

    def update(self, text: str, others: dict[str, str]) -> Analysis:
        self.lines = text.split("\n")
        previous = self.analysis
        # handed over to this check (`analyse`): should it fail, the next starts afresh
        self.analysis = None
        analysis = analyse(self.path, text, others, previous.carried if previous else None)
        self.analysis = analysis
        unit = analysis.template
        # a template that parsed replaces the one kept; so does none when the check moved
        # resources of an earlier one to this text's lines: the one kept is no longer the
        # text it was parsed from
        if unit is not None or analysis.consumed:
            if self._kept is not None and self._kept is not previous:
                self._kept.release()
            self._kept = analysis if unit is not None else None
            self.unit, self._index, self._indexed = unit, None, self.lines
        if previous is not None and previous is not self._kept:
            previous.release()
        return analysis


def to_lsp(finding: Diagnostic, lines: list[str]) -> types.Diagnostic:
    """A finding at its range: from its position to the end of the name or value there."""
    span = finding.span
    line = max(span.line - 1, 0) if span is not None else 0
    column = max(span.column - 1, 0) if span is not None else 0
    text = lines[line] if line < len(lines) else ""
    found = word_at(text, column)
    end = found[1] + len(found[0]) if found is not None and found[1] >= column else len(text)
    return types.Diagnostic(
        range=types.Range(types.Position(line, column), types.Position(line, max(end, column))),
        message=finding.message,
        severity=_SEVERITIES[finding.severity],
        code=finding.code,
        source="stoker",
    )


class StokerServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("stoker", __version__)
        self.buffers: dict[str, Buffer] = {}
        #: config errors already shown to the user
        self._told: set[str] = set()
        self._collection: asyncio.TimerHandle | None = None

    def buffer(self, uri: str) -> Buffer:
        if uri not in self.buffers:
            self.buffers[uri] = Buffer(os.path.abspath(to_fs_path(uri) or uri))
        return self.buffers[uri]

    def check(self, uri: str, *, neighbours: bool = False) -> None:
        """Analyse one buffer and publish its findings; then, when it is an environment
        file (which changes what its templates mean) or ``neighbours`` is asked for (a
        save: a provider template may have changed), the other open buffers of its
        directory and those paired with it (`stoker.lsp.analysis.related_files`)."""
        analysis = self._check(uri)
        if neighbours or analysis.environment is not None:
            path = self.buffer(uri).path
            directory = os.path.dirname(path)
            for other, buffer in list(self.buffers.items()):
                if other == uri:
                    continue
                read = buffer.analysis is not None and path in buffer.analysis.related
                if read or path in analysis.related or os.path.dirname(buffer.path) == directory:
                    self._check(other)
        self._collect_when_idle()

    def _collect_when_idle(self) -> None:
        """A full collection once the buffers stop changing (see `serve`): it walks every
        live object, a check's trees and Heat's catalog included, which is too slow to
        happen between a keystroke and its diagnostics."""
        if self._collection is not None:
            self._collection.cancel()
        self._collection = asyncio.get_running_loop().call_later(IDLE_COLLECTION, gc.collect)

    def check_if_current(self, uri: str, version: int) -> None:
        """`check`, unless a later change of the buffer has arrived (its check follows)."""
        if uri in self.buffers and self.workspace.get_text_document(uri).version == version:
            self.check(uri)

    def _check(self, uri: str) -> Analysis:
        document = self.workspace.get_text_document(uri)
        others = {
            buffer.path: self.workspace.get_text_document(other).source
            for other, buffer in self.buffers.items()
            if other != uri
        }
        buffer = self.buffer(uri)
        analysis = buffer.update(document.source, others)
        if analysis.config_error is not None and analysis.config_error not in self._told:
            self._told.add(analysis.config_error)  # once, not at every change
            message = (
                f"stoker: the lint config is not used (defaults apply): {analysis.config_error}"
            )
            self.window_show_message(types.ShowMessageParams(types.MessageType.Warning, message))
        diagnostics = [to_lsp(finding, buffer.lines) for finding in analysis.findings]
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics)
        )
        return analysis


def build_server() -> StokerServer:
    server = StokerServer()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: StokerServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.check(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: StokerServer, params: types.DidChangeTextDocumentParams) -> None:
        # checked once the changes already received are applied: while a check runs,
        # keystrokes queue up, and only the last of them is worth checking
        document = params.text_document
        asyncio.get_running_loop().call_soon(ls.check_if_current, document.uri, document.version)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: StokerServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.check(params.text_document.uri, neighbours=True)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: StokerServer, params: types.DidCloseTextDocumentParams) -> None:
        buffer = ls.buffers.pop(params.text_document.uri, None)
        if buffer is not None and buffer.analysis is not None:
            buffer.analysis.release()

    @server.feature(
        types.TEXT_DOCUMENT_COMPLETION,
        types.CompletionOptions(trigger_characters=[":", " ", "[", ",", "{"]),
    )
    def completion(ls: StokerServer, params: types.CompletionParams) -> types.CompletionList:
        buffer = ls.buffer(params.text_document.uri)
        lines = ls.workspace.get_text_document(params.text_document.uri).source.split("\n")
        cursor = cursor_at(lines, params.position.line, params.position.character)
        items = complete(buffer.unit, cursor, buffer.path)
        return types.CompletionList(is_incomplete=False, items=items)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def on_hover(ls: StokerServer, params: types.HoverParams) -> types.Hover | None:
        buffer = ls.buffer(params.text_document.uri)
        if buffer.unit is None or buffer.index is None:
            return None
        text = hover(buffer.unit, buffer.index, params.position.line, params.position.character)
        if text is None:
            return None
        return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, text))

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    def on_definition(ls: StokerServer, params: types.DefinitionParams) -> Any:
        buffer = ls.buffer(params.text_document.uri)
        if buffer.unit is None or buffer.index is None:
            return None
        position = params.position
        return definition(buffer.unit, buffer.index, position.line, position.character, buffer.path)

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    def on_references(ls: StokerServer, params: types.ReferenceParams) -> list[types.Location]:
        buffer = ls.buffer(params.text_document.uri)
        if buffer.index is None:
            return []
        position, declaration = params.position, params.context.include_declaration
        return references(buffer.index, position.line, position.character, buffer.path, declaration)

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def on_symbols(
        ls: StokerServer, params: types.DocumentSymbolParams
    ) -> list[types.DocumentSymbol]:
        buffer = ls.buffer(params.text_document.uri)
        if buffer.unit is None or buffer.index is None:
            return []
        return symbols(buffer.unit, buffer.index)

    @server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
    def on_prepare_rename(ls: StokerServer, params: types.PrepareRenameParams) -> Any:
        buffer = ls.buffer(params.text_document.uri)
        if buffer.index is None:
            return None
        return can_rename(buffer.index, params.position.line, params.position.character)

    @server.feature(types.TEXT_DOCUMENT_RENAME)
    def on_rename(ls: StokerServer, params: types.RenameParams) -> types.WorkspaceEdit | None:
        buffer = ls.buffer(params.text_document.uri)
        if buffer.index is None:
            return None
        position = params.position
        return rename(buffer.index, position.line, position.character, params.new_name, buffer.path)

    return server


def serve() -> None:
    """Serve over stdin and stdout until the client says exit.

    The cyclic garbage collector runs only when the buffers have not changed for
    `IDLE_COLLECTION` seconds: a check makes a few hundred thousand objects that
    reference counting frees (a checked package is released, its cycles broken, when the
    next check replaces it), and automatic collections while checking walked them all,
    adding tens of milliseconds to a change's diagnostics every few changes."""
    gc.disable()
    build_server().start_io()
