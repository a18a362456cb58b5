"""The ``stoker`` command. Thin: parse arguments, call the library, format the result.

Errors take one path: a command raises a `stoker.errors.StokerError` (or Click raises a
usage error) and `stoker.cli.group.StokerGroup.main` prints it as one ``error: ...`` line
and exits with the status `stoker.errors.exit_status` gives: 0 success; 1 the input was
rejected, a named thing does not exist, the database cannot be used, or the operation
failed; 2 command-line usage errors (Click's convention: bad options, a file named on the
command line that does not exist, an unusable lint config).

Each command group lives in its own module and is imported only when it runs: ``stoker
--version`` or ``--help`` must not pay for SQLAlchemy, yaql or the linter (a test checks
this). The one-line help of each group is therefore written here too; a test checks it
still matches the group's docstring. The Click group itself is in `stoker.cli.group`
(``cli`` here is an alias).
"""

from __future__ import annotations

import gc
from typing import Any

from stoker.engine import one_command_process

# name -> (module, attribute, first line of the group's docstring)
COMMANDS: dict[str, tuple[str, str, str]] = {
    "blueprint": (
        "stoker.cli.blueprint",
        "blueprint",
        "Explain and compile blueprints (components and requirements) to HOT.",
    ),
    "db": (
        "stoker.cli.db",
        "db",
        "Look after the database (the key that encrypts hidden values at rest).",
    ),
    "lint": (
        "stoker.cli.lint",
        "lint",
        "Lint templates, environments, directories (recursively) and VNF packages (.zip).",
    ),
    "lsp": (
        "stoker.cli.lsp",
        "lsp",
        "Run the language server (LSP over stdio) for editors.",
    ),
    "resource-type": (
        "stoker.cli.resource_types",
        "resource_type",
        "List the resource types stoker can run and show their schemas.",
    ),
    "sandbox": (
        "stoker.cli.sandbox",
        "sandbox",
        "Run a local OpenStack (Keystone, Nova, Glance ...) that the real clients accept.",
    ),
    "schema": (
        "stoker.cli.schema",
        "schema",
        "Print JSON Schemas (draft 2020-12) of templates and environments for editors.",
    ),
    "serve": (
        "stoker.cli.serve",
        "serve",
        "Serve Heat's REST API v1 (http://HOST:PORT/v1/{project_id}).",
    ),
    "stack": ("stoker.cli.stack", "stack", "Create, inspect and delete stacks."),
    "template": (
        "stoker.cli.template",
        "template",
        "Check and inspect templates without running anything.",
    ),
}


def __getattr__(name: str) -> Any:
    """`cli` (the Click group) and its helpers, from `stoker.cli.group`: importing this
    module, as the ``stoker`` script does, imports no Click."""
    if name in ("cli", "LazyGroup", "StokerGroup"):
        from stoker.cli import group

        return getattr(group, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    one_command_process()
    try:
        from stoker.cli.group import cli

        cli()
    finally:
        # The process ends here: its last garbage collection need not walk everything
        # the command built (a loaded 1,000-resource template is ~10^5 objects; walking
        # them was a visible part of a stack create).
        gc.freeze()
