"""``stoker lsp``: the language server, over stdin and stdout."""

from __future__ import annotations

import click


@click.command()
def lsp() -> None:
    """Run the language server (LSP over stdio) for editors: diagnostics, completion,
    hover, definitions, references, outline and rename in Heat templates."""
    from stoker.lsp import serve

    serve()
