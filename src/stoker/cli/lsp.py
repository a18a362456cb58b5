"""``stoker lsp``: the language server, over stdin and stdout."""

from __future__ import annotations

import click


@click.command()
def lsp() -> None:
    """Run the language server (LSP over stdio) for editors.

    Diagnostics (what stoker lint reports), completion, hover, definitions, references,
    outline and rename in Heat templates, environment files and blueprints: see
    docs/editors.md."""
    from stoker.lsp import serve

    serve()
