"""The files map for get_file, read from the package the template came from.

On disk this is exactly what ``template validate`` does (`collect_files`); inside a zip
the same rules apply to the archive: URLs are not fetched, and a path may not leave the
template's directory.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable
from urllib.parse import urlparse

from stoker import codes
from stoker.definition import CollectedFiles, Located, collect_files, collect_with
from stoker.diagnostics import Diagnostic
from stoker.functions.base import Function
from stoker.lint.inputs import Package, SourceFile


def files_for(calls: Iterable[Function], package: Package, source: SourceFile) -> CollectedFiles:
    """The content of every literal get_file path in ``calls``, and what went wrong."""
    if source.disk_path is not None:
        directory = os.path.dirname(source.disk_path)
        # stricter than the engine (which reads ../ as heatclient does): a package whose
        # templates reach outside their directory does not travel
        return collect_files(calls, directory, restrict_to=directory)

    def in_archive(call: Function, key: str) -> Located | Diagnostic | None:
        """A member of the archive, found as on disk: a path may not leave the template's
        directory."""
        joined = posixpath.normpath(posixpath.join(source.directory, key))
        inside = source.directory
        if urlparse(key).scheme == "file" or posixpath.isabs(key) or _outside(joined, inside):
            return Diagnostic(
                codes.FILE_OUTSIDE_TREE,
                f"get_file {key}: the path leaves the template's directory "
                f"({package.name}!{joined} is outside {package.name}!{inside or '.'})",
                call.path,
                call.span,
            )
        target = package.resolve(source, key)
        if target is None:
            return None
        return Located(
            target.name, package.size(target), lambda: package.read(target).decode("utf-8")
        )

    return collect_with(calls, in_archive)


def _outside(path: str, directory: str) -> bool:
    if path == ".." or path.startswith("../"):
        return True
    return bool(directory) and not (path == directory or path.startswith(directory + "/"))
