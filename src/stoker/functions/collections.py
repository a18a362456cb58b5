"""Functions on lists and maps: ``repeat``, ``map_merge``, ``map_replace``, ``list_concat``,
``filter``, ``contains`` and the CFN ``Fn::Select``, ``Fn::MemberListToMap`` and
``Fn::FindInMap``.

Semantics and messages follow heat-semantics §2 and notes 8-10 of §1.4.
"""

from __future__ import annotations

import contextlib
import itertools
import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from stoker import codes
from stoker.diagnostics import Diagnostic
from stoker.functions.base import Context, Function, Scope, json_keys, resolve
from stoker.functions.strings import PureFunction, is_list
from stoker.limits import active_limits, json_value, value_size
from stoker.patterns import LazyPattern


class Repeat(PureFunction):
    """A copy of a template per item: ``repeat: {template: 'port %p%', for_each: {'%p%': [80]}}``.

    With several ``for_each`` variables the result is every combination (in map order);
    ``permutations: false`` (2017-09-01+) pairs equal-length lists instead. From 2016-10-14
    (``maps_allowed``) a map iterates over its keys. Substitution is plain text replacement
    in every string key and value of the template, after the template's own calls resolved.
    """

    def __init__(
        self,
        name: str,
        args: Any,
        *,
        maps_allowed: bool = True,
        permutations_allowed: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(name, args, **kwargs)
        self.maps_allowed = maps_allowed
        self.permutations_allowed = permutations_allowed

    def _syntax_error(self, args: Any) -> str:
        if not isinstance(args, Mapping):
            return f'Arguments to "{self.name}" must be a map'
        return (
            f'"{self.name}" syntax should be {self.name}: {{template: "This is %var%", '
            'for_each: {"%var%": ["a", "b", "c"]}}'
        )

    def _permutations(self, args: Mapping[str, Any]) -> Any:
        # Before 2017-09-01 the key is one of the "extra keys" Heat ignores.
        return args.get("permutations", True) if self.permutations_allowed else True

    def _value_error(self, nested: bool) -> str:
        kinds = "lists or maps" if (self.maps_allowed and nested) else "lists"
        return f'The values of the "for_each" argument to "{self.name}" must be {kinds}'

    def _valid_value(self, value: Any, nested: bool) -> bool:
        return is_list(value) or (self.maps_allowed and nested and isinstance(value, Mapping))

    def parse_problems(self) -> Iterator[Diagnostic]:
        args = self.args
        if not isinstance(args, Mapping) or "for_each" not in args or "template" not in args:
            yield self.invalid(self._syntax_error(args))
        elif not isinstance(self._permutations(args), bool):
            yield self.invalid(f'"permutations" should be boolean type for {self.name} function.')
        elif not isinstance(args["for_each"], Mapping | Function):
            yield self.invalid(f'The "for_each" argument to "{self.name}" must contain a map')

    def check_arguments(self) -> Iterator[Diagnostic]:
        args = self.args
        if not isinstance(args, Mapping) or "for_each" not in args or "template" not in args:
            yield self.invalid(self._syntax_error(args))
            return
        nested = self._permutations(args)
        if not isinstance(nested, bool):
            yield self.invalid(f'"permutations" should be boolean type for {self.name} function.')
            return
        for_each = args["for_each"]
        if isinstance(for_each, Function):
            return
        if not isinstance(for_each, Mapping):
            yield self.invalid(f'The "for_each" argument to "{self.name}" must contain a map')
            return
        for value in for_each.values():
            if not isinstance(value, Function | None) and not self._valid_value(value, nested):
                yield self.invalid(self._value_error(nested))
                return

    def compute(self, args: Any) -> Any:
        if not isinstance(args, Mapping) or "for_each" not in args or "template" not in args:
            raise self.error(self._syntax_error(args))
        nested = self._permutations(args)
        if not isinstance(nested, bool):
            raise self.error(f'"permutations" should be boolean type for {self.name} function.')
        for_each = args["for_each"]
        if not isinstance(for_each, Mapping):
            raise self.error(f'The "for_each" argument to "{self.name}" must contain a map')
        if not for_each:
            raise self.error(f'The "for_each" argument to "{self.name}" must not be empty')
        keys = list(for_each)
        values: list[Any] = []
        lengths: set[int] = set()
        for value in for_each.values():
            if value is None:  # e.g. an attribute of a resource not created yet
                values.append([])
                continue
            if not self._valid_value(value, nested):
                raise self.error(self._value_error(nested))
            values.append(list(value))
            lengths.add(len(value))
        if not nested and len(lengths) > 1:
            raise self.error(
                f"For {self.name}, the length of for_each values should be equal if no nested loop."
            )
        template = args["template"]
        # Count the copies before making any: a product of a few lists, or a repeat of a
        # repeat, asks for more than could ever be built.
        count = 1
        if nested:
            for value in values:
                count *= len(value)
        else:
            count = min((len(value) for value in values), default=0)
        limits = active_limits()
        if count:
            self.reserve(count * max(value_size(template, limits.value_size, limits.depth), 8))
        combinations = itertools.product(*values) if nested else zip(*values, strict=False)
        return [self._substitute(keys, combo, template) for combo in combinations]

    def _substitute(self, keys: list[Any], values: tuple[Any, ...], template: Any) -> Any:
        if isinstance(template, str):
            for key, value in zip(keys, values, strict=True):
                if not isinstance(key, str) or not isinstance(value, str):
                    raise self.error(
                        f'"{self.name}" can only substitute strings into the template; '
                        f"{key!r}: {value!r} is not a string"
                    )
                if key and len(value) > len(key):
                    self.reserve(len(template) + template.count(key) * (len(value) - len(key)))
                template = template.replace(key, value)
            return template
        if is_list(template):
            return [self._substitute(keys, values, item) for item in template]
        if isinstance(template, Mapping):
            return {
                self._substitute(keys, values, k): self._substitute(keys, values, v)
                for k, v in template.items()
            }
        return template


class MapMerge(PureFunction):
    """Merge maps, later keys winning: ``map_merge: [{a: 1}, {a: 2, b: 3}]``."""

    def _usage(self) -> str:
        return (
            f'Incorrect arguments to "{self.name}" should be: "{self.name}" : '
            '[ { "key1": "val1" }, { "key2": "val2" } ]'
        )

    def check_arguments(self) -> Iterator[Diagnostic]:
        if isinstance(self.args, Function):
            return
        if not is_list(self.args):
            yield self.invalid(self._usage())
            return
        for item in self.args:
            if not isinstance(item, Mapping | Function | None):
                yield self.invalid("Incorrect arguments: Items to merge must be maps.")
                return

    def compute(self, args: Any) -> Any:
        if not is_list(args):
            raise self.error(self._usage())
        merged: dict[Any, Any] = {}
        for item in args:
            if item is None:
                continue
            if not isinstance(item, Mapping):
                raise self.error("Incorrect arguments: Items to merge must be maps.")
            merged.update(item)
        return merged


class MapReplace(PureFunction):
    """Rename keys and swap values of a map: ``map_replace: [{a: x}, {keys: {a: b}}]``.

    Values are swapped only when the whole value equals a ``values`` key.
    """

    def _usage(self) -> str:
        return (
            f'Incorrect arguments to "{self.name}" should be: "{self.name}" : [ {{ "key1": '
            '"val1" }, {"keys": {"key1": "key2"}, "values": {"val1": "val2"}}]'
        )

    def _not_a_map(self) -> str:
        return (
            f'Incorrect arguments: to "{self.name}", arguments must be a list of maps. '
            f"Example:  {self._usage()}"
        )

    def check_arguments(self) -> Iterator[Diagnostic]:
        args = self.args
        if isinstance(args, Function):
            return
        if not is_list(args) or len(args) != 2:
            yield self.invalid(self._usage())
            return
        for item in args:
            if not isinstance(item, Mapping | Function | None):
                yield self.invalid(self._not_a_map())
                return
        spec = args[1]
        if isinstance(spec, Mapping):
            if set(spec) - {"keys", "values"}:
                yield self.invalid(self._usage())
                return
            for part in ("keys", "values"):
                if not isinstance(spec.get(part), Mapping | Function | None):
                    yield self.invalid(self._not_a_map())

    def _ensure_map(self, value: Any) -> Mapping[Any, Any]:
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise self.error(self._not_a_map())
        return value

    def compute(self, args: Any) -> Any:
        if not is_list(args) or len(args) != 2:
            raise self.error(self._usage())
        args = json_keys(args)  # as Heat's engine gets them: map keys are strings
        in_map = self._ensure_map(args[0])
        spec = self._ensure_map(args[1])
        if set(spec) - {"keys", "values"}:
            raise self.error(self._usage())
        new_keys = self._ensure_map(spec.get("keys", {}))
        new_values = self._ensure_map(spec.get("values", {}))
        result: dict[Any, Any] = {}
        for key, value in in_map.items():
            new_key = new_keys.get(key)
            if new_key is None:
                new_key = key
            else:
                try:
                    in_input = new_key in in_map and new_key != key
                    in_output = new_key in result
                except TypeError as exc:
                    raise self.error(
                        f"key replacement {new_key!r} cannot be a key (it is not a string or "
                        "number)"
                    ) from exc
                if in_input:
                    raise self.error(
                        f"key replacement {new_key} collides with a key in the input map"
                    )
                if in_output:
                    raise self.error(
                        f"key replacement {new_key} collides with a key in the output map"
                    )
            try:
                result[new_key] = new_values.get(value, value)
            except TypeError:  # an unhashable value cannot be a values key
                result[new_key] = value
        return result


class ListConcat(PureFunction):
    """Concatenate lists: ``list_concat: [[a, b], [c]]``; ``list_concat_unique`` drops repeats.

    ``unique`` keeps the first occurrence of each item.
    """

    def __init__(self, name: str, args: Any, *, unique: bool = False, **kwargs: Any) -> None:
        super().__init__(name, args, **kwargs)
        self.unique = unique

    def _usage(self) -> str:
        return (
            f'Incorrect arguments to "{self.name}" should be: "{self.name}" : '
            "[ [ <value 1>, <value 2> ], [ <value 3>, <value 4> ] ]"
        )

    def check_arguments(self) -> Iterator[Diagnostic]:
        if isinstance(self.args, Function):
            return
        if not is_list(self.args):
            yield self.invalid(self._usage())
            return
        for item in self.args:
            if not isinstance(item, list | Function | None):
                yield self.invalid(
                    f"Incorrect arguments: Items to concat must be lists. {item!r} is not a list"
                )
                return

    def compute(self, args: Any) -> Any:
        if not is_list(args):
            raise self.error(self._usage())
        result: list[Any] = []
        for item in args:
            if item is None:
                continue
            if not is_list(item):
                raise self.error(
                    "Incorrect arguments: Items to concat must be lists. "
                    f"{_json(args)} contains an item that is not a list: {_json(item)}"
                )
            result.extend(item)
        if not self.unique:
            return result
        seen = _Members()
        unique: list[Any] = []
        for item in result:
            if item not in seen:
                seen.add(item)
                unique.append(item)
        return unique


class _Members:
    """Membership by equality, as ``in`` on a list, without its quadratic cost: hashable
    items (equal ones hash alike) in a set, the rest (maps, lists) in a list."""

    def __init__(self, items: Iterable[Any] = ()) -> None:
        self.hashable: set[Any] = set()
        self.other: list[Any] = []
        for item in items:
            self.add(item)

    def add(self, item: Any) -> None:
        try:
            self.hashable.add(item)
        except TypeError:
            self.other.append(item)

    def __contains__(self, item: Any) -> bool:
        try:
            return item in self.hashable
        except TypeError:
            return item in self.other


def _json(value: Any) -> str:
    return json.dumps(value, default=repr)


class Filter(PureFunction):
    """Remove values from a list: ``filter: [[null, ''], [a, null, b]]`` gives ``[a, b]``."""

    checked_when_parsed = True

    def check_arguments(self) -> Iterator[Diagnostic]:
        if not is_list(self.args):
            yield self.invalid(f'Argument to "{self.name}" must be a list')
        elif len(self.args) != 2:
            yield self.invalid(
                f'"{self.name}" expected 2 arguments of the form [values, sequence] but got '
                f"{len(self.args)} arguments instead"
            )

    def compute(self, args: Any) -> Any:
        if not is_list(args) or len(args) != 2:
            raise self.error(f'"{self.name}" expected 2 arguments of the form [values, sequence]')
        values, sequence = args
        if not sequence:
            return sequence
        if not is_list(sequence):
            raise self.error(f'"{self.name}" only works with lists')
        if not values:
            return sequence
        if not is_list(values):
            raise self.error(f'"{self.name}" filters a list of values')
        members = _Members(values)
        return [item for item in sequence if item not in members]


class Contains(PureFunction):
    """Membership test: ``contains: [web, {get_param: roles}]`` (a string tests for a substring)."""

    checked_when_parsed = True

    def check_arguments(self) -> Iterator[Diagnostic]:
        if not is_list(self.args) or not self.args:
            yield self.invalid(
                f'Incorrect arguments to "{self.name}" should be: "{self.name}" : '
                '[ "value1", [ "value1", "value2"]]'
            )
        elif len(self.args) != 2:
            yield self.invalid(
                f'Arguments to "{self.name}" must be of the form: [value1, [value1, value2]]'
            )

    def compute(self, args: Any) -> Any:
        if not is_list(args) or len(args) != 2:
            raise self.error(
                f'Arguments to "{self.name}" must be of the form: [value1, [value1, value2]]'
            )
        value, sequence = args
        if isinstance(sequence, str):
            if not isinstance(value, str):
                raise self.error(
                    f'"{self.name}" can only look for a string in a string, not {value!r}'
                )
            return value in sequence
        if not is_list(sequence):
            raise self.error(f'Second argument to "{self.name}" should be a sequence.')
        return value in sequence


class Select(PureFunction):
    """Pick an item of a list or map: ``Fn::Select: ['1', [a, b, c]]`` gives ``b``.

    Lenient like Heat: a missing item gives ``''``, and a string collection is decoded as
    JSON first.
    """

    checked_when_parsed = True

    def check_arguments(self) -> Iterator[Diagnostic]:
        if not is_list(self.args) or len(self.args) != 2:
            yield self.invalid(
                f'Arguments to "{self.name}" must be of the form [index, collection]'
            )

    def compute(self, args: Any) -> Any:
        if not is_list(args) or len(args) != 2:
            raise self.error(f'Arguments to "{self.name}" must be of the form [index, collection]')
        index, collection = args
        if collection == "":  # a common value of things not available yet
            return ""
        if isinstance(collection, str):
            try:
                collection = json_value(collection)
            except ValueError as exc:
                raise self.error(f'"{self.name}": {exc}') from exc
        if isinstance(collection, Mapping):
            if not isinstance(index, str):
                raise self.error(f'Index to "{self.name}" must be a string')
            return collection.get(index, "")
        with contextlib.suppress(TypeError, ValueError):
            index = int(index)
        if is_list(collection):
            if not isinstance(index, int):
                raise self.error(f'Index to "{self.name}" must be an integer')
            try:
                return collection[index]
            except IndexError:
                return ""
        if collection is None:
            return ""
        raise self.error(f"Arguments to {self.name} not fully resolved")


_MEMBER = LazyPattern(r"\.member\.([0-9]+)\.(.*)")


class MemberListToMap(PureFunction):
    """AWS member list to map: ``Fn::MemberListToMap: [Name, Value, ['.member.0.Name=k', ...]]``."""

    _EXAMPLE = (
        "{'Fn::MemberListToMap': ['Name', 'Value', ['.member.0.Name=key', '.member.0.Value=door']]}"
    )

    checked_when_parsed = True

    def check_arguments(self) -> Iterator[Diagnostic]:
        if not is_list(self.args) or len(self.args) != 3:
            yield self.invalid(f'Wrong Arguments try: "{self._EXAMPLE}"')
            return
        if not isinstance(self.args[0], str):
            yield self.invalid(f"{self.name} Key Name must be a string")
        if not isinstance(self.args[1], str):
            yield self.invalid(f"{self.name} Value Name must be a string")

    def compute(self, args: Any) -> Any:
        if not is_list(args) or len(args) != 3:
            raise self.error(f'Wrong Arguments try: "{self._EXAMPLE}"')
        key_name, value_name, members = args
        if not isinstance(key_name, str) or not isinstance(value_name, str):
            raise self.error(f"{self.name} Key Name and Value Name must be strings")
        if not isinstance(members, Iterable) or isinstance(members, str):
            raise self.error("Member list must be a list")
        partials: dict[str, str] = {}
        for member in members:
            if not isinstance(member, str):
                raise self.error("Member list items must be strings")
            name, sep, value = member.partition("=")
            if not sep:
                raise self.error(
                    f'Member list items must be of the form ".member.<n>.<name>=<value>", not '
                    f"{member!r}"
                )
            partials[name] = value
        # Heat's aws_utils.extract_param_pairs: group ".member.<n>.<field>" by n, in order.
        fields = []
        for name, value in partials.items():
            match = _MEMBER.match(name)
            if match:
                fields.append((int(match.group(1)), match.group(2), value))
        fields.sort(key=lambda field: field[0])
        result: dict[str, str] = {}
        for _, group in itertools.groupby(fields, key=lambda field: field[0]):
            member_fields = {field: value for _, field, value in group}
            if key_name in member_fields and value_name in member_fields:
                result[member_fields[key_name]] = member_fields[value_name]
        return result


class FindInMap(Function):
    """A value from CFN ``Mappings``: ``Fn::FindInMap: [RegionMap, {Ref: AWS::Region}, AMI]``."""

    def structure(self, scope: Scope) -> Iterable[Diagnostic]:
        if not is_list(self.args) or len(self.args) != 3:
            yield self.invalid(
                f'Arguments to "{self.name}" must be of the form [map_name, top_level_key, '
                "second_level_key]"
            )

    def validate(self, scope: Scope) -> Iterable[Diagnostic]:
        problems = list(self.structure(scope))
        if problems:
            yield from problems
            return
        # Check as far as the names are literal; computed names are looked up when resolved.
        value: Any = scope.mappings
        where = "Mappings"
        for key in self.args:
            if isinstance(key, Function):
                return
            if not isinstance(key, str | int | float):
                yield self.invalid(f'The names given to "{self.name}" must be strings, not {key!r}')
                return
            if not isinstance(value, Mapping):
                return
            if key not in value:
                yield self.invalid(
                    f'"{self.name}": there is no key {key!r} in {where}', codes.FUNCTION_FAILED
                )
                return
            value = value[key]
            where = f"{where}.{key}"

    def resolve(self, context: Context) -> Any:
        args = resolve(self.args, context)
        if not is_list(args) or len(args) != 3:
            raise self.error(
                f'Arguments to "{self.name}" must be of the form [map_name, top_level_key, '
                "second_level_key]"
            )
        map_name, key, second = args
        for name in args:
            if not isinstance(name, str | int | float):
                raise self.error(f'The names given to "{self.name}" must be strings, not {name!r}')
        value = context.mapping(str(map_name))
        where = f"Mappings.{map_name}"
        for part in (key, second):
            try:
                value = value[part]
            except (KeyError, IndexError, TypeError) as exc:
                raise self.error(f'"{self.name}": there is no key {part!r} in {where}') from exc
            where = f"{where}.{part}"
        return value
