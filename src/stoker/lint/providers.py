"""Provider templates: finding and loading the template a resource type stands for.

A provider is loaded with the same loader and parser as any template, once per run, even
when many facades use it; a template the package itself holds is not loaded twice.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable
from typing import NamedTuple

from stoker.definition.template import Template
from stoker.definition.template_parser import parse_template
from stoker.errors import TemplateError
from stoker.lint.inputs import ZIP_SEPARATOR, Package, SourceFile
from stoker.template.loader import Document, LoadLimits, load_document, read_file


class ProviderTemplate(NamedTuple):
    """A provider template as written (``reference``), and the template when it loaded;
    ``problem`` says why it did not."""

    reference: str
    source: SourceFile | None
    template: Template | None = None
    problem: str | None = None
    remote: bool = False  # a URL: never fetched, so nothing can be said about it


class ProviderLoader:
    """Loads provider templates by reference, caching by file."""

    def __init__(self, limits: LoadLimits) -> None:
        self.limits = limits
        self._templates: dict[str, Template | None] = {}
        self._problems: dict[str, str] = {}
        self._documents: dict[str, dict[str, Document]] = {}

    def add(self, source: SourceFile, template: Template | None) -> None:
        """Make a template the run already parsed available as a provider."""
        self._templates[source.name] = template

    def load(self, package: Package, referrer: SourceFile, reference: str) -> ProviderTemplate:
        """The template ``reference`` (written in ``referrer``) names."""
        if "://" in reference and not reference.startswith("file://"):
            return ProviderTemplate(reference, None, problem="a URL, not fetched", remote=True)
        path = reference[len("file://") :] if reference.startswith("file://") else reference
        target = package.resolve(referrer, path)
        if target is None:
            return ProviderTemplate(reference, None, problem="no such file")
        if target.name not in self._templates and target.name not in self._problems:
            self._read(package, target)
        if target.name in self._problems:
            return ProviderTemplate(reference, target, problem=self._problems[target.name])
        template = self._templates[target.name]
        if template is None:
            return ProviderTemplate(reference, target, problem="it could not be parsed")
        return ProviderTemplate(reference, target, template)

    def _load(self, package: Package, source: SourceFile) -> Document:
        raw = package.read(source, self.limits.max_bytes)
        size = package.size(source) if len(raw) > self.limits.max_bytes else None
        return load_document(raw, source.name, self.limits, size)

    def reader(self, package: Package) -> Callable[[str], Document]:
        """A document reader by location, for choosing among a registry list's templates:
        locations inside a zip package (``pkg.zip!dir/x.yaml``, or relative to the
        archive's root) are read from it, others from disk. Each is read once."""
        cache = self._documents.setdefault(package.name, {})

        def read(location: str) -> Document:
            if location not in cache:
                cache[location] = self._read_location(package, location)
            return cache[location]

        return read

    def _read_location(self, package: Package, location: str) -> Document:
        if package.in_archive:
            inner = location
            prefix = package.name + ZIP_SEPARATOR
            if location.startswith(prefix):
                inner = location[len(prefix) :]
            member = package.resolve(SourceFile(prefix, ""), posixpath.normpath(inner))
            if member is not None:
                return self._load(package, member)
            if not os.path.isabs(location):
                raise OSError(2, "no such file in the package", location)
        return read_file(location, self.limits)

    def _read(self, package: Package, target: SourceFile) -> None:
        try:
            document = self._load(package, target)
        except TemplateError as error:
            first = error.diagnostics[0].render() if error.diagnostics else "invalid"
            self._problems[target.name] = f"it does not load ({first})"
            return
        except OSError as error:
            self._problems[target.name] = f"it cannot be read ({error.strerror or error})"
            return
        self._templates[target.name] = parse_template(document)
