"""``stoker lsp``: the language server, over stdin and stdout."""

from __future__ import annotations

import click

from stoker.engine import long_running_process


@click.command()
def lsp() -> None:
    """Run the language server (LSP over stdio) for editors.

    Diagnostics (what stoker lint reports), completion, hover, definitions, references,
    outline and rename in Heat templates, environment files and blueprints: see
    docs/editors.md."""
    from stoker.lsp import serve

    long_running_process()  # a server: the collector must see what each edit leaves
    serve()
