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
from stoker.definition import CollectedFiles, collect_files, url_not_fetched
from stoker.diagnostics import Diagnostic
from stoker.functions.base import Function
from stoker.limits import active_limits, exceeded
from stoker.lint.inputs import Package, SourceFile


def files_for(calls: Iterable[Function], package: Package, source: SourceFile) -> CollectedFiles:
    """The content of every literal get_file path in ``calls``, and what went wrong."""
    if source.disk_path is not None:
        directory = os.path.dirname(source.disk_path)
        # stricter than the engine (which reads ../ as heatclient does): a package whose
        # templates reach outside their directory does not travel
        return collect_files(calls, directory, restrict_to=directory)
    return _from_archive(calls, package, source)


def _from_archive(
    calls: Iterable[Function], package: Package, source: SourceFile
) -> CollectedFiles:
    collected = CollectedFiles()
    for call in calls:
        key = call.args
        if not isinstance(key, str) or key in collected.files or key in collected.unread:
            continue
        key = str(key)

        scheme = urlparse(key).scheme
        not_fetched = url_not_fetched(call, key)
        if not_fetched is not None:
            collected.diagnostics.append(not_fetched)
            collected.unread.add(key)
            continue
        joined = posixpath.normpath(posixpath.join(source.directory, key))
        inside = source.directory
        leaves = scheme == "file" or posixpath.isabs(key) or _outside(joined, inside)
        if leaves:
            collected.diagnostics.append(
                Diagnostic(
                    codes.FILE_OUTSIDE_TREE,
                    f"get_file {key}: the path leaves the template's directory "
                    f"({package.name}!{joined} is outside {package.name}!{inside or '.'})",
                    call.path,
                    call.span,
                )
            )
            collected.unread.add(key)
            continue
        target = package.resolve(source, key)
        if target is None:
            continue  # get_file's own validation reports the missing content
        size, limit = package.size(target), active_limits().value_size
        if size > limit:  # its content is a value like any other: never read in full
            what = f"get_file {key}: {target.name} has {size:,} bytes"
            found = exceeded("value_size", what, span=call.span, path=call.path)
            collected.diagnostics.extend(found.diagnostics)
            collected.unread.add(key)
            continue
        try:
            collected.files[key] = package.read(target).decode("utf-8")
        except (OSError, UnicodeDecodeError) as error:
            collected.diagnostics.append(
                Diagnostic(
                    codes.FILE_MISSING,
                    f"get_file {key}: cannot read {target.name}: {error}",
                    call.path,
                    call.span,
                )
            )
            collected.unread.add(key)
    return collected


def _outside(path: str, directory: str) -> bool:
    if path == ".." or path.startswith("../"):
        return True
    return bool(directory) and not (path == directory or path.startswith(directory + "/"))
