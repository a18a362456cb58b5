"""Reading one environment document: its sections, their shapes, every mistake at once.

Heat answers an unknown or empty section with a bare ``ValueError`` and a wrong shape often
with a crash much later; here each problem becomes a `Diagnostic` pointing at the line and
column it is on, and checking goes on so one run shows them all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from stoker.codes import ENVIRONMENT, ENVIRONMENT_NONPORTABLE
from stoker.diagnostics import Diagnostic, Path, Severity, Span
from stoker.environment.capabilities import check_capability_values
from stoker.environment.environment import (
    DEFAULT_STRATEGY_KEY,
    ENCRYPTED_PARAMETERS_ALIAS,
    REQUIRES,
    ZAQAR_QUEUE,
    Environment,
    EventSink,
    MergeStrategy,
    Section,
)
from stoker.environment.registry import ResourceRegistry
from stoker.environment.registry_section import describe_kind, read_registry_section
from stoker.errors import TemplateError
from stoker.template.loader import Document, LoadLimits, read_file
from stoker.template.nodes import MappingNode, key_span, plain, span_of, value_span

T = TypeVar("T")

SECTION_NAMES = tuple(section.value for section in Section)
_EVENT_SINK_KEYS = ("type", "target", "ttl")
_STRATEGIES = tuple(strategy.value for strategy in MergeStrategy)


def parse_environment(document: Document) -> tuple[Environment, list[Diagnostic]]:
    """Check an environment document and build its `Environment`.

    An empty document is an empty environment. Sections are the six Heat accepts; the
    ``encrypted_parameters`` spelling from Heat's documentation is refused as Heat refuses
    it (a wrong section), with a note on where the spelling comes from. ``requires`` (the
    capabilities spec's section, which chooses among the templates of a registry list) is
    read, with a warning that Heat rejects it.
    """
    return _parse(document, check_registry=True)


def _parse(document: Document, *, check_registry: bool) -> tuple[Environment, list[Diagnostic]]:
    reader = _SectionReader(document.file, check_registry)
    environment = reader.read(document.data)
    return environment, [*document.warnings, *reader.found]


def environment_from_data(
    data: Any, file: str = "<environment>", *, stored: bool = False
) -> tuple[Environment, list[Diagnostic]]:
    """`parse_environment` for data already in memory (an API body's ``environment``).

    ``stored``: the environment a stack stored, accepted when it was stored; its
    registry's mapping loops are not looked for again (resolving every entry of a
    registry of TripleO's size, once for each of its 238 stacks, was half the create)."""
    return _parse(Document(data, "json", file), check_registry=not stored)


def load_environment_file(
    path: str, limits: LoadLimits | None = None
) -> tuple[Environment, list[Diagnostic]]:
    """Read and check an environment file; unreadable or malformed files become diagnostics."""
    try:
        document = read_file(path, limits, yaml_only=True)
    except TemplateError as error:
        return Environment(files=[path]), list(error.diagnostics)
    except OSError as error:
        reason = error.strerror or str(error)
        return Environment(files=[path]), [
            Diagnostic(
                ENVIRONMENT, f"cannot read the environment file: {reason}", span=Span(path, 1, 1)
            )
        ]
    return parse_environment(document)


class _SectionReader:
    """Checks each section of one document, collecting findings in ``found``."""

    def __init__(self, file: str, check_registry: bool = True) -> None:
        self.file = file
        self.check_registry = check_registry
        self.found: list[Diagnostic] = []

    def error(self, message: str, path: Path, span: Span | None) -> None:
        self.found.append(Diagnostic(ENVIRONMENT, message, path, span))

    def read(self, data: Any) -> Environment:
        environment = Environment(files=[self.file])
        if data is None:
            return environment
        if not isinstance(data, dict):
            self.error(
                "The environment is not a valid YAML mapping data type: an environment is a "
                f"mapping of sections ({', '.join(SECTION_NAMES)}), not {describe_kind(data)}",
                (),
                span_of(data) or Span(self.file, 1, 1),
            )
            return environment
        for key, value in data.items():
            k_span = key_span(data, key) or span_of(key)
            name = str(key)
            if key not in SECTION_NAMES and key != REQUIRES:
                hint = ""
                if name == ENCRYPTED_PARAMETERS_ALIAS:
                    hint = (
                        f" ({name} is how Heat's documentation spells "
                        f"{Section.ENCRYPTED_PARAM_NAMES.value}, which Heat writes itself "
                        "when it encrypts hidden parameters)"
                    )
                self.error(
                    f'environment has wrong section "{name}"; the sections are '
                    f"{', '.join(SECTION_NAMES)} (and stoker's {REQUIRES}){hint}",
                    (name,),
                    k_span,
                )
                continue
            if value is None:
                self.error(
                    f'environment has empty section "{name}"; give it a value '
                    "({} or []) or remove it",
                    (name,),
                    k_span,
                )
                continue
            if name == REQUIRES:
                self.found.append(
                    Diagnostic(
                        ENVIRONMENT_NONPORTABLE,
                        f'Heat rejects the section "{name}" (environment has wrong section); '
                        "stoker uses it to choose among the templates a resource_registry list "
                        "offers, by their capabilities",
                        (name,),
                        k_span,
                        Severity.WARNING,
                    )
                )
            self._section(environment, name, value, value_span(data, key) or k_span)
        return environment

    def _section(self, environment: Environment, name: str, value: Any, span: Span | None) -> None:
        if name == Section.PARAMETERS:
            environment.parameters = self._parameters(name, value, span)
        elif name == Section.PARAMETER_DEFAULTS:
            environment.parameter_defaults = self._parameters(name, value, span)
        elif name == Section.ENCRYPTED_PARAM_NAMES:
            environment.encrypted_param_names.extend(self._names(name, value, span))
        elif name == Section.EVENT_SINKS:
            environment.event_sinks = self._event_sinks(value, span)
        elif name == Section.PARAMETER_MERGE_STRATEGIES:
            environment.parameter_merge_strategies = self._strategies(value, span)
        elif name == REQUIRES:
            environment.requires, found = check_capability_values(
                value, section=REQUIRES, code=ENVIRONMENT, span=span
            )
            self.found.extend(found)
        else:
            block, found = read_registry_section(value, file=self.file, span=span)
            self.found.extend(found)
            registry = ResourceRegistry([block])
            if self.check_registry:
                self.found.extend(registry.check())
            environment.resource_registry = registry

    def _mapping(self, section: str, value: Any, span: Span | None) -> MappingNode | None:
        if isinstance(value, dict):
            return value if isinstance(value, MappingNode) else _as_node(value)
        self.error(
            f'environment section "{section}" must be a mapping (got {describe_kind(value)})',
            (section,),
            span_of(value) or span,
        )
        return None

    def _parameters(self, section: str, value: Any, span: Span | None) -> MappingNode:
        mapping = self._mapping(section, value, span)
        result = MappingNode(span_of(mapping) if mapping is not None else span)
        if mapping is None:
            return result
        for key in self._parameter_names(section, mapping):
            _put(result, mapping, key, mapping[key], value_span(mapping, key))
        return result

    def _parameter_names(self, section: str, mapping: MappingNode) -> Iterator[str]:
        """The keys of ``mapping`` that are parameter names, the others reported in turn."""
        for key in mapping:
            if isinstance(key, str):
                yield key
            else:
                self.error(
                    f"parameter name {key!r} in {section} must be a string",
                    (section, str(key)),
                    key_span(mapping, key),
                )

    def _list(
        self,
        section: str,
        value: Any,
        span: Span | None,
        what: str,
        read: Callable[[Any, Path, Span | None], T | None],
    ) -> list[T]:
        """The section's items that ``read`` makes something of (it reports the others)."""
        if not isinstance(value, list):
            self.error(
                f'environment section "{section}" must be a list of {what} '
                f"(got {describe_kind(value)})",
                (section,),
                span_of(value) or span,
            )
            return []
        items = (
            read(item, (section, i), value_span(value, i) or span) for i, item in enumerate(value)
        )
        return [item for item in items if item is not None]

    def _names(self, section: str, value: Any, span: Span | None) -> list[str]:
        return self._list(section, value, span, "parameter names", self._name)

    def _name(self, item: Any, path: Path, span: Span | None) -> str | None:
        if isinstance(item, str):
            return str(item)
        self.error(
            f"{path[0]} entries must be parameter names (got {describe_kind(item)})", path, span
        )
        return None

    def _event_sinks(self, value: Any, span: Span | None) -> list[EventSink]:
        what = f"sinks like {{type: {ZAQAR_QUEUE}, target: <queue>, ttl: <seconds>}}"
        return self._list(Section.EVENT_SINKS.value, value, span, what, self._event_sink)

    def _event_sink(self, item: Any, path: Path, span: Span | None) -> EventSink | None:
        if not isinstance(item, dict):
            self.error(
                f"an event sink must be a mapping {{type, target, ttl}} "
                f"(got {describe_kind(item)})",
                path,
                span,
            )
            return None
        ok = True
        for key in item:
            if key not in _EVENT_SINK_KEYS:
                self.error(
                    f'unknown event sink key "{key}"; the keys are {", ".join(_EVENT_SINK_KEYS)}',
                    (*path, str(key)),
                    key_span(item, key) or span,
                )
                ok = False
        sink_type = item.get("type")
        if sink_type != ZAQAR_QUEUE:
            problem = "has no type" if "type" not in item else f'has type "{plain(sink_type)}"'
            self.error(
                f'event sink {problem}; the only type is "{ZAQAR_QUEUE}"',
                (*path, "type"),
                value_span(item, "type") or span,
            )
            ok = False
        target = item.get("target")
        if not isinstance(target, str) or not target:
            self.error(
                "event sink needs a target, the name of the Zaqar queue",
                (*path, "target"),
                value_span(item, "target") or span,
            )
            ok = False
        ttl = item.get("ttl")
        if ttl is not None and (isinstance(ttl, bool) or not isinstance(ttl, int) or ttl < 0):
            self.error(
                f"event sink ttl must be a whole number of seconds (got {plain(ttl)!r})",
                (*path, "ttl"),
                value_span(item, "ttl") or span,
            )
            ok = False
        if not ok:
            return None
        return EventSink(ZAQAR_QUEUE, str(target), ttl, span)

    def _strategies(self, value: Any, span: Span | None) -> MappingNode:
        section = Section.PARAMETER_MERGE_STRATEGIES.value
        mapping = self._mapping(section, value, span)
        result = MappingNode(span_of(mapping) if mapping is not None else span)
        if mapping is None:
            return result
        for key in self._parameter_names(section, mapping):
            strategy = mapping[key]
            item_span = value_span(mapping, key) or key_span(mapping, key)
            if strategy not in _STRATEGIES:
                what = (
                    "default merge strategy"
                    if key == DEFAULT_STRATEGY_KEY
                    else (f'merge strategy for parameter "{key}"')
                )
                # Heat 24.1.2 logs it and falls back to the default strategy (measured):
                # the environment is accepted, so this is a warning, and the entry is dropped
                self.found.append(
                    Diagnostic(
                        ENVIRONMENT,
                        f'Invalid {what} "{plain(strategy)}"; use one of '
                        f"{', '.join(_STRATEGIES)} (Heat ignores it and uses the default)",
                        (section, key),
                        item_span,
                        Severity.WARNING,
                    )
                )
                continue
            _put(result, mapping, key, str(strategy), item_span)
        return result


def _put(
    result: MappingNode, mapping: MappingNode, key: str, value: Any, span: Span | None
) -> None:
    """``result[key] = value``, with the positions of ``mapping``'s key and of ``span``."""
    result[key] = value
    if key in mapping.key_spans:
        result.key_spans[key] = mapping.key_spans[key]
    if span is not None:
        result.value_spans[key] = span


def _as_node(value: dict[Any, Any]) -> MappingNode:
    node = MappingNode()
    node.update(value)
    return node
