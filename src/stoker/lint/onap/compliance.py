"""R-92635's answer: what ``stoker template validate`` says for a file of the package.

A module is validated with the environment files paired with it, as ``template validate
base.yaml -e base.env`` would be, and the tree below it (nested templates, groups) through
the same `validate_tree`; a file whose version Heat rejects gets that error alone, as Heat
stops there. Duplicate keys count too, as ONAP's validation counts them. The linter's
catalog checks that go beyond validate are not part of it: they are the default profile's
opinions, not Heat's answer.
"""

from __future__ import annotations

import os
from dataclasses import replace

from stoker.codes import DUPLICATE_KEY
from stoker.diagnostics import Diagnostic
from stoker.lint.context import FileContext, PackageContext, TemplateContext
from stoker.lint.memo import memoized
from stoker.resolution import ProviderCache, validate_tree
from stoker.resources import ResourceTypeRegistry, default_registry


def heat_answer(ctx: FileContext) -> list[Diagnostic]:
    """The errors validation reports for ``ctx`` (with its environments), positioned in
    the package's files, after the file's duplicate keys (which Heat's loader lets pass,
    the last one winning, but ONAP's validation counts against R-92635: the author's
    intent is lost)."""
    duplicates = [d for d in ctx.core if d.code == DUPLICATE_KEY]
    errors = [d for d in ctx.core if d.is_error]
    if not isinstance(ctx, TemplateContext) or ctx.version_problems:
        return [*duplicates, *errors]
    disk_path = ctx.source.disk_path
    if errors or ctx.definition is None or disk_path is None:
        return [*duplicates, *errors]  # validate stops at the template's own errors
    cache, registry = _caches(ctx.package)
    # An exception here is a stoker bug: the runner reports it as an internal error
    # rather than this rule answering "compliant" for a tree it could not check.
    found, _ = validate_tree(ctx.definition, disk_path, cache=cache, registry=registry)
    return [*duplicates, *(_in_package(ctx, d) for d in found if d.is_error)]


@memoized
def _caches(package: PackageContext) -> tuple[ProviderCache, ResourceTypeRegistry]:
    """One provider cache and type registry per package: a nested file used by many
    modules is read once, and the registry is built once rather than per module."""
    return ProviderCache(), default_registry(lazily=True)  # a type's module when used


def _in_package(ctx: TemplateContext, diagnostic: Diagnostic) -> Diagnostic:
    """A finding in a nested file, named as the package names that file."""
    span = diagnostic.span
    if span is None or span.file == ctx.name or not os.path.isabs(span.file):
        return diagnostic
    source = ctx.package.package.disk_file(span.file)
    return replace(diagnostic, span=span._replace(file=source.name))
