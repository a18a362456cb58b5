"""The ``stoker`` command line. Its classes' generated methods come from a cache of
compiled code (`stoker.cli.codecache`), set up before any of them is defined."""

from stoker.cli import codecache

codecache.install()
