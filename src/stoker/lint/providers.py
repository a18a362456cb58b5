"""Provider templates: finding the template a resource type stands for in a lint input.

A provider is found in the package that names it, then read and parsed by the one loader
the engine and ``template validate`` use too (`stoker.resolution.providers`), once per
run, even when many facades use it; a template the package itself holds is not loaded
twice.
"""

from __future__ import annotations

import os
import posixpath
from typing import NamedTuple

from stoker.definition import Template
from stoker.errors import TemplateError
from stoker.lint.inputs import ZIP_SEPARATOR, Package, SourceFile
from stoker.resolution import ProviderTemplates, Reader
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
    """The linter's provider templates: a reference written in a file of a package is
    found in that package (a zip's members, or the disk), then read and parsed by the
    one provider loader (`stoker.resolution.ProviderTemplates`), once per run."""

    def __init__(self, limits: LoadLimits) -> None:
        self.limits = limits
        #: where each file a reference found is read from, by its name
        self._sources: dict[str, tuple[Package, SourceFile]] = {}
        self._templates = ProviderTemplates(self._read_source)
        #: files of the run that did not parse (their own findings say why)
        self._unparsed: set[str] = set()
        self._readers: dict[str, ProviderTemplates] = {}

    def release(self) -> None:
        """Forget what the run read. The loader and its readers refer to each other (they
        read through its methods), so the templates they hold would otherwise wait for a
        full collection of the cyclic collector (`PackageContext.release`)."""
        self._sources.clear()
        self._unparsed.clear()
        self._readers.clear()
        self._templates = ProviderTemplates(self._read_source)

    def add(self, source: SourceFile, template: Template | None) -> None:
        """Make a template the run already parsed available as a provider."""
        if template is None:
            self._unparsed.add(source.name)
        else:
            self._templates.add(source.name, template)

    def load(self, package: Package, referrer: SourceFile, reference: str) -> ProviderTemplate:
        """The template ``reference`` (written in ``referrer``) names."""
        if "://" in reference and not reference.startswith("file://"):
            return ProviderTemplate(reference, None, problem="a URL, not fetched", remote=True)
        target = package.resolve(referrer, reference.removeprefix("file://"))
        if target is None:
            return ProviderTemplate(reference, None, problem="no such file")
        if target.name in self._unparsed:
            return ProviderTemplate(reference, target, problem="it could not be parsed")
        self._sources.setdefault(target.name, (package, target))
        try:
            template = self._templates.template(target.name)
        except TemplateError as error:
            first = error.diagnostics[0].render() if error.diagnostics else "invalid"
            return ProviderTemplate(reference, target, problem=f"it does not load ({first})")
        except OSError as error:
            problem = f"it cannot be read ({error.strerror or error})"
            return ProviderTemplate(reference, target, problem=problem)
        return ProviderTemplate(reference, target, template)

    def _read_source(self, name: str) -> Document:
        package, source = self._sources[name]
        return self._load(package, source)

    def _load(self, package: Package, source: SourceFile) -> Document:
        raw = package.read(source, self.limits.max_bytes)
        size = package.size(source) if len(raw) > self.limits.max_bytes else None
        return load_document(raw, source.name, self.limits, size)

    def reader(self, package: Package) -> Reader:
        """A document reader by location, for choosing among a registry list's templates:
        locations inside a zip package (``pkg.zip!dir/x.yaml``, or relative to the
        archive's root) are read from it, others from disk. Each is read once."""
        templates = self._readers.get(package.name)
        if templates is None:
            templates = self._readers[package.name] = ProviderTemplates(
                lambda location: self._read_location(package, location)
            )
        return templates.read

    def _read_location(self, package: Package, location: str) -> Document:
        if package.in_archive:
            prefix = package.name + ZIP_SEPARATOR
            inner = location.removeprefix(prefix)
            member = package.resolve(SourceFile(prefix, ""), posixpath.normpath(inner))
            if member is not None:
                return self._load(package, member)
            if not os.path.isabs(location):
                raise OSError(2, "no such file in the package", location)
        return read_file(location, self.limits)
