"""Child stacks' templates parsed once per template, not once per child.

A provider template's data is one object however many resources use it (the provider
cache makes it runnable once, `stoker.resolution.providers`): TripleO's role and port
templates stand behind dozens of nested stacks each. Parsing is a pure function of the
data and the location (a parsed `Template` is not changed by the definitions built on
it, as the tree check's reuse of provider templates relies on too), so the parse of the
same data object is shared. The data is held by the entry, so its identity cannot be
taken by another object while the entry lives; a bounded number are kept, the oldest
going first, since a group's member template is made anew for each group and would
otherwise stay in a long-running engine.
"""

from __future__ import annotations

from typing import Any

from stoker.definition import Template, parse_template
from stoker.resources import ChildSpec
from stoker.template.loader import Document

#: how many parsed child templates an engine keeps
KEPT = 256


class ChildTemplates:
    """Parsed child templates by the identity of their data and their location."""

    __slots__ = ("_parsed",)

    def __init__(self) -> None:
        self._parsed: dict[tuple[int, str], tuple[Any, Template]] = {}

    def parse(self, spec: ChildSpec) -> Template:
        """``spec``'s template parsed (as a YAML document at ``spec.location``)."""
        key = (id(spec.template), spec.location)
        kept = self._parsed.get(key)
        if kept is not None and kept[0] is spec.template:
            return kept[1]
        template = parse_template(Document(spec.template, "yaml", spec.location))
        if len(self._parsed) >= KEPT:
            del self._parsed[next(iter(self._parsed))]
        self._parsed[key] = (spec.template, template)
        return template
