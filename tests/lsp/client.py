"""A real LSP client (pygls's) driving ``stoker lsp`` over stdio, for synchronous tests.

The client runs on an event loop in a thread of its own; `Session.call` waits for one of
its coroutines. Diagnostics the server publishes are collected by document and waited
for with an event (no sleeps).
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

TIMEOUT = 30


class Session:
    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.client = LanguageClient("stoker-tests", "1")
        self.published: dict[str, list[types.Diagnostic]] = {}
        self.versions: dict[str, int] = {}
        self._arrived: dict[str, threading.Event] = {}
        self._changed = threading.Condition()

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(ls: Any, params: types.PublishDiagnosticsParams) -> None:
            with self._changed:
                self.published[params.uri] = params.diagnostics
                self._event(params.uri).set()
                self._changed.notify_all()

        self.messages: list[str] = []

        @self.client.feature(types.WINDOW_SHOW_MESSAGE)
        def shown(ls: Any, params: types.ShowMessageParams) -> None:
            with self._changed:
                self.messages.append(params.message)
                self._changed.notify_all()

        self.call(self.client.start_io(sys.executable, "-m", "stoker", "lsp"))
        self.call(
            self.client.initialize_async(
                types.InitializeParams(capabilities=types.ClientCapabilities(), process_id=None)
            )
        )
        self.client.initialized(types.InitializedParams())

    def _event(self, uri: str) -> threading.Event:
        return self._arrived.setdefault(uri, threading.Event())

    def call(self, coroutine: Coroutine[Any, Any, Any]) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(TIMEOUT)

    def open(self, path: Path, text: str | None = None) -> str:
        """Open a file (its text from disk unless given); its diagnostics, once published."""
        uri = from_fs_path(str(path)) or ""
        self._event(uri).clear()
        self.versions[uri] = 1
        item = types.TextDocumentItem(uri, "yaml", 1, path.read_text() if text is None else text)
        self.loop.call_soon_threadsafe(
            self.client.text_document_did_open, types.DidOpenTextDocumentParams(item)
        )
        return uri

    def expect(self, uri: str) -> None:
        """Wait for a new publication of ``uri``'s diagnostics (one another change causes)."""
        self._event(uri).clear()

    def change(self, uri: str, text: str) -> None:
        self._event(uri).clear()
        self.versions[uri] += 1
        params = types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(self.versions[uri], uri),
            [types.TextDocumentContentChangeWholeDocument(text)],
        )
        self.loop.call_soon_threadsafe(self.client.text_document_did_change, params)

    def diagnostics(self, uri: str) -> list[types.Diagnostic]:
        assert self._event(uri).wait(TIMEOUT), f"no diagnostics published for {uri}"
        return self.published[uri]

    def wait_for(self, uri: str, wanted: Callable[[list[types.Diagnostic]], bool]) -> None:
        """Wait until the diagnostics last published for ``uri`` are ``wanted``."""
        with self._changed:
            done = self._changed.wait_for(
                lambda: uri in self.published and wanted(list(self.published[uri])), TIMEOUT
            )
        assert done, f"diagnostics of {uri}: {self.published.get(uri)}"

    def wait_for_message(self, wanted: Callable[[str], bool]) -> str:
        """Wait until the server has shown a message that is ``wanted``."""
        with self._changed:
            self._changed.wait_for(lambda: any(map(wanted, self.messages)), TIMEOUT)
        found = [message for message in self.messages if wanted(message)]
        assert found, f"messages shown: {self.messages}"
        return found[0]

    def close(self) -> None:
        try:
            self.call(self.client.shutdown_async(None))
            self.client.exit(None)
            self.call(self.client.stop())
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(TIMEOUT)


def at(uri: str, line: int, character: int) -> dict[str, Any]:
    return {
        "text_document": types.TextDocumentIdentifier(uri),
        "position": types.Position(line, character),
    }
