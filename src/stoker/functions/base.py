"""The intrinsic-function tree: the base class, the parser and the generic walkers.

A template is parsed once into plain data in which every function call is a `Function`
object. The same tree answers three questions: is it well formed (`validate`), which
resources does it need (`dependencies`), and what is its value (`resolve`). Heat models
functions the same way; see heat-semantics §1.6 for the parse rules kept here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from stoker import codes
from stoker.diagnostics import Diagnostic, Path, Severity, Span
from stoker.errors import FunctionError
from stoker.template.nodes import MappingNode, SequenceNode, StrNode, key_span
from stoker.template.versions import TemplateVersion


class _Omit:
    """The value of a two-argument ``if`` whose condition is false: "leave this out"."""

    _instance: ClassVar[_Omit | None] = None

    def __new__(cls) -> _Omit:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "OMIT"


OMIT = _Omit()


class Unresolved(Exception):  # noqa: N818 - a signal, not an error
    """Raised by a static context when a value needs a running resource.

    ``stoker template resolve`` catches it and shows the expression instead of a value.
    """

    def __init__(self, what: str) -> None:
        self.what = what
        super().__init__(what)


class Context(Protocol):
    """What a function needs at run time. The engine and the static resolver implement it."""

    stack_name: str | None
    stack_id: str | None
    project_id: str | None

    def parameter(self, name: str) -> Any:
        """The typed value of a parameter or pseudo parameter; FunctionError if unknown."""

    def has_resource(self, name: str) -> bool:
        """Is ``name`` a resource that exists (declared and enabled)?"""

    def reference(self, resource: str) -> Any:
        """The reference id of a resource (get_resource, Ref)."""

    def attribute(self, resource: str, attribute: str, path: tuple[Any, ...]) -> Any:
        """An attribute of a resource, navigated by ``path``."""

    def all_attributes(self, resource: str) -> Any:
        """Every attribute of a resource as a map (``get_attr: [res]``)."""

    def file(self, key: str) -> str:
        """``files[key]`` for get_file; FunctionError if there is no such content."""

    def condition(self, name: str) -> bool:
        """The value of a named condition."""

    def facade(self, kind: str) -> Any:
        """resource_facade data (metadata / deletion_policy / update_policy)."""

    def availability_zones(self) -> list[str]: ...

    def mapping(self, name: str) -> Any:
        """A CFN ``Mappings`` entry for Fn::FindInMap; FunctionError if missing."""


@dataclass(slots=True)
class Scope:
    """Static facts a function's `validate` and `dependencies` may consult.

    ``condition_values`` and ``disabled_resources`` hold what is known once parameter
    values are known; an empty map means "unknown", so checks stay lenient.
    """

    version: TemplateVersion
    resources: Mapping[str, str] = field(default_factory=dict)  # name -> type
    parameters: frozenset[str] = frozenset()  # declared names and pseudo parameters
    conditions: frozenset[str] = frozenset()  # declared condition names
    condition_values: Mapping[str, bool] = field(default_factory=dict)
    disabled_resources: frozenset[str] = frozenset()
    mappings: Mapping[str, Any] = field(default_factory=dict)
    files: Mapping[str, str] | None = None  # None: the files map is not known
    #: get_file keys whose content was deliberately not read (URLs, refused paths)
    unread_files: frozenset[str] = frozenset()
    provider: bool = True  # may this template be a provider template (resource_facade)?
    context: Context | None = None  # a static context for evaluating inline conditions
    #: `functions_in`'s answers: id of a tree -> (the tree, its calls in this scope); not
    #: an argument (a replaced scope starts without one)
    walked: dict[int, tuple[Any, list[Function]]] = field(
        init=False, default_factory=dict, compare=False, repr=False
    )

    def condition_value(self, argument: Any) -> bool | None:
        """Evaluate a condition argument statically; ``None`` if it cannot be known."""
        if isinstance(argument, bool):
            return argument
        if isinstance(argument, str):
            return self.condition_values.get(argument)
        if self.context is None:
            return None
        try:
            value = resolve(argument, self.context)
        except (FunctionError, Unresolved):
            return None
        return value if isinstance(value, bool) else None


class Function:
    """An intrinsic function call: ``{name: args}`` in a template.

    Subclasses override `validate` (argument shapes and references, at parse time),
    `dependencies` (resources referenced directly; nested calls are found by the walker),
    `children` (which argument subtrees the walkers visit) and `resolve` (the value).
    """

    #: a one-line summary for ``stoker template function list``; defaults to the docstring
    summary: ClassVar[str] = ""

    def __init__(
        self, name: str, args: Any, *, path: Path, span: Span | None, version: TemplateVersion
    ) -> None:
        self.name = str(name)
        self.args = args
        self.path = path
        self.span = span
        self.version = version

    # -- parse time ------------------------------------------------------------------------
    @classmethod
    def parse_arguments(cls, parser: Parser, args: Any, path: Path) -> Any:
        """Parse the raw arguments; ``if`` overrides this to read its condition."""
        return parser.parse(args, path)

    def validate(self, scope: Scope) -> Iterable[Diagnostic]:
        return ()

    def structure(self, scope: Scope) -> Iterable[Diagnostic]:
        """The part of `validate` Heat checks without computing a value.

        Heat checks an output only as far as it parses the call and runs the call's own
        ``validate``; anything else fails when the output is read (``output_error``), not
        at validate or create. Calls that check nothing beyond that keep this default.
        """
        return self.validate(scope)

    def dependencies(self, scope: Scope) -> Iterable[str]:
        """Names of resources this call itself references (not its nested calls)."""
        return ()

    def children(self, scope: Scope | None) -> Iterable[Any]:
        """Argument subtrees the walkers descend into."""
        return (self.args,)

    # -- run time --------------------------------------------------------------------------
    def resolve(self, context: Context) -> Any:
        raise NotImplementedError(f"{type(self).__name__}.resolve")

    # -- helpers ---------------------------------------------------------------------------
    def error(self, message: str) -> FunctionError:
        """A run-time failure of this call, pointing at it."""
        return FunctionError(message, self.path, self.span)

    def invalid(self, message: str, code: str = codes.FUNCTION_ARGUMENTS) -> Diagnostic:
        """A validation finding about this call."""
        return Diagnostic(code, message, self.path, self.span)

    def __repr__(self) -> str:
        return f"{{{self.name}: {self.args!r}}}"

    def to_data(self) -> dict[str, Any]:
        """The call as template data again (for display of unresolved values)."""
        return {self.name: to_data(self.args)}


FunctionFactory = Callable[..., Function]


@dataclass(slots=True, frozen=True)
class FunctionTable:
    """The functions one template version knows, by wire name.

    ``removed`` names parse but fail validation (Heat keeps CFN names in HOT this way);
    ``known`` is every function name of any version, so a name this version lacks can be
    reported as literal data. Immutable.
    """

    version: TemplateVersion
    functions: Mapping[str, FunctionFactory]
    removed: frozenset[str] = frozenset()
    conditions: Mapping[str, FunctionFactory] = field(default_factory=dict)
    #: name -> where the function exists, for the literal-data warning
    first_version: Mapping[str, str] = field(default_factory=dict)


class Parser:
    """Turns raw template data into data with `Function` objects for function calls."""

    def __init__(self, table: FunctionTable, diagnostics: list[Diagnostic] | None = None):
        self.table = table
        self.diagnostics = diagnostics if diagnostics is not None else []
        self.calls: list[Function] = []  # every call parsed, in document order of parsing
        self._in_condition = False
        #: each factory's ``parse_arguments``, found once per template, not once per call
        self._argument_parsers: dict[FunctionFactory, Callable[[Parser, Any, Path], Any]] = {}

    def parse(self, data: Any, path: Path) -> Any:
        # A scalar is its own parse: an item that is one is kept without a call (nor the
        # path it would be given), as most of a template's items are.
        leaves = SCALAR_TYPES
        if type(data) in leaves:
            return data
        kind = type(data)
        if kind is MappingNode or isinstance(data, dict):
            if len(data) == 1:
                (name,) = data
                if isinstance(name, str):
                    call = self._call(data, name, path)
                    if call is not None:
                        return call
            result: dict[Any, Any]
            if kind is MappingNode:  # what the loader makes: its positions, shared
                result = node = _new_dict(MappingNode)
                node.span = data.span
                node.key_spans = data.key_spans
                node.value_spans = data.value_spans
            else:  # a plain mapping (built in code): no positions
                result = {}
            for key, value in data.items():
                result[key] = value if type(value) in leaves else self.parse(value, (*path, key))
            return result
        if kind is SequenceNode or isinstance(data, list):
            result_list: list[Any]
            if kind is SequenceNode:
                result_list = items = _new_list(SequenceNode)
                items.span = data.span
                items.item_spans = data.item_spans
            else:
                result_list = []
            append = result_list.append
            for index, value in enumerate(data):
                append(value if type(value) in leaves else self.parse(value, (*path, index)))
            return result_list
        return data

    def parse_condition(self, data: Any, path: Path) -> Any:
        """Parse a condition expression with the version's condition-function table."""
        saved = self._in_condition
        self._in_condition = True
        try:
            return self.parse(data, path)
        finally:
            self._in_condition = saved

    def _call(self, data: dict[Any, Any], name: str, path: Path) -> Function | None:
        table = self.table
        functions = table.conditions if self._in_condition else table.functions
        factory = functions.get(name)
        call_path = (*path, name)
        if factory is None:  # rare: most one-key mappings of a template are known calls
            if self._in_condition and name in table.functions:
                factory = InvalidInContext
            elif name in table.removed:
                factory = Removed
            else:
                first = table.first_version.get(name)
                if first is not None:
                    self.diagnostics.append(
                        Diagnostic(
                            codes.FUNCTION_NOT_IN_VERSION,
                            f'"{name}" is not a function in {table.version}, so it is kept as '
                            f"literal data; it is a function {first}",
                            call_path,
                            key_span(data, name),
                            Severity.WARNING,
                        )
                    )
                return None
        parse_arguments = self._argument_parsers.get(factory)
        if parse_arguments is None:
            parse_arguments = self._argument_parsers[factory] = _argument_parser(factory)
        call = factory(
            name,
            parse_arguments(self, data[name], call_path),
            path=call_path,
            span=data.key_spans.get(name) if type(data) is MappingNode else key_span(data, name),
            version=table.version,
        )
        self.calls.append(call)
        return call


