"""``stoker lsp``: a language server for Heat templates, environment files and blueprints.

    build_server().start_io()     # what `stoker lsp` runs

Diagnostics are the linter's (`stoker.lsp.analysis`), completion and hover come from the
catalog and the function tables (`stoker.lsp.completion`, `stoker.lsp.navigation`), and
names are found in the parsed template (`stoker.lsp.symbols`): no second parser.
"""

from stoker.lsp.analysis import Analysis, analyse
from stoker.lsp.server import StokerServer, build_server, serve

__all__ = ["Analysis", "StokerServer", "analyse", "build_server", "serve"]
