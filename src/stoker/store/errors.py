"""Errors of the store beyond `stoker.engine.state.StackExists`."""

from __future__ import annotations

from stoker.errors import UnknownStack as UnknownStack