def _argument_parser(factory: FunctionFactory) -> Callable[[Parser, Any, Path], Any]:
    """The ``parse_arguments`` of the class ``factory`` makes (a class or a
    `functools.partial` of one)."""
    target = factory.func if hasattr(factory, "func") else factory
    parser: Callable[[Parser, Any, Path], Any] = getattr(
        target, "parse_arguments", Function.parse_arguments
    )
    return parser


_new_dict = dict.__new__
_new_list = list.__new__


class Removed(Function):
    """A function this template version has removed (it parses, then fails validation)."""

    def validate(self, scope: Scope) -> Iterable[Diagnostic]:
        yield self.invalid(
            f"The template version is invalid: The function {self.name} is not supported in "
            f"this version of HOT ({self.version}).",
            codes.FUNCTION_REMOVED,
        )

    def resolve(self, context: Context) -> Any:
        raise self.error(f"The function {self.name} is not supported in this version of HOT.")


class InvalidInContext(Function):
    """A function used where only condition functions are allowed."""

    def validate(self, scope: Scope) -> Iterable[Diagnostic]:
        yield self.invalid(
            f'The function "{self.name}" is invalid in this context (only condition '
            "functions may be used in conditions)",
            codes.FUNCTION_CONTEXT,
        )

    def resolve(self, context: Context) -> Any:
        raise self.error(f'The function "{self.name}" is invalid in this context')


