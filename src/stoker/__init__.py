"""stoker: a standalone, Heat-compatible orchestration engine for Heat templates."""

__version__ = "0.1.0"
