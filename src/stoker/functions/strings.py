"""String functions: ``str_replace`` and its strict forms, ``list_join``, ``str_split``,
``digest`` and the CFN string functions ``Fn::Join``, ``Fn::Split``, ``Fn::Replace`` and
``Fn::Base64``.

Also home of `PureFunction`, the base of every function whose value depends only on its
arguments: such a call can be evaluated while validating when its arguments hold no other
call, so a failure Heat would only report when creating the stack is reported up front.
Semantics and messages follow heat-semantics §2 and notes 4-7 of §1.4.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, ClassVar

from stoker import codes
from stoker.diagnostics import Diagnostic
from stoker.errors import FunctionError
from stoker.functions.base import Context, Function, Scope, is_literal, resolve, to_data
from stoker.limits import active_limits, charge, reserve, value_size


def is_list(value: Any) -> bool:
    """A template list (Heat's "Sequence but not a string")."""
    return isinstance(value, list | tuple)


def _is_mapping(value: Any) -> bool:
    """``isinstance(value, Mapping)``, a plain dict (most values) told without the ABC's
    check."""
    return type(value) is dict or isinstance(value, Mapping)


def to_json(value: Any) -> str:
    """Serialise like Heat's ``jsonutils.dumps(value, sort_keys=True)``."""
    return json.dumps(value, sort_keys=True)


class PureFunction(Function):
    """A function whose value depends only on its (resolved) arguments.

    Subclasses implement `check_arguments` (shape checks that tolerate nested calls) and
    `compute`. Validation runs `compute` too when the arguments are literal data, so e.g.
    ``str_split: [',', 'a,b', 5]`` is reported before anything is created.
    """

    #: set once `check_arguments` found nothing and `check_lasts` says that answer holds
    #: for every later evaluation: a call's parsed arguments never change, so validation,
    #: the static checks and each evaluation at create need not walk them again
    _checked: bool = False
    #: Heat makes all of `check_arguments` when it parses the call (`parse_problems`)
    checked_when_parsed: ClassVar[bool] = False

    def validate(self, scope: Scope) -> Iterable[Diagnostic]:
        if not self._checked:
            problems = list(self.check_arguments())
            if problems:
                yield from problems
                return
            self._checked = self.check_lasts()
        if is_literal(self.args):
            try:
                self.computed(to_data(self.args))
            except FunctionError as exc:
                yield self.invalid(exc.message, codes.FUNCTION_FAILED)

    def check_arguments(self) -> Iterator[Diagnostic]:
        """Problems with the argument shape that are visible before evaluation."""
        return iter(())

    def check_lasts(self) -> bool:
        """Whether a clean `check_arguments` stays clean: it reads only the call's own
        arguments, unless a subclass's check also measures against the value budget
        (`stoker.limits`), whose remainder shrinks as a command runs."""
        return True

    def structure(self, scope: Scope) -> Iterable[Diagnostic]:
        return self.parse_problems()

    def parse_problems(self) -> Iterator[Diagnostic]:
        """The shape problems Heat finds when it parses the call (most find none)."""
        return self.check_arguments() if self.checked_when_parsed else iter(())

    def resolve(self, context: Context) -> Any:
        # Shape errors Heat reports when parsing come first, with the same message.
        if not self._checked:
            for problem in self.check_arguments():
                raise self.error(problem.message)
            self._checked = self.check_lasts()
        return self.computed(resolve(self.args, context))

    def computed(self, args: Any) -> Any:
        """`compute`, with the value counted against the evaluation's budget
        (`stoker.limits`): one value may not pass ``--max-value-size`` or nest deeper
        than ``--max-depth``, and all of a command's values not ``--max-total-value-size``."""
        value = self.compute(args)
        charge(value, f'"{self.name}"', span=self.span, path=self.path)
        return value

    def reserve(self, size: int) -> None:
        """Refuse to build a value of about ``size`` bytes that could not be kept."""
        reserve(size, f'"{self.name}"', span=self.span, path=self.path)

    def compute(self, args: Any) -> Any:
        """The value for fully resolved ``args``; raise ``self.error(...)`` on failure."""
        raise NotImplementedError(f"{type(self).__name__}.compute")


def _key_text(key: Any) -> str:
    """A params key as Heat sees it after its JSON round trip (``1`` -> ``"1"``)."""
    return key if isinstance(key, str) else json.dumps(key)


class StrReplace(PureFunction):
    """Substitute params into a string: ``str_replace: {template: 'Hi $n', params: {$n: Bo}}``.

    Keys are tried longest first (ties in lexicographic order) and replaced text is never
    scanned again, so overlapping keys behave predictably. Options follow the version
    matrix: ``json_values`` (2015-10-15+) serialises list/map values as JSON instead of
    failing, ``strict`` (``str_replace_strict``) requires every key to occur, ``nonempty``
    (``str_replace_vstrict``) also rejects empty values.
    """

    def __init__(
        self,
        name: str,
        args: Any,
        *,
        json_values: bool = False,
        strict: bool = False,
        nonempty: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(name, args, **kwargs)
        self.json_values = json_values
        self.strict = strict
        self.nonempty = nonempty

    # The two argument layouts (HOT map, CFN list) differ only here.
    def _split_args(self, args: Any) -> tuple[Any, Any] | None:
        """``(params, template)``, or None when the arguments have the wrong shape."""
        if _is_mapping(args) and "params" in args and "template" in args:
            return args["params"], args["template"]
        return None

    def _syntax_error(self, args: Any) -> str:
        if not isinstance(args, Mapping):
            return f'Arguments to "{self.name}" must be a map'
        return (
            f'"{self.name}" syntax should be {self.name}: {{template: "This is var1 template '
            'var2", params: {var1: a, var2: string}}'
        )

    def parse_problems(self) -> Iterator[Diagnostic]:
        parts = self._split_args(self.args)
        if parts is None:
            yield self.invalid(self._syntax_error(self.args))
        elif not isinstance(parts[0], Mapping | Function):
            yield self.invalid(f'"{self.name}" parameters must be a mapping')

    def check_arguments(self) -> Iterator[Diagnostic]:
        parts = self._split_args(self.args)
        if parts is None:
            yield self.invalid(self._syntax_error(self.args))
            return
        params, template = parts
        if not isinstance(template, str | Function):
            yield self.invalid(f'"{self.name}" template must be a string')
        if not isinstance(params, Mapping | Function):
            yield self.invalid(f'"{self.name}" parameters must be a mapping')
            return
        if isinstance(params, Mapping):
            for key, value in params.items():
                if key == "":
                    yield self.invalid(f'"{self.name}" param placeholders must not be empty')
                if is_literal(value):
                    try:
                        self._replacement(to_data(value), _key_text(key))
                    except FunctionError as exc:
                        yield self.invalid(exc.message)

    def check_lasts(self) -> bool:
        # a literal list or map param is measured against the budget (`_replacement`)
        parts = self._split_args(self.args)
        params = parts[0] if parts is not None else None
        if not isinstance(params, Mapping):
            return True
        return not any(isinstance(value, Mapping | list | tuple) for value in params.values())

    def _replacement(self, value: Any, key: str) -> str:
        """The text substituted for ``key``: Heat's ``_validate_replacement``."""
        if value is None:
            if self.nonempty:
                raise self._empty(key)
            return ""
        if isinstance(value, str | int | float):  # bool is an int: str(True) == "True"
            text = str(value)
            if self.nonempty and not text:
                raise self._empty(key)
            return text
        if not self.json_values:
            raise self.error(
                f'"{self.name}" params must be strings or numbers, param {key} is not valid'
            )
        if isinstance(value, Mapping | list | tuple):
            if self.nonempty and not value:
                raise self._empty(key)
            limits = active_limits()
            self.reserve(value_size(value, limits.value_size, limits.depth))
            try:
                return to_json(value)
            except (TypeError, ValueError) as exc:
                raise self.error(
                    f'"{self.name}" params must be strings, numbers, list or map. Failed to '
                    f"json serialize {value}"
                ) from exc
        raise self.error(f'"{self.name}" params must be strings, numbers, list or map.')

    def _empty(self, key: str) -> FunctionError:
        return self.error(
            f"{self.name} has an undefined or empty value for param {key}, must be a "
            "defined non-empty value"
        )

    def compute(self, args: Any) -> Any:
        parts = self._split_args(args)
        if parts is None:
            raise self.error(self._syntax_error(args))
        params, template = parts
        if not isinstance(template, str):
            raise self.error(f'"{self.name}" template must be a string')
        if not _is_mapping(params):
            raise self.error(f'"{self.name}" params must be a map')
        mapping = {_key_text(key): value for key, value in params.items()}
        keys = sorted(sorted(mapping), key=len, reverse=True)
        # Heat splits on the first key, then each piece on the next key, and joins back:
        # segments already substituted are final, which is why text is never rescanned.
        segments: list[tuple[str, bool]] = [(template, False)]
        found: set[str] = set()
        for key in keys:
            value = self._replacement(mapping[key], key)
            if not key:
                raise self.error(f'"{self.name}" param placeholders must not be empty')
            next_segments: list[tuple[str, bool]] = []
            for text, final in segments:
                if final:
                    next_segments.append((text, True))
                    continue
                pieces = text.split(key)
                if len(pieces) > 1:
                    found.add(key)
                for index, piece in enumerate(pieces):
                    if index:
                        next_segments.append((value, True))
                    if piece:
                        next_segments.append((piece, False))
            segments = next_segments
        if self.strict:
            missing = set(mapping) - found
            if missing:
                listed = ",".join(sorted(sorted(missing), key=len, reverse=True))
                raise self.error(f"The following params were not found in the template: {listed}")
        self.reserve(sum(len(text) for text, _ in segments))
        return "".join(text for text, _ in segments)


class CfnReplace(StrReplace):
    """CFN string substitution: ``Fn::Replace: [{$var: foo}, '$var is here']``.

    Same algorithm as ``str_replace`` of 2013-05-23 (scalar values only), list arguments.
    """

    def _split_args(self, args: Any) -> tuple[Any, Any] | None:
        if is_list(args) and len(args) == 2:
            return args[0], args[1]
        return None

    def _syntax_error(self, args: Any) -> str:
        return (
            f'Incorrect arguments to "{self.name}" should be: {{"{self.name}": [ {{"$var1": '
            '"foo", "%var2%": "bar"}, "$var1 is %var2%"]}'
        )


class ListJoin(PureFunction):
    """Join lists of strings with a delimiter: ``list_join: [', ', [a, b], [c]]``.

    Before 2015-10-15 (``multiple_lists=False``) exactly one list of strings is allowed;
    from then on several lists are concatenated (empty ones skipped) and list or map items
    are serialised as JSON. Numbers are never accepted as items, as in Heat.
    """

    def __init__(self, name: str, args: Any, *, multiple_lists: bool = False, **kwargs: Any):
        super().__init__(name, args, **kwargs)
        self.multiple_lists = multiple_lists

    def _usage(self) -> str:
        more = " ..." if self.multiple_lists else ""
        return (
            f'Incorrect arguments to "{self.name}" should be: "{self.name}" : '
            f'[ " ", [ "str1", "str2"]{more}]'
        )

    def _shape_ok(self, args: Any) -> bool:
        if not is_list(args):
            return False
        return len(args) >= 2 if self.multiple_lists else len(args) == 2

    def parse_problems(self) -> Iterator[Diagnostic]:
        if not self._shape_ok(self.args):
            yield self.invalid(self._usage())

    def check_arguments(self) -> Iterator[Diagnostic]:
        if not self._shape_ok(self.args):
            yield self.invalid(self._usage())
            return
        delimiter, *lists = self.args
        if not isinstance(delimiter, str | Function):
            yield self.invalid(f'"{self.name}" delimiter must be a string')
        for strings in lists:
            if isinstance(strings, Function) or (self.multiple_lists and not strings):
                continue
            if strings is not None and not is_list(strings):
                yield self.invalid(f'"{self.name}" must operate on a list')
                continue
            for item in strings or ():
                if is_literal(item):
                    try:
                        self._text(to_data(item))
                    except FunctionError as exc:
                        yield self.invalid(exc.message)

    def _text(self, item: Any) -> str:
        if item is None:
            return ""
        if isinstance(item, str):
            return item
        if not self.multiple_lists:
            raise self.error(f"Items to join must be strings not {repr(item)[:200]}")
        if isinstance(item, Mapping | list | tuple):
            try:
                return to_json(item)
            except (TypeError, ValueError) as exc:
                raise self.error(
                    "Items to join must be string, map or list. "
                    f"{repr(item)[:200]} failed json serialization"
                ) from exc
        raise self.error(f"Items to join must be string, map or list not {repr(item)[:200]}")

    def compute(self, args: Any) -> Any:
        if not self._shape_ok(args):
            raise self.error(self._usage())
        delimiter, *lists = args
        items: list[Any] = []
        for strings in lists:
            if self.multiple_lists and not strings:
                continue
            if strings is None:
                continue
            if not is_list(strings):
                raise self.error(f'"{self.name}" must operate on a list')
            items.extend(strings)
        if not isinstance(delimiter, str):
            raise self.error(f'"{self.name}" delimiter must be a string')
        # Measure before serialising: a list item shared many times (YAML aliases) would
        # otherwise be written out in full before its size is known.
        limits = active_limits()
        size = len(delimiter) * len(items)
        for item in items:
            size += (
                len(item)
                if isinstance(item, str)
                else value_size(item, limits.value_size - size, limits.depth)
            )
            if size > limits.value_size:
                break
        self.reserve(size)
        return delimiter.join(self._text(item) for item in items)


class CfnJoin(ListJoin):
    """CFN join of one list of strings: ``Fn::Join: [',', [a, b]]``."""


class StrSplit(PureFunction):
    """Split a string, optionally picking one item: ``str_split: [',', 'a,b,c', 1]``.

    A ``null`` string gives ``null`` (values of resources not created yet often are).
    """

    def _usage(self) -> str:
        return f'"{self.name}" : [ ",", "apples,pears", <index>]'

    def parse_problems(self) -> Iterator[Diagnostic]:
        if isinstance(self.args, str | Mapping):
            yield self.invalid(f'Incorrect arguments to "{self.name}" should be: {self._usage()}')

    def check_arguments(self) -> Iterator[Diagnostic]:
        if isinstance(self.args, str | Mapping) or (is_list(self.args) and len(self.args) < 2):
            yield self.invalid(f'Incorrect arguments to "{self.name}" should be: {self._usage()}')
            return
        if is_list(self.args) and not isinstance(self.args[0], str | Function | None):
            yield self.invalid(f'The delimiter of "{self.name}" must be a string')

    def compute(self, args: Any) -> Any:
        if not is_list(args) or len(args) < 2:
            raise self.error(f'Incorrect arguments to "{self.name}" should be: {self._usage()}')
        delimiter, text, *rest = args
        if text is None:
            return None
        if not isinstance(text, str):
            raise self.error(
                f'The string to split with "{self.name}" must be a string, not {text!r}'
            )
        if not isinstance(delimiter, str | None):
            raise self.error(f'The delimiter of "{self.name}" must be a string')
        if delimiter == "":
            raise self.error(f'The delimiter of "{self.name}" must not be empty')
        parts = text.split(delimiter)
        if not rest:
            return parts
        try:
            index = int(rest[0])
        except (TypeError, ValueError) as exc:
            raise self.error(
                f'Incorrect index to "{self.name}" should be: {self._usage()}'
            ) from exc
        if not -len(parts) <= index < len(parts):
            raise self.error(
                f'Incorrect index to "{self.name}" should be between 0 and {len(parts) - 1}'
            )
        return parts[index]


class Digest(PureFunction):
    """Hex digest of a string: ``digest: [sha512, {get_param: password}]``.

    The algorithm is any hashlib provides (``md5``, ``sha256``, ...); the value is hashed
    as latin-1 bytes, as Heat does.
    """

    def check_arguments(self) -> Iterator[Diagnostic]:
        args = self.args
        if isinstance(args, Function):
            return
        if not is_list(args) or any(not isinstance(a, str | Function) for a in args):
            yield self.invalid(f'Argument to function "{self.name}" must be a list of strings')
        elif len(args) != 2:
            yield self.invalid(f'Function "{self.name}" usage: ["<algorithm>", "<value>"]')
        elif isinstance(args[0], str) and args[0].lower() not in hashlib.algorithms_available:
            yield self.invalid(self._algorithms_message())

    @staticmethod
    def _algorithms_message() -> str:
        names = ", ".join(repr(name) for name in sorted(hashlib.algorithms_available))
        return f"Algorithm must be one of {{{names}}}"

    def compute(self, args: Any) -> Any:
        if not is_list(args) or any(not isinstance(a, str) for a in args):
            raise self.error(f'Argument to function "{self.name}" must be a list of strings')
        if len(args) != 2:
            raise self.error(f'Function "{self.name}" usage: ["<algorithm>", "<value>"]')
        algorithm, value = args[0].lower(), args[1]
        if algorithm not in hashlib.algorithms_available:
            raise self.error(self._algorithms_message())
        try:
            data = value.encode("latin-1")
        except UnicodeEncodeError as exc:
            raise self.error(
                f'The value to "{self.name}" must be latin-1 text (Heat hashes it as latin-1 '
                f"bytes): {exc}"
            ) from exc
        try:
            return hashlib.new(algorithm, data).hexdigest()
        except (TypeError, ValueError) as exc:  # shake_* need a length; some need OpenSSL
            raise self.error(
                f'Algorithm {algorithm} cannot be used by "{self.name}": {exc}'
            ) from exc


class CfnSplit(PureFunction):
    """CFN string split: ``Fn::Split: [',', 'a,b']`` (the delimiter must be literal)."""

    def _usage(self) -> str:
        example = f'"{self.name}" : [ ",", "str1,str2"]]'
        return f'Incorrect arguments to "{self.name}" should be: {example}'

    def parse_problems(self) -> Iterator[Diagnostic]:
        if not is_list(self.args) or len(self.args) != 2:
            yield self.invalid(self._usage())

    def check_arguments(self) -> Iterator[Diagnostic]:
        if not is_list(self.args) or len(self.args) != 2:
            yield self.invalid(self._usage())
        elif not isinstance(self.args[0], str):
            yield self.invalid(f"Delimiter for {self.name} must be string")

    def compute(self, args: Any) -> Any:
        if not is_list(args) or len(args) != 2:
            raise self.error(self._usage())
        delimiter, text = args
        literal = is_list(self.args) and isinstance(self.args[0], str)
        if not literal or not isinstance(delimiter, str):
            raise self.error(f"Delimiter for {self.name} must be string")
        if not isinstance(text, str):
            raise self.error(f"String to split must be string; got {type(text)}")
        if not delimiter:
            raise self.error(f"Delimiter for {self.name} must not be empty")
        return text.split(delimiter)


class Base64(PureFunction):
    """CFN ``Fn::Base64: text``: returns the text unchanged (Heat does not encode)."""

    def compute(self, args: Any) -> Any:
        if not isinstance(args, str):
            raise self.error(f'"{self.name}" argument must be a string')
        return args
