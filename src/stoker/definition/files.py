"""Filling the files map for get_file from disk, as Heat's client does before a request.

Only paths inside the template's directory tree are read unless the caller allows more:
a template from someone else must not be able to pull ``/etc/shadow`` or ``~/.ssh`` into
a stack through a relative path or a symlink. URLs are never fetched by default.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from urllib.parse import urlparse

from stoker import codes
from stoker.diagnostics import Diagnostic, Severity
from stoker.functions.base import Function

URL_SCHEMES = ("http", "https", "ftp")


def collect_files(
    calls: Iterable[Function], base_dir: str, *, allow_outside: bool = False
) -> tuple[dict[str, str], list[Diagnostic]]:
    """Read the content of every literal get_file path; report what cannot be read."""
    files: dict[str, str] = {}
    found: list[Diagnostic] = []
    root = os.path.realpath(base_dir)
    for call in calls:
        key = call.args
        if not isinstance(key, str) or key in files:
            continue
        key = str(key)
        parsed = urlparse(key)
        if parsed.scheme in URL_SCHEMES:
            found.append(
                Diagnostic(
                    codes.FILE_NOT_FETCHED,
                    f"get_file {key}: URLs are not fetched; its content is unknown here",
                    call.path,
                    call.span,
                    Severity.WARNING,
                )
            )
            continue
        path = parsed.path if parsed.scheme == "file" else os.path.join(base_dir, key)
        real = os.path.realpath(path)
        if not allow_outside and os.path.commonpath([root, real]) != root:
            found.append(
                Diagnostic(
                    codes.FILE_OUTSIDE_TREE,
                    f"get_file {key}: the path leaves the template's directory ({real} is "
                    f"outside {root}); pass --allow-files-outside to read it anyway",
                    call.path,
                    call.span,
                )
            )
            continue
        if not os.path.isfile(real):
            continue  # get_file's own validation reports the missing content with its place
        try:
            with open(real, encoding="utf-8") as handle:
                files[key] = handle.read()
        except (OSError, UnicodeDecodeError) as error:
            found.append(
                Diagnostic(
                    codes.FILE_MISSING,
                    f"get_file {key}: cannot read {real}: {error}",
                    call.path,
                    call.span,
                )
            )
    return files, found
