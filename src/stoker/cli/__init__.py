"""The ``stoker`` command line: `stoker.cli.main` is its entry point."""
