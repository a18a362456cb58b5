"""A stack package: a ZIP holding ``heat.yaml`` at its root and the files it names.

Read in memory, never extracted: each member's text is keyed by its path in the archive,
so ``get_file`` and ``environment_files`` find it in the files map, exactly as a client's
``files``. Refused before anything is inflated: members that would escape the archive
(``..``, absolute paths, drive letters), symbolic links, and the zip-bomb limits of
`stoker.limits` (members, total size, compression ratio), plus any one member larger than
the template size limit.
"""

from __future__ import annotations

import io
import posixpath
import stat
import zipfile
from dataclasses import dataclass, field

from stoker.errors import PackageError
from stoker.limits import active_limits, over_limit

ENTRY = "heat.yaml"
#: the other name a package's entry may have when it is a blueprint (stoker.blueprint)
BLUEPRINT_ENTRY = "blueprint.yaml"
ENVIRONMENT = "environment.yaml"
RATIO_FROM_BYTES = 1024 * 1024  # a small member may compress well; only large ones count


@dataclass(slots=True)
class StackPackage:
    template: str
    files: dict[str, str] = field(default_factory=dict)
    environment_files: list[str] = field(default_factory=list)
    #: members that are not UTF-8 text (a blueprint's WARs and tarballs), by path
    binary: dict[str, bytes] = field(default_factory=dict)
    entry: str = ENTRY


def _limit(name: str, what: str) -> PackageError:
    return PackageError(over_limit(name, what))


def _check_member(info: zipfile.ZipInfo, source: str) -> None:
    name = info.filename
    mode = info.external_attr >> 16
    if stat.S_ISLNK(mode):
        raise PackageError(
            f"{source}: package member {name!r} is a symbolic link; links are refused"
        )
    if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
        raise PackageError(f"{source}: package member {name!r} has an absolute path")
    parts = name.replace("\\", "/").split("/")
    if ".." in parts:
        raise PackageError(
            f"{source}: package member {name!r} leaves the package (a '..' in its path)"
        )


def read_package(data: bytes, source: str = "<package>") -> StackPackage:
    """The package's template, files map and environment files, or a `PackageError`."""
    limits = active_limits()
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as error:
        raise PackageError(f"{source}: not a zip archive: {error}") from None
    members = [info for info in archive.infolist() if not info.is_dir()]
    for info in archive.infolist():
        _check_member(info, source)
    if len(members) > limits.zip_members:
        raise _limit("zip_members", f"{source}: the archive has {len(members):,} members")
    total = sum(info.file_size for info in members)
    if total > limits.zip_size:
        raise _limit("zip_size", f"{source}: the archive expands to {total:,} bytes")
    for info in members:
        ratio = info.file_size / max(info.compress_size, 1)
        if info.file_size >= RATIO_FROM_BYTES and ratio > limits.zip_ratio:
            raise _limit(
                "zip_ratio", f"{source}: the member {info.filename} expands {ratio:,.0f} times"
            )
        if info.file_size > limits.template_size:
            raise _limit(
                "template_size",
                f"{source}: the member {info.filename} has {info.file_size:,} bytes",
            )
    files: dict[str, str] = {}
    binary: dict[str, bytes] = {}
    for info in members:
        key = posixpath.normpath(info.filename)
        try:
            # read no more than declared: a lying header cannot inflate past the limits
            with archive.open(info) as handle:
                raw = handle.read(info.file_size + 1)
            if len(raw) > info.file_size:
                raise PackageError(f"{source}: the member {info.filename} is larger than declared")
            files[key] = raw.decode("utf-8")
        except UnicodeDecodeError:
            binary[key] = raw  # never a template or get_file content; a blueprint's artifact
        except (zipfile.BadZipFile, OSError, RuntimeError) as error:
            raise PackageError(f"{source}: cannot read {info.filename}: {error}") from None
    entry = ENTRY if ENTRY in files else BLUEPRINT_ENTRY
    template = files.pop(entry, None)
    if template is None:
        raise PackageError(
            f"{source}: the package has no {ENTRY} (or {BLUEPRINT_ENTRY}) at its root"
        )
    environments = [ENVIRONMENT] if ENVIRONMENT in files else []
    return StackPackage(template, files, environments, binary, entry)
