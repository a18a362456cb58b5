"""Provider templates: the one loader of the template a resource type stands for.

Where a provider's document comes from differs by caller: the disk, as python-heatclient
reads it (the CLI); a request's files map, as Heat's API receives it (``stoker serve``);
a lint input, a directory or a zip (`stoker.lint.providers`). Each gives a ``read``
function. What is the same for all is `ProviderTemplates`: each location is read once and
parsed once per run however many resources use it (a group of a thousand members names
its template a thousand times), the candidates of a registry list are read through the
same cache, and a location that cannot be read is tried once.

`ProviderCache` makes the engine's runnable `TemplateResource` of a provider: the
template, its parameters as the facade's properties and the ``get_file`` content it reads.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from stoker import codes
from stoker.definition import CollectedFiles, FilesMap, Template, collect_files, parse_template
from stoker.diagnostics import Diagnostic
from stoker.errors import TemplateError
from stoker.resources import TemplateResource
from stoker.template.loader import Document, read_file
from stoker.template.nodes import plain

#: a document by location; raises `TemplateError` (it does not load) or `OSError`
Reader = Callable[[str], Document]


class ProviderTemplates:
    """Provider templates by location, each read and parsed at most once per run."""

    __slots__ = ("_read", "_documents", "_templates", "_failures", "runnable", "plugins")

    def __init__(self, read: Reader = read_file) -> None:
        self._read = read
        self._documents: dict[str, Document] = {}
        self._templates: dict[str, Template] = {}
        self._failures: dict[str, TemplateError | OSError] = {}
        #: what `ProviderCache` makes of a template whatever the stack (its data as the
        #: child's template, the files its ``get_file`` calls read), by location and
        #: ``files_root``: an engine checks a tree with a provider cache per stack
        self.runnable: dict[tuple[str, str | None], _Runnable] = {}
        #: the plugins `ProviderCache` made, by what each is made of: location,
        #: ``files_root``, type name, the template parsed, which parameters need a value
        #: (a plugin is not changed once made; each nested stack's check and create
        #: takes the same one instead of building its properties' schema again)
        self.plugins: dict[tuple[Any, ...], TemplateResource] = {}

    def read(self, location: str) -> Document:
        """The document at ``location`` (also what a registry list's candidates are
        read with, to choose among them); raises what ``read`` raised, every time."""
        document = self._documents.get(location)
        if document is not None:
            return document
        failure = self._failures.get(location)
        if failure is not None:
            raise failure
        try:
            document = self._documents[location] = self._read(location)
        except (TemplateError, OSError) as error:
            self._failures[location] = error
            raise
        return document

    def template(self, location: str) -> Template:
        """The template at ``location``, parsed; raises as `read` does."""
        template = self._templates.get(location)
        if template is None:
            template = self._templates[location] = parse_template(self.read(location))
        return template

    def add(self, location: str, template: Template) -> None:
        """A template the run has parsed already (a linted file another one names)."""
        self._templates[location] = template


class ProviderCache:
    """The engine's provider templates as runnable types, by location and type name (one
    read per template per operation).

    They come from the disk (the CLI: paths relative to the template that names them),
    or, given ``source``, only from a request's files map (the API: names as written,
    Heat's way); the rest of the resolution is the same."""

    def __init__(
        self,
        files_root: str | None = None,
        source: FilesMap | None = None,
        templates: ProviderTemplates | None = None,
    ) -> None:
        """``templates``: the disk's templates as another cache of the same run read them
        (an engine checks and creates each nested stack of a tree with a cache of its
        own; the files are read and parsed once)."""
        self._loaded: dict[tuple[str, str], TemplateResource | list[Diagnostic]] = {}
        #: get_file reads only below this directory when set (``--restrict-files``)
        self.files_root = files_root
        self.source = source
        if source is not None:
            self.templates = ProviderTemplates(source.read)
        else:
            self.templates = templates if templates is not None else ProviderTemplates()
        #: reads candidate templates of registry lists once (capabilities resolution)
        self.read: Reader = self.templates.read

    def get(
        self, location: str, type_name: str, defaults: Mapping[str, Any]
    ) -> TemplateResource | list[Diagnostic]:
        key = (location, type_name)
        if key not in self._loaded:
            self._loaded[key] = self._load(location, type_name, defaults)
        return self._loaded[key]

    def _load(
        self, location: str, type_name: str, defaults: Mapping[str, Any]
    ) -> TemplateResource | list[Diagnostic]:
        try:
            template = self.templates.template(location)
        except TemplateError as error:
            return error.diagnostics
        except OSError as error:
            return [
                Diagnostic(
                    codes.RESOURCE_DEFINITION,
                    f"cannot read provider template {location}: {error.strerror}",
                )
            ]
        # A default that breaks its own constraints fails the nested stack's create, not
        # the facade's schema: Heat's validate accepts it (see TreeCheck).
        refused = [d for d in template.errors if not is_default_error(d)]
        if refused:
            return refused
        parameters = {
            name: (parameter.type, not parameter.has_default and name not in defaults)
            for name, parameter in template.parameters.items()
        }
        key = (location, self.files_root)
        runnable = self.templates.runnable.get(key)
        if runnable is None:
            runnable = self.templates.runnable[key] = self._runnable(location, template)
        if runnable.unreadable:
            return list(runnable.unreadable)
        made = (*key, type_name, id(template), *(required for _, required in parameters.values()))
        plugin = self.templates.plugins.get(made)
        if plugin is None:
            plugin = TemplateResource(
                type_name, location, runnable.data, parameters, runnable.base_dir
            )
            plugin = self.templates.plugins[made] = _with_files(
                plugin, template, runnable.collected
            )
        return plugin

    def _runnable(self, location: str, template: Template) -> _Runnable:
        data = plain(template.document.data) or {}
        calls = list(template.calls_of("get_file"))
        if self.source is not None:
            return _Runnable(data, None, self.source.collect(calls, location), [])
        base_dir = os.path.dirname(os.path.abspath(location))
        # get_file in a provider template is relative to that template, as heatclient
        # reads it
        collected = collect_files(calls, base_dir, restrict_to=self.files_root)
        # a literal path python-heatclient cannot read stops it before any request, in a
        # nested template as in the top one (measured: files_matrix/tree.missing_*)
        unreadable = [d for d in collected.diagnostics if d.is_error] + [
            Diagnostic(
                codes.FILE_MISSING,
                f"get_file {call.args}: cannot read {os.path.join(base_dir, call.args)} "
                "(python-heatclient refuses the request: Could not fetch contents)",
                call.path,
                call.span,
            )
            for call in calls
            if isinstance(call.args, str)
            and call.args not in collected.files
            and call.args not in collected.unread
        ]
        return _Runnable(data, base_dir, collected, unreadable)


class _Runnable(NamedTuple):
    """A provider template made runnable, whatever the stack that uses it."""

    data: dict[str, Any]  # the child's template, as plain data
    base_dir: str | None  # where its get_file paths start (None: a request's files map)
    collected: CollectedFiles
    #: the get_file paths python-heatclient could not read (the provider is refused)
    unreadable: list[Diagnostic]


def _with_files(
    plugin: TemplateResource, template: Template, collected: CollectedFiles
) -> TemplateResource:
    plugin.files = collected.files  # type: ignore[attr-defined]
    plugin.template_model = template  # type: ignore[attr-defined]
    return plugin


def is_default_error(diagnostic: Diagnostic) -> bool:
    """A parameter's default that breaks its own constraints: Heat's validate accepts
    the template, and the nested stack's create fails."""
    return diagnostic.code == codes.PARAMETER_SCHEMA and diagnostic.path[-1:] in (
        ("default",),
        ("Default",),
    )