# ----------------------------------------------------------------------------- walkers


#: the scalar types a template's data is made of: no walker looks into them
SCALAR_TYPES = frozenset({str, StrNode, int, float, bool, type(None)})
#: the scalar types `resolve` returns as they are (a StrNode becomes a plain str)
_AS_IS = frozenset({str, int, float, bool, type(None)})


#: the trees `functions_in` answers at once when empty (or None)
_EMPTY_TREES = frozenset({dict, list, type(None)})


def iter_functions(value: Any, scope: Scope | None = None) -> Iterator[Function]:
    """Every function call in ``value`` (with a scope, only branches that can be taken)."""
    leaves = SCALAR_TYPES
    stack = [value]
    pop, extend = stack.pop, stack.extend
    while stack:  # depth first, in document order
        item = pop()
        if type(item) in leaves:
            continue
        if isinstance(item, Function):
            yield item
            extend(reversed(list(item.children(scope))))
        elif isinstance(item, dict):
            extend(reversed(item.values()))
        elif isinstance(item, list):
            extend(reversed(item))


def functions_in(value: Any, scope: Scope) -> list[Function]:
    """`iter_functions` of ``value`` in ``scope``, as a list kept with the scope: the
    checks before a create walk each resource's trees twice (validation, then the
    attributes read), and the walk depends only on the tree and the scope's facts."""
    if not value and type(value) in _EMPTY_TREES:
        # no resource's properties or metadata at all (10,000 ``OS::Heat::None``): nothing
        # to walk, and nothing worth remembering
        return []
    key = id(value)
    entry = scope.walked.get(key)
    if entry is not None and entry[0] is value:  # the tree itself, not one at a reused id
        return entry[1]
    calls = list(iter_functions(value, scope))
    scope.walked[key] = (value, calls)
    return calls


