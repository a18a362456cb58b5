"""``python -m stoker``: the same as the ``stoker`` command."""

from stoker.cli.main import main

main()
