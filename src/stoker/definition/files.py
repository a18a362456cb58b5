"""Filling the files map for get_file from disk, as Heat's client does before a request.

Paths are relative to the template that names them and may leave its directory (``../``),
as python-heatclient reads them: real template trees share scripts between directories.
A cautious caller passes ``restrict_to`` (the CLI's ``--restrict-files``) so a template
from someone else cannot pull ``/etc/shadow`` or ``~/.ssh`` into a stack through a
relative path or a symlink. The API server never reads its own filesystem at all: its
templates read from the request's files (`FilesMap`). URLs are never fetched.
"""

from __future__ import annotations

import functools
import os
import posixpath
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple
from urllib.parse import urlparse

from stoker import codes
from stoker.diagnostics import Diagnostic, Severity
from stoker.errors import TemplateError
from stoker.functions.base import Function
from stoker.limits import active_limits, exceeded
from stoker.template.loader import Document, LoadLimits, load_document

URL_SCHEMES = ("http", "https", "ftp")

#: A stack created from a package (``stoker stack create NAME -t pkg.zip``) records its
#: template as ``/abs/pkg.zip!/heat.yaml``, so every operation on it (and on its nested
#: stacks, whose templates are recorded beside it) sees from its directory,
#: ``/abs/pkg.zip!``, that its providers and get_file content are the archive's members
#: in its files map, never files on disk, as the API's stacks always are
PACKAGE_MARK = ".zip!"


def package_template_file(path: str) -> str:
    """Where a stack read from the package at ``path`` records its template."""
    return f"{os.path.abspath(path)}!/heat.yaml"


def in_package(base_dir: str | None) -> bool:
    """Whether a template directory is the inside of a package (see `PACKAGE_MARK`)."""
    return base_dir is not None and base_dir.lower().endswith(PACKAGE_MARK)


@dataclass(slots=True)
class CollectedFiles:
    """The files map, the keys deliberately left unread (so they are not also "missing"),
    and what went wrong."""

    files: dict[str, str] = field(default_factory=dict)
    unread: set[str] = field(default_factory=set)
    diagnostics: list[Diagnostic] = field(default_factory=list)


def url_not_fetched(call: Function, key: str) -> Diagnostic | None:
    """The warning for a get_file of a URL (never fetched), or None for a path."""
    if urlparse(key).scheme not in URL_SCHEMES:
        return None
    return Diagnostic(
        codes.FILE_NOT_FETCHED,
        f"get_file {key}: URLs are not fetched; its content is unknown here",
        call.path,
        call.span,
        Severity.WARNING,
    )


class Located(NamedTuple):
    """Where a get_file path's content is: its name in messages, its size, how to read it."""

    label: str
    size: int
    read: Callable[[], str]


#: where a get_file path leads: its content (`Located`), why it may not be read (a
#: finding), or None: nothing there (get_file's own validation reports it, with its place)
Locator = Callable[[Function, str], "Located | Diagnostic | None"]


def collect_with(calls: Iterable[Function], locate: Locator) -> CollectedFiles:
    """The content of every literal get_file path in ``calls`` where ``locate`` finds it
    (the disk's `collect_files`, a lint package's members), and what went wrong: URLs are
    never fetched, and content larger than a value may be is not read."""
    collected = CollectedFiles()
    for call in calls:
        key = call.args
        if not isinstance(key, str) or key in collected.files or key in collected.unread:
            continue
        key = str(key)
        found: Located | Diagnostic | None = url_not_fetched(call, key)
        if found is None:
            found = locate(call, key)
        if found is None:
            continue
        if isinstance(found, Diagnostic):
            problem = found
        elif found.size > active_limits().value_size:  # a value like any other: never read
            what = f"get_file {key}: {found.label} has {found.size:,} bytes"
            problem = exceeded("value_size", what, span=call.span, path=call.path).diagnostics[0]
        else:
            try:
                collected.files[key] = found.read()
                continue
            except (OSError, UnicodeDecodeError) as error:
                message = f"get_file {key}: cannot read {found.label}: {error}"
                problem = Diagnostic(codes.FILE_MISSING, message, call.path, call.span)
        collected.diagnostics.append(problem)
        collected.unread.add(key)
    return collected


