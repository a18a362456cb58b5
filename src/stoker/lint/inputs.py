"""What the linter was asked to read: files, directories (recursively) and VNF packages.

Each command-line input becomes a `Package`: a directory or a ``.zip`` is one package, and
the loose files named on the command line form one together. A package lists the files
that may be templates or environments and answers "what does this relative path from that
file name?" for get_file and provider templates. Zip members are read in memory; their
positions name ``package.zip!path/in/zip.yaml``.

A ZIP with ``heat.yaml`` (or ``blueprint.yaml``) at its root is a *stack package*, the
input of ``stack create -t pkg.zip`` and of ``POST /stacks``: unless the ONAP profile
reads it as a VNF package, it is read by the stack commands' own reader
(`stoker.definition.archive.read_package`, with its refusals), and only its entry and its
``environment.yaml`` are linted, the entry with that environment applied
(`stoker.lint.workspace`), so ``lint`` and ``stack create`` see the same stack.
"""

from __future__ import annotations

import io
import os
import posixpath
import zipfile
from enum import StrEnum
from typing import NamedTuple

from stoker.definition import BLUEPRINT_ENTRY, ENTRY, Reuse, StackPackage, read_package
from stoker.diagnostics import Diagnostic, Span
from stoker.errors import PackageError
from stoker.limits import active_limits, over_limit
from stoker.lint.codes import PACKAGE_UNREADABLE
from stoker.template.loader import Document

#: suffixes of files a directory or zip is searched for (templates and environments)
LINTABLE_SUFFIXES = (".yaml", ".yml", ".json", ".template", ".env")
ZIP_SEPARATOR = "!"
#: members smaller than this are not held to the compression ratio (tiny files of
#: repeated characters compress very well and are harmless)
RATIO_FROM_BYTES = 64 * 1024


class PackageKind(StrEnum):
    DIRECTORY = "directory"
    ZIP = "zip"
    #: a ZIP with heat.yaml (or blueprint.yaml) at its root, read as `stack create` does
    STACK = "stack package"
    FILES = "files"  # the loose files named on the command line


class SourceFile(NamedTuple):
    """One file: its display name (used in every position), its path inside the package
    (posix, for pairing and package rules), and where it is on disk (None inside a zip)."""

    name: str
    relpath: str
    disk_path: str | None = None

    @property
    def directory(self) -> str:
        return posixpath.dirname(self.relpath)

    @property
    def stem(self) -> str:
        """The file name without its last suffix (``base.yaml`` and ``base.env``: ``base``)."""
        base = posixpath.basename(self.relpath)
        return base.rsplit(".", 1)[0] if "." in base else base


