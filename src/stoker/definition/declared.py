"""The parameters Heat knows when it merges environment files: every template's.

Heat merges the environment files of a request (``environment_util.merge_environments``)
against ``Template.all_param_schemata(files)``: the parameters declared by *every*
template in the request's ``files`` map (each file that parses as a template), the top
template's winning for a name several declare. A name none of them declares is dropped
from the second file on (the first file's section is taken whole); a declared one is
kept, whichever nested template declares it, and its declared type decides how a
``merge`` strategy combines it.

So the set depends on what the client put in ``files``. For a request (``stoker
serve``) that is the request's map. For the CLI it is what python-heatclient would send
for the same paths: the top template's tree (``get_file`` paths and ``type:`` values
ending in ``.yaml`` or ``.template``, anywhere in a template, followed into every file
that is a template) and every provider template the environment files' registries name
(a value without ``::``), followed the same way, whether a resource uses it or not.
TripleO relies on it: its client's parameter_defaults (``CtlplaneNetworkAttributes``,
``DeployedNetworkEnvironment``, passwords ...) are declared only by nested templates.

The order is heatclient's (a file's children before it, the template's tree before the
environments'); the last declaration of a type wins, then the top template's, as in Heat.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from stoker.definition.template import Template
from stoker.environment.environment import Environment
from stoker.environment.registry_section import TEMPLATE_SUFFIXES
from stoker.errors import TemplateError
from stoker.template.loader import Document, LoadLimits, load_document, read_file
from stoker.template.versions import VERSION_KEYS, is_template_data

_VERSION_MARKS = tuple(key.encode() for key in VERSION_KEYS)
_PARAMETER_SECTIONS = ("parameters", "Parameters")
_TYPE_KEYS = ("type", "Type")
_SCALARS = (str, int, float, type(None))  # bool is an int
_NOT_MAPPINGS = (list, *_SCALARS)


def declared_parameters(template: Template, templates: Iterable[Any]) -> dict[str, str | None]:
    """Parameter name → declared type (as written, HOT or CFN; None when not a string) of
    ``templates`` (plain template data, in the files map's order), then of ``template``,
    whose declarations win: Heat's ``all_param_schemata``."""
    declared: dict[str, str | None] = {}
    for data in templates:
        declared.update(_declared_in(data))
    declared.update({name: p.type.value for name, p in template.parameters.items()})
    return declared


def client_declared(
    template: Template,
    environments: Iterable[Environment],
    base_dir: str | None,
    limits: LoadLimits | None = None,
    restrict_to: str | None = None,
    reads: TemplateReads | None = None,
) -> dict[str, str | None]:
    """`declared_parameters` of what python-heatclient would send for ``template`` (read
    from ``base_dir``; None: the client sends no template, a PATCH keeping the stored one)
    and ``environments`` (the files given with the request, not a stored environment):
    what create, update and lint merge environment files against, the one way.
    ``reads``: the files already read for other templates of the same run."""
    client = ClientFiles(limits, restrict_to, reads)
    if base_dir is not None:
        client.follow_template(template.document.data, base_dir)
    for environment in environments:
        client.follow_environment(environment)
    return declared_parameters(template, client.templates())


def declared_types(declared: Mapping[str, str | None]) -> dict[str, str]:
    """The declared types a merge strategy follows (names declared without one omitted)."""
    return {name: kind for name, kind in declared.items() if kind is not None}


def _declared_in(data: Any) -> Iterator[tuple[str, str | None]]:
    if not isinstance(data, Mapping):
        return
    for section in _PARAMETER_SECTIONS:
        parameters = data.get(section)
        if not isinstance(parameters, Mapping):
            continue
        for name, schema in parameters.items():
            kind = None
            if isinstance(schema, Mapping):
                for key in _TYPE_KEYS:
                    value = schema.get(key)
                    if isinstance(value, str):
                        kind = value
            yield str(name), kind


def request_templates(files: Mapping[str, str], limits: LoadLimits | None = None) -> list[Any]:
    """The data of every entry of a request's files map that is a template, in order."""
    found = []
    for name, text in files.items():
        if not any(mark.decode() in text for mark in _VERSION_MARKS):
            continue  # no version key anywhere: not a template, no need to parse it
        try:
            document = load_document(text, name, limits)
        except TemplateError:
            continue
        if is_template_data(document.data):
            found.append(document.data)
    return found


class TemplateReads:
    """The files `ClientFiles` read from disk (absolute path → the template, None when it
    is not one) and the paths each template names: a lint of a package, whose templates
    name the same nested templates, reads and walks each of those once, not once per
    template naming it. One run's: the files are not read again, so not seen to change."""

    __slots__ = ("documents", "references", "tops")

    def __init__(self) -> None:
        self.documents: dict[str, Document | None] = {}
        self.references: dict[str, tuple[str, ...]] = {}
        #: the template files a command names, by absolute path and the limits read under
        self.tops: dict[tuple[str, LoadLimits | None], Document] = {}

    def top(self, path: str, limits: LoadLimits | None = None) -> Document:
        """The template file a command names, as `read_file` loads it, read once: `stack
        create` looks at it to tell a blueprint from a template, then loads it. Raises
        what `read_file` raises; a failure is not kept (the load reads the file again and
        reports it)."""
        key = (os.path.abspath(path), limits)
        document = self.tops.get(key)
        if document is None:
            document = self.tops[key] = read_file(path, limits)
        return document


class ClientFiles:
    """The templates python-heatclient would put in ``files`` for a template and its
    environment files read from disk, each read once (by absolute path)."""

    __slots__ = ("limits", "restrict_to", "reads", "documents", "_order")

    def __init__(
        self,
        limits: LoadLimits | None = None,
        restrict_to: str | None = None,
        reads: TemplateReads | None = None,
    ) -> None:
        self.limits = limits
        #: read nothing outside this directory (``--restrict-files``)
        self.restrict_to = None if restrict_to is None else os.path.realpath(restrict_to)
        #: the files read, shared with the other templates of a run
        self.reads = TemplateReads() if reads is None else reads
        #: absolute path → its document, for every file read that is a template
        self.documents: dict[str, Document] = {}
        self._order: dict[str, bool] = {}  # every path met, in heatclient's order

    def templates(self) -> list[Any]:
        """The data of the templates met, in heatclient's order of the files map."""
        return [self.documents[p].data for p in self._order if p in self.documents]

    def follow_template(self, data: Any, base_dir: str) -> None:
        """The files a template reads (``get_file``) or names as a provider (``type:``
        ending in ``.yaml``/``.template``), followed into those that are templates."""
        self._follow(_references(data), base_dir)

    def _follow(self, references: Iterable[str], base_dir: str) -> None:
        for value in references:
            if "://" in value and not value.startswith("file://"):
                continue  # never fetched
            path = value[len("file://") :] if value.startswith("file://") else value
            self._add(os.path.normpath(os.path.join(base_dir, path)))

    def follow_environment(self, environment: Environment) -> None:
        """The provider templates an environment file's registry names."""
        for ref in environment.resource_registry.template_paths():
            if "://" in ref.path and not ref.path.startswith("file://"):
                continue
            self._add(os.path.abspath(ref.location))

    def _add(self, path: str) -> None:
        if path in self._order:
            return
        self._order[path] = False  # marked before its children: a loop ends here
        document = self._read(path)
        if document is not None:
            references = self.reads.references.get(path)
            if references is None:
                references = self.reads.references[path] = tuple(_references(document.data))
            self._follow(references, os.path.dirname(path))
            self.documents[path] = document
        # heatclient adds a file after its children
        del self._order[path]
        self._order[path] = True

    def _read(self, path: str) -> Document | None:
        if "\0" in path:
            return None  # reported where the file is used
        if self.restrict_to is not None:
            real = os.path.realpath(path)
            if os.path.commonpath([self.restrict_to, real]) != self.restrict_to:
                return None  # --restrict-files: reported where the file is used
        if path in self.reads.documents:
            return self.reads.documents[path]
        document = self.reads.documents[path] = self._read_template(path)
        return document

    def _read_template(self, path: str) -> Document | None:
        try:
            with open(path, "rb") as handle:
                head = handle.read()
        except OSError:
            return None  # reported where the file is used (heatclient refuses it)
        if not any(mark in head for mark in _VERSION_MARKS):
            return None  # a script or data file: not a template, no need to parse it
        try:
            document = read_file(path, self.limits)
        except (TemplateError, OSError):
            return None
        return document if is_template_data(document.data) else None


def _references(data: Any) -> list[str]:
    """The paths heatclient follows, in its walk: into every mapping and list, children
    first."""
    found: list[str] = []
    _collect_references(data, found)
    return found


def _collect_references(data: Any, found: list[str]) -> None:
    # appended to one list, not yielded up through every level; the scalars (most of the
    # nodes) are skipped before the abstract Mapping's test, and a dict is known without it
    if isinstance(data, dict) or (
        not isinstance(data, _NOT_MAPPINGS) and isinstance(data, Mapping)
    ):
        for value in data.values():
            if not isinstance(value, _SCALARS):
                _collect_references(value, found)
        for key, value in data.items():
            if not isinstance(value, str):
                continue
            if key == "get_file" or (key == "type" and value.endswith(TEMPLATE_SUFFIXES)):
                found.append(value)
    elif isinstance(data, list):
        for value in data:
            if not isinstance(value, _SCALARS):
                _collect_references(value, found)
