"""Reading template and environment documents: format detection, limits, positions.

A document whose first non-blank character is ``{`` is JSON (read by `json_reader`),
anything else YAML (the rule of Heat's YAML-template design). YAML is composed by libyaml
when available, then turned into position-keeping nodes here, so duplicate keys, alias
bombs and excessive nesting are caught before any value is built. Date-like scalars stay
the strings the author wrote (``heat_template_version: 2013-05-23`` must not become a
``date``).

PyYAML is imported only when a YAML document is read (`stoker.template.yaml_reader`), as
JSON's reader is: the OpenStack clients send a stack's template and environment already
parsed, inside a JSON body, so a server they drive need not load it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from stoker.codes import ENCODING, TOO_LARGE
from stoker.collector import collector_paused
from stoker.diagnostics import Diagnostic, Span
from stoker.errors import TemplateError
from stoker.limits import Limits
from stoker.template.json_reader import JsonReader, probe_json
from stoker.template.load_findings import limit_name

_DEFAULTS = Limits()
#: a YAML file larger than this is read by libyaml in pieces, not held whole in memory
#: (only reachable with --max-template-size raised)
STREAM_FROM_BYTES = 4 * 1024 * 1024


@dataclass(slots=True, frozen=True)
class LoadLimits:
    """Bounds that protect the loader from hostile or runaway input (the loading part of
    `stoker.limits.Limits`; each is named in its error with the option that raises it)."""

    max_bytes: int = _DEFAULTS.template_size
    max_depth: int = _DEFAULTS.depth
    #: nodes (keys, values, items), each alias counted again with all it stands for
    max_nodes: int = _DEFAULTS.nodes
    #: characters of scalar text (keys and values), aliases counted where used
    max_expanded: int = _DEFAULTS.expanded_size

    @classmethod
    def of(cls, limits: Limits) -> LoadLimits:
        return cls(limits.template_size, limits.depth, limits.nodes, limits.expanded_size)


@dataclass(slots=True, frozen=True)
class Document:
    """A loaded document: its data (position-keeping nodes), its format and its file name."""

    data: Any
    #: "json" | "yaml"
    format: str
    file: str
    #: what the loader noticed but Heat's loader accepts (a duplicate key: the last wins)
    warnings: tuple[Diagnostic, ...] = ()


def read_file(
    path: str,
    limits: LoadLimits | None = None,
    *,
    yaml_only: bool = False,
    as_written: bool = False,
) -> Document:
    """Load a document from disk (bytes, so encoding errors get a position).

    ``yaml_only`` reads a document that starts with ``{`` as YAML too (environments: Heat
    and python-heatclient parse them with YAML alone, so ``{parameters: {a: 1}}`` is a
    valid environment, while a template starting with ``{`` is JSON).

    A file over the size limit is refused without being read. A large YAML file (the
    size limit raised) is handed to libyaml as a stream, so the loader's limits stop it
    after reading only as much as they allow, instead of after holding it three times
    over (bytes, text, and libyaml's copy); that one is not stripped as python-heatclient
    strips a template's text (see below), only its final line breaks could differ."""
    limits = limits or LoadLimits()
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > limits.max_bytes:
            raise _too_large(size, path, limits)
        if size > STREAM_FROM_BYTES:
            head = handle.read(4096)
            if yaml_only or not head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{"):
                handle.seek(0)
                from stoker.template.yaml_reader import load_yaml  # only YAML pays for it

                warnings: list[Diagnostic] = []
                with collector_paused():
                    value = load_yaml(handle, path, limits, warnings)
                return Document(value, "yaml", path, tuple(warnings))
            handle.seek(0)

            probe_json(handle, path, limits)
            handle.seek(0)
        # Sized by the file, not the limit: read(n) allocates n bytes before it reads, and
        # a raised limit would otherwise cost its whole size in memory (a 200 MB buffer
        # for a 100 MB file).
        raw = handle.read(min(size, limits.max_bytes) + 1)
    if size > STREAM_FROM_BYTES:  # a large JSON document: keep its text only, not twice
        text = _decode(raw, path)
        del raw
        return load_document(text, path, limits, size)
    if yaml_only or as_written:
        return load_document(raw, path, limits, yaml_only=yaml_only)
    # python-heatclient strips a template's text before it parses it (its template_format),
    # so a block scalar that ends the file loses its final line break: what Heat receives
    # (TripleO's service templates end with ``step_config: |``). An environment it parses
    # as written, and ``as_written`` reads a file as it is (``template convert``).
    return load_document(raw.rstrip(), path, limits, len(raw))


def _too_large(size: int, file: str, limits: LoadLimits) -> TemplateError:
    return TemplateError(
        [
            Diagnostic(
                TOO_LARGE,
                f"Template size ({size} bytes) exceeds maximum allowed size "
                f"({limits.max_bytes} bytes); split it into nested templates or raise "
                f"the limit ({limit_name('template_size')})",
                span=Span(file, 1, 1),
            )
        ]
    )


def load_document(
    source: bytes | str,
    file: str = "<template>",
    limits: LoadLimits | None = None,
    size: int | None = None,
    *,
    yaml_only: bool = False,
) -> Document:
    """Parse ``source`` into nodes; raise `TemplateError` with every loader finding.

    ``size`` is the size of the whole file when ``source`` is only its start (a file over
    the size limit is read no further than the limit)."""
    limits = limits or LoadLimits()
    if size is None:
        size = len(source.encode("utf-8")) if isinstance(source, str) else len(source)
    if size > limits.max_bytes:
        raise _too_large(size, file, limits)
    text = _decode(source, file) if isinstance(source, bytes) else source
    with collector_paused():
        if not yaml_only and text.lstrip().startswith("{"):
            # The YAML-template design's rule: a leading brace means JSON, strictly, so
            # a JSON typo is reported as one instead of being reread as YAML flow style.

            reader = JsonReader(text, file, limits)
            return Document(reader.read(), "json", file, tuple(reader.warnings))
        from stoker.template.yaml_reader import load_yaml  # only YAML pays for it

        warnings: list[Diagnostic] = []
        return Document(load_yaml(text, file, limits, warnings), "yaml", file, tuple(warnings))


def _decode(raw: bytes, file: str) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        column = error.start - (raw.rfind(b"\n", 0, error.start) + 1) + 1
        raise TemplateError(
            [
                Diagnostic(
                    ENCODING,
                    f"the file is not valid UTF-8 (byte 0x{raw[error.start]:02x}); "
                    "save it as UTF-8",
                    span=Span(file, line, column),
                )
            ]
        ) from None