class Package:
    """One input: its lintable files, and a way to read any file it holds (a plain
    slotted class: a dataclass compiles its generated methods at import, which every lint
    pays; nothing compares or prints a package)."""

    __slots__ = (
        "name",
        "kind",
        "files",
        "problems",
        "root",
        "_archive",
        "_members",
        "_resolved",
        "stack",
        "overlay",
        "reuse",
        "loaded",
    )

    def __init__(self, name: str, kind: PackageKind, *, root: str | None = None) -> None:
        self.name = name
        self.kind = kind
        self.files: list[SourceFile] = []
        self.problems: list[Diagnostic] = []
        self.root = root  # the directory on disk (DIRECTORY)
        self._archive: zipfile.ZipFile | None = None
        self._members: dict[str, zipfile.ZipInfo] = {}
        #: (file, reference) -> what `resolve` found: the rules ask the same question of
        #: every nested file's every user, and the answer on disk costs a stat and path
        #: math
        self._resolved: dict[tuple[str, str], SourceFile | None] = {}
        #: a stack package as the stack commands' reader returned it (STACK): its members
        self.stack: StackPackage | None = None
        #: content that stands for a file on disk, by its absolute path: an editor's
        #: unsaved buffer (`stoker.lsp`), read instead of the file
        self.overlay: dict[str, bytes] = {}
        #: per-resource results of the last check of a file, by its display name: the
        #: language server's, which checks the same buffer at every change
        self.reuse: dict[str, Reuse] = {}
        #: documents already loaded from a file's content, by its display name (the
        #: language server's, which reloads only what a change touched)
        self.loaded: dict[str, Document] = {}

    @property
    def in_archive(self) -> bool:
        """Whether the package's files are members of a ZIP (paths inside the archive)."""
        return self.kind in (PackageKind.ZIP, PackageKind.STACK)

    def read(self, source: SourceFile, limit: int | None = None) -> bytes:
        """The bytes of ``source``; OSError when it cannot be read. With ``limit``, a file
        larger than that many bytes is not read: ``limit + 1`` bytes of it come back, and
        `size` says how large it is (so a zip member is never inflated in full)."""
        if source.disk_path is not None and source.disk_path in self.overlay:
            buffer = self.overlay[source.disk_path]
            return buffer if limit is None else buffer[: limit + 1]
        if source.disk_path is not None:
            with open(source.disk_path, "rb") as handle:
                return handle.read() if limit is None else handle.read(limit + 1)
        if self.stack is not None:
            content = self._stack_member(source.relpath)
            if content is None:
                raise FileNotFoundError(source.name)
            return content if limit is None else content[: limit + 1]
        if self._archive is None or source.relpath not in self._members:
            raise FileNotFoundError(source.name)
        info = self._members[source.relpath]
        if limit is None or info.file_size <= limit:
            return self._archive.read(info)
        with self._archive.open(info) as member:
            return member.read(limit + 1)

    def size(self, source: SourceFile) -> int:
        """The size in bytes of ``source`` (as the archive declares it, in a zip)."""
        if source.disk_path is not None and source.disk_path in self.overlay:
            return len(self.overlay[source.disk_path])
        if source.disk_path is not None:
            return os.path.getsize(source.disk_path)
        if self.stack is not None:
            return len(self._stack_member(source.relpath) or b"")
        return self._members[source.relpath].file_size

    def resolve(self, source: SourceFile, reference: str) -> SourceFile | None:
        """The file a relative ``reference`` written in ``source`` names, if it exists.

        Inside a zip the path must stay inside the archive; on disk it is an ordinary
        relative path from the file's directory.
        """
        key = (source.name, reference)
        if key not in self._resolved:
            self._resolved[key] = self._resolve(source, reference)
        return self._resolved[key]

    def _resolve(self, source: SourceFile, reference: str) -> SourceFile | None:
        if "://" in reference:
            return None
        if source.disk_path is None:
            joined = posixpath.normpath(posixpath.join(source.directory, reference))
            if joined.startswith("../") or joined == "..":
                return None
            if joined not in self._members and self._stack_member(joined) is None:
                return None
            return self.member(joined)
        target = os.path.normpath(os.path.join(os.path.dirname(source.disk_path), reference))
        if not os.path.isfile(target):
            return None
        return self.disk_file(target)

    def member(self, relative: str) -> SourceFile:
        """The `SourceFile` of a zip member, named ``package.zip!path/in/zip``."""
        return SourceFile(f"{self.name}{ZIP_SEPARATOR}{relative}", relative)

    def _stack_member(self, relative: str) -> bytes | None:
        stack = self.stack
        if stack is None:
            return None
        if relative == stack.entry:
            return stack.template.encode("utf-8")
        text = stack.files.get(relative)
        return stack.binary.get(relative) if text is None else text.encode("utf-8")

    def disk_file(self, absolute: str) -> SourceFile:
        """A `SourceFile` for a file on disk, named inside this package when it is in it."""
        if self.root is not None:
            relative = os.path.relpath(absolute, self.root)
            if not relative.startswith(os.pardir):
                display = os.path.normpath(os.path.join(self.name, relative))
                return SourceFile(display, relative.replace(os.sep, "/"), absolute)
        display = display_name(absolute)
        return SourceFile(display, display.replace(os.sep, "/"), absolute)


def display_name(absolute: str) -> str:
    """How a file on disk is named in findings: relative to the working directory, or
    absolute when it is outside it."""
    relative = os.path.relpath(absolute)
    return absolute if relative.startswith(os.pardir) else relative


def is_lintable(name: str) -> bool:
    return name.lower().endswith(LINTABLE_SUFFIXES)


def discover(paths: list[str], stack_packages: bool = True) -> list[Package]:
    """The packages for the inputs, in the order given (loose files last, as one package).

    ``stack_packages``: read a ZIP with ``heat.yaml`` or ``blueprint.yaml`` at its root as
    a stack package (False under the ONAP profile: every ZIP is then a VNF package)."""
    packages: list[Package] = []
    loose = Package("", PackageKind.FILES)
    for path in paths:
        if os.path.isdir(path):
            packages.append(_directory(path))
        elif path.lower().endswith(".zip"):
            packages.append(_zip(path, stack_packages))
        else:
            absolute = os.path.abspath(path)
            loose.files.append(SourceFile(path, path.replace(os.sep, "/"), absolute))
    if loose.files:
        packages.append(loose)
    return packages