def validate_tree(value: Any, scope: Scope) -> list[Diagnostic]:
    """Validate every function call that can be reached in ``value``."""
    found: list[Diagnostic] = []
    for function in iter_functions(value, scope):
        found.extend(function.validate(scope))
    return found


def resolve_call(function: Function, context: Context) -> Any:
    """``function.resolve(context)``, its failure located.

    The context (a parameter, a resource, a file it does not have) raises without knowing
    which call asked; the innermost call that did is where the message points.
    """
    try:
        return function.resolve(context)
    except FunctionError as error:
        if error.span is None and not error.path:
            raise function.error(error.message) from None
        raise


def resolve(value: Any, context: Context) -> Any:
    """The value of ``value`` with every function call resolved.

    `OMIT` (from a two-argument ``if``) drops the enclosing list item or map entry; at the
    top it is returned for the caller to interpret.
    """
    kind = type(value)
    if kind in _AS_IS:
        return value  # str(value) of a plain str is itself
    if kind is StrNode:
        return str(value)
    if isinstance(value, Function):
        return resolve_call(value, context)
    # an item that is a plain scalar is its own value: no call for it (most items are)
    if isinstance(value, dict):
        result: dict[Any, Any] = {}
        for key, item in value.items():
            resolved = item if type(item) in _AS_IS else resolve(item, context)
            if resolved is not OMIT:
                result[key if type(key) is str else str(key) if isinstance(key, str) else key] = (
                    resolved
                )
        return result
    if isinstance(value, list):
        resolved_items = []
        for item in value:
            resolved = item if type(item) in _AS_IS else resolve(item, context)
            if resolved is not OMIT:
                resolved_items.append(resolved)
        return resolved_items
    if isinstance(value, str):
        return str(value)
    return value


def to_data(value: Any) -> Any:
    """Template data again, with function objects turned back into ``{name: args}``."""
    if isinstance(value, Function):
        return value.to_data()
    if isinstance(value, dict):
        return {str(k) if isinstance(k, str) else k: to_data(v) for k, v in value.items()}
    if isinstance(value, list):
        return [to_data(v) for v in value]
    if isinstance(value, str):
        return str(value)
    return value


def is_literal(value: Any) -> bool:
    """True if ``value`` contains no function call."""
    if type(value) in SCALAR_TYPES:
        return True
    return next(iter_functions(value), None) is None


def json_keys(value: Any) -> Any:
    """``value`` with every map key as JSON writes it (``1`` -> ``"1"``, ``true`` ->
    ``"true"``, null -> ``"null"``). Heat's engine receives the template as JSON, so a key
    YAML reads as a number is a string by the time a function sees it: ``map_replace``'s
    ``values: {1: one}`` never matches the number 1, and yaql sees ``"1"`` (measured on
    24.1.2: tests/fidelity attributes/yaml_keys.*)."""
    if type(value) is dict or isinstance(value, Mapping):  # a dict without the ABC's check
        return {_json_key(k): json_keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_keys(v) for v in value]
    return value


def _json_key(key: Any) -> Any:
    if isinstance(key, str):
        return key
    if key is None:
        return "null"
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int | float):
        return repr(float(key)) if isinstance(key, float) else str(key)
    return key