def collect_files(
    calls: Iterable[Function], base_dir: str, *, restrict_to: str | None = None
) -> CollectedFiles:
    """Read the content of every literal get_file path, relative to ``base_dir``; report
    what cannot be read. With ``restrict_to`` only files below that directory are read."""
    root = os.path.realpath(restrict_to) if restrict_to is not None else None

    def locate(call: Function, key: str) -> Located | Diagnostic | None:
        if "\0" in key:
            return Diagnostic(
                codes.FILE_MISSING,
                f"get_file {key!r}: a path cannot contain a NUL byte",
                call.path,
                call.span,
            )
        # A relative ``file:`` URL is relative to the template, as Heat's client joins it
        # with the template's URL; an absolute one stays as it is (join keeps it).
        parsed = urlparse(key)
        path = os.path.join(base_dir, parsed.path if parsed.scheme == "file" else key)
        real = os.path.realpath(path)
        if root is not None and os.path.commonpath([root, real]) != root:
            return Diagnostic(
                codes.FILE_OUTSIDE_TREE,
                f"get_file {key}: the path leaves the template's directory ({real} is "
                f"outside {root}); --restrict-files refuses to read it",
                call.path,
                call.span,
            )
        if not os.path.isfile(real):
            return None
        return Located(real, os.path.getsize(real), functools.partial(_read_text, real))

    return collect_with(calls, locate)


def _read_text(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


@dataclass(slots=True, frozen=True)
class FilesMap:
    """Where provider templates and their ``get_file`` content come from when a request
    carries them (Heat's REST API): the request's ``files`` map, never the disk.

    python-heatclient keys each file by the URL it was referenced with, after rewriting
    the reference to that URL (``file:///abs/dir/x.yaml``); Heat's engine then looks a
    type, a registry path or a ``get_file`` name up in the map as written. A package
    (`stoker.definition.archive`) keys its members by their path in the archive, and a
    provider's ``get_file`` may be relative to the provider's own directory there, so a
    name the map lacks as written is tried next to the file that names it.
    """

    files: Mapping[str, str]

    def key(self, name: str, beside: str | None = None) -> str | None:
        """The map's key for ``name`` (named by the file ``beside``), or None."""
        if name in self.files:
            return name
        if beside is not None and "://" not in name and not name.startswith("/"):
            joined = posixpath.normpath(posixpath.join(posixpath.dirname(beside), name))
            if joined in self.files:
                return joined
        return None

    def read(self, location: str) -> Document:
        """The provider template at ``location``; a `TemplateError` with Heat's message
        when the request did not carry it (Heat fetches only URLs it may, and stoker
        serve fetches none)."""
        key = self.key(location)
        if key is None:
            scheme = urlparse(location).scheme
            raise TemplateError(
                [
                    Diagnostic(
                        codes.FILE_MISSING,
                        f'Could not fetch remote template "{location}": Invalid URL scheme {scheme}'
                        if scheme not in URL_SCHEMES
                        else f'Could not fetch remote template "{location}": it is not in the '
                        "request's files (stoker serve fetches no URL)",
                    )
                ]
            )
        return load_document(self.files[key], location, LoadLimits.of(active_limits()))

    def collect(self, calls: Iterable[Function], beside: str) -> CollectedFiles:
        """The files map of a provider template read from this map: each literal
        ``get_file`` name it carries (a missing one is reported by get_file's own
        validation, with its place)."""
        collected = CollectedFiles()
        for call in calls:
            name = call.args
            if not isinstance(name, str) or name in collected.files:
                continue
            key = self.key(name, beside)
            if key is not None:
                collected.files[name] = self.files[key]
            elif url_not_fetched(call, name) is not None:
                collected.unread.add(name)
        return collected