def _zip_refusal(members: list[zipfile.ZipInfo]) -> str | None:
    """Why a package is refused unread under the budget's zip limits (a zip bomb: many
    members, a large total, or a member that inflates far beyond its compressed size),
    naming the limit and its option; None when it may be read."""
    limits = active_limits()
    if len(members) > limits.zip_members:
        return _refused("zip_members", f"the archive has {len(members):,} members")
    total = sum(info.file_size for info in members)
    if total > limits.zip_size:
        return _refused("zip_size", f"the archive expands to {total:,} bytes")
    for info in members:
        ratio = info.file_size / max(info.compress_size, 1)
        if info.file_size >= RATIO_FROM_BYTES and ratio > limits.zip_ratio:
            return _refused(
                "zip_ratio",
                f"the member {info.filename} expands {ratio:,.0f} times "
                f"({info.compress_size:,} to {info.file_size:,} bytes)",
            )
    return None


def _refused(name: str, what: str) -> str:
    return f"{over_limit(name, what)}; refusing to read it"


def _directory(path: str) -> Package:
    root = os.path.abspath(path)
    name = path.rstrip("/" + os.sep) or path
    package = Package(name, PackageKind.DIRECTORY, root=root)
    for directory, subdirectories, names in os.walk(root):
        subdirectories[:] = sorted(d for d in subdirectories if not d.startswith("."))
        for file_name in sorted(names):
            if is_lintable(file_name) and not file_name.startswith("."):
                package.files.append(package.disk_file(os.path.join(directory, file_name)))
    return package


def _zip(path: str, stack_packages: bool = True) -> Package:
    package = Package(path, PackageKind.ZIP)
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > active_limits().zip_size:  # not even read into memory
                too_large = _refused("zip_size", f"the archive has {size:,} bytes")
                package.problems.append(
                    Diagnostic(PACKAGE_UNREADABLE, too_large, span=Span(path, 1, 1))
                )
                return package
            data = handle.read()
            archive = zipfile.ZipFile(io.BytesIO(data))
    except (OSError, zipfile.BadZipFile) as error:
        package.problems.append(
            Diagnostic(
                PACKAGE_UNREADABLE,
                f"cannot open the package as a zip archive: {error}",
                span=Span(path, 1, 1),
            )
        )
        return package
    if stack_packages and _is_stack_package(archive):
        return _stack_package(path, data)
    members = [info for info in archive.infolist() if not info.is_dir()]
    refusal = _zip_refusal(members)
    if refusal is not None:
        package.problems.append(Diagnostic(PACKAGE_UNREADABLE, refusal, span=Span(path, 1, 1)))
        return package
    package._archive = archive
    for info in sorted(members, key=lambda member: member.filename):
        relative = posixpath.normpath(info.filename.lstrip("/"))
        if relative.startswith("../"):
            continue  # a member that would leave the archive names nothing in the package
        package._members[relative] = info
        parts = relative.split("/")
        if is_lintable(relative) and not any(part.startswith(".") for part in parts):
            package.files.append(SourceFile(f"{path}{ZIP_SEPARATOR}{relative}", relative))
    return package


def _is_stack_package(archive: zipfile.ZipFile) -> bool:
    """Whether the archive has an entry at its root, by the names the package reader
    looks for (after the same normalisation)."""
    names = {posixpath.normpath(name) for name in archive.namelist()}
    return ENTRY in names or BLUEPRINT_ENTRY in names


def _stack_package(path: str, data: bytes) -> Package:
    """A stack package, read by `read_package` exactly as the stack commands read it; a
    package it refuses (a member leaving the archive, a link, a zip bomb, no entry) is
    one finding at the archive, never a traceback."""
    package = Package(path, PackageKind.STACK)
    try:
        stack = read_package(data, path)
    except PackageError as error:
        message = str(error).removeprefix(f"{path}: ")
        package.problems.append(Diagnostic(PACKAGE_UNREADABLE, message, span=Span(path, 1, 1)))
        return package
    package.stack = stack
    package.files = [package.member(name) for name in (stack.entry, *stack.environment_files)]
    return package
