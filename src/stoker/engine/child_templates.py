"""Child stacks' templates parsed once per template, not once per child, and the files
their ``get_file`` calls read from the disk once per template and directory.

A provider template's data is one object however many resources use it (the provider
cache makes it runnable once, `stoker.resolution.providers`): TripleO's role and port
templates stand behind dozens of nested stacks each. Parsing is a pure function of the
data and the location (a parsed `Template` is not changed by the definitions built on
it, as the tree check's reuse of provider templates relies on too), so the parse of the
same data object is shared. The data is held by the entry, so its identity cannot be
taken by another object while the entry lives; a bounded number are kept, the oldest
going first, since a group's member template is made anew for each group and would
otherwise stay in a long-running engine.

The content a child's ``get_file`` calls read from the disk is kept with the parse: the
calls are the parsed template's, and what they read depends only on the directory they
start from, the ``--restrict-files`` root and the largest value a command may hold. An
engine reads a provider template and the files it names once (`ProviderTemplates`), so
the children it creates read them as that first read found them, as python-heatclient
sends a tree's files once with the request.
"""

from __future__ import annotations

from typing import Any

from stoker.definition import Template, collect_files, parse_template, share_misspelled
from stoker.limits import active_limits
from stoker.resources import ChildSpec
from stoker.template.loader import Document

#: how many parsed child templates an engine keeps
KEPT = 256


class _Parsed:
    """One kept parse: the data it is of, the template, the files read for it."""

    __slots__ = ("data", "template", "files")

    def __init__(self, data: Any, template: Template) -> None:
        self.data = data
        self.template = template
        #: the files read for the template's get_file calls, by (directory, root, largest
        #: value size)
        self.files: dict[tuple[str, str | None, int], dict[str, str]] = {}


class ChildTemplates:
    """Parsed child templates by the identity of their data and their location."""

    __slots__ = ("_parsed",)

    def __init__(self) -> None:
        self._parsed: dict[tuple[int, str], _Parsed] = {}

    def parse(self, spec: ChildSpec, model: Template | None = None) -> Template:
        """``spec``'s template parsed (as a YAML document at ``spec.location``). ``model``:
        the provider template it is a plain copy of (`share_misspelled`)."""
        return self._entry(spec, model).template

    def files(self, spec: ChildSpec, base_dir: str, restrict_to: str | None) -> dict[str, str]:
        """The content of the literal ``get_file`` paths of ``spec``'s template, read
        from ``base_dir`` (only below ``restrict_to`` when set) as `collect_files` reads
        them; the paths it cannot read are left out. Shared by every child of the same
        template and directory: the caller copies it into the child's files."""
        entry = self._entry(spec)
        key = (base_dir, restrict_to, active_limits().value_size)
        files = entry.files.get(key)
        if files is None:
            calls = entry.template.calls_of("get_file")
            files = entry.files[key] = collect_files(calls, base_dir, restrict_to=restrict_to).files
        return files

    def _entry(self, spec: ChildSpec, model: Template | None = None) -> _Parsed:
        key = (id(spec.template), spec.location)
        kept = self._parsed.get(key)
        if kept is not None and kept.data is spec.template:
            return kept
        entry = _Parsed(
            spec.template, parse_template(Document(spec.template, "yaml", spec.location))
        )
        if model is not None:
            share_misspelled(entry.template, model)
        if len(self._parsed) >= KEPT:
            del self._parsed[next(iter(self._parsed))]
        self._parsed[key] = entry
        return entry
