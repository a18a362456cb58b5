"""Merging environment files: precedence, merge strategies, registry and the rest."""

from __future__ import annotations

import json

import pytest

from stoker import codes
from stoker.diagnostics import Severity, Span
from stoker.environment import (
    Environment,
    MergeRejected,
    MergeStrategy,
    environment_from_data,
    merge_environments,
    merge_parameter,
    overlay_environment,
    parse_environment,
)
from stoker.template.loader import load_document
from stoker.template.nodes import value_span

from .test_registry import with_global


def env(text: str, file: str = "env1.yaml") -> Environment:
    environment, found = parse_environment(load_document(text, file))
    assert [d for d in found if d.is_error] == []
    return environment


def data_env(data: dict, file: str) -> Environment:
    environment, found = environment_from_data(json.loads(json.dumps(data)), file)
    assert found == []
    return environment


# --------------------------------------------------------------------------- precedence


def test_a_file_overrides_explicit_parameters():
    merged, found = merge_environments(
        [env("parameters:\n  a: from-file\n")],
        explicit_parameters={"a": "explicit", "b": "explicit"},
    )
    assert found == []
    assert merged.parameters == {"a": "from-file", "b": "explicit"}
    assert value_span(merged.parameters, "a") == Span("env1.yaml", 2, 6)
    assert value_span(merged.parameters, "b") is None


def test_a_later_file_overrides_an_earlier_one():
    merged, found = merge_environments(
        [
            env("parameters:\n  a: one\n  b: one\n"),
            env("parameters:\n  a: two\n", "env2.yaml"),
        ]
    )
    assert found == []
    assert merged.parameters == {"a": "two", "b": "one"}
    assert value_span(merged.parameters, "a") == Span("env2.yaml", 2, 6)
    assert value_span(merged.parameters, "b") == Span("env1.yaml", 3, 6)
    assert merged.files == ["env1.yaml", "env2.yaml"]


def test_parameter_defaults_merge_separately():
    merged, _ = merge_environments(
        [
            env("parameters: {a: p1}\nparameter_defaults: {a: d1, b: d1}\n"),
            env("parameter_defaults: {a: d2}\n", "env2.yaml"),
        ]
    )
    assert merged.parameters == {"a": "p1"}
    assert merged.parameter_defaults == {"a": "d2", "b": "d1"}
    assert merged.default_span("a") == Span("env2.yaml", 1, 25)


def test_unknown_names_are_dropped_once_a_section_has_values():
    merged, found = merge_environments(
        [
            env("parameters:\n  a: 1\n  typo: 1\n"),
            env("parameters:\n  a: 2\n  other_typo: 2\n", "env2.yaml"),
        ],
        template_parameter_names={"a"},
    )
    # Heat takes the first values whole (the template check reports "typo" later) and
    # drops unknown names from the second file on.
    assert merged.parameters == {"a": 2, "typo": 1}
    assert [(d.severity, d.path, d.span.line) for d in found] == [
        (Severity.INFO, ("parameters", "other_typo"), 3)
    ]


def test_unknown_names_dropped_from_the_first_file_after_explicit_parameters():
    merged, found = merge_environments(
        [env("parameters:\n  a: 1\n  typo: 1\n")],
        explicit_parameters={"a": "0"},
        template_parameter_names={"a"},
    )
    assert merged.parameters == {"a": 1}
    assert len(found) == 1


def test_null_in_a_later_file_does_not_remove_a_value():
    merged, found = merge_environments(
        [env("parameters: {a: 1}\n"), env("parameters: {a: null, b: 2}\n", "env2.yaml")]
    )
    assert found == []
    assert merged.parameters == {"a": 1, "b": 2}


def test_no_environments():
    merged, found = merge_environments([], explicit_parameters={"a": "1"})
    assert found == []
    assert merged.parameters == {"a": "1"}
    assert merged.files == []


# --------------------------------------------------------------------------- strategies

STRATEGY_CASES = [
    # (id, old, new, strategy, declared type, expected)
    ("json-merge", {"1": ["a"]}, {"3": ["b"]}, "merge", None, {"1": ["a"], "3": ["b"]}),
    ("json-merge-is-shallow", {"k": {"a": 1}}, {"k": {"b": 2}}, "merge", None, {"k": {"b": 2}}),
    (
        "json-deep-merge-recurses",
        {"k": {"a": 1, "n": {"x": 1}}},
        {"k": {"b": 2, "n": {"y": 2}}},
        "deep_merge",
        None,
        {"k": {"a": 1, "b": 2, "n": {"x": 1, "y": 2}}},
    ),
    (
        "json-deep-merge-concatenates-lists",
        {"l": [1]},
        {"l": [2]},
        "deep_merge",
        None,
        {"l": [1, 2]},
    ),
    ("json-merge-replaces-lists", {"l": [1]}, {"l": [2]}, "merge", None, {"l": [2]}),
    (
        "json-deep-merge-concatenates-strings",
        {"s": "ab"},
        {"s": "cd"},
        "deep_merge",
        None,
        {"s": "abcd"},
    ),
    ("json-deep-merge-replaces-numbers", {"n": 1}, {"n": 2}, "deep_merge", None, {"n": 2}),
    ("json-null-is-skipped", {"a": 1}, {"a": None, "b": 2}, "merge", None, {"a": 1, "b": 2}),
    ("json-from-strings", '{"a": 1}', '{"b": 2}', "merge", "json", {"a": 1, "b": 2}),
    ("list-extended", [1, 2], [5, 6], "merge", None, [1, 2, 5, 6]),
    (
        "list-deep-merge-extended",
        [1, 2],
        [5, 6],
        "deep_merge",
        "comma_delimited_list",
        [1, 2, 5, 6],
    ),
    ("string-concatenated", "string1", "string3", "merge", None, "string1string3"),
    ("string-deep-merge-concatenated", "a", "b", "deep_merge", "string", "ab"),
    ("comma-delimited-strings", "a,b", "c", "merge", "comma_delimited_list", ["a", "c"]),
    ("comma-delimited-cfn-type", "a,b", "c", "merge", "CommaDelimitedList", ["a", "c"]),
    ("list-and-string", ["a"], "b,c", "merge", "comma_delimited_list", ["a", "b", "c"]),
    ("string-and-list", "a,b", ["c"], "merge", None, ["a", "b", "c"]),
    ("nothing-earlier", None, {"a": 1}, "merge", None, {"a": 1}),
]


@pytest.mark.parametrize(
    ("old", "new", "strategy", "declared", "expected"),
    [case[1:] for case in STRATEGY_CASES],
    ids=[case[0] for case in STRATEGY_CASES],
)
def test_merge_strategies(old, new, strategy, declared, expected):
    assert merge_parameter("p", old, new, MergeStrategy(strategy), declared) == expected


REJECTED_CASES = [
    ("number", 1, 2, "merge", None, "Invalid merge strategy 'merge' for parameter 'p': a number"),
    ("float", 1.5, 2, "deep_merge", None, "Invalid merge strategy 'deep_merge' for parameter"),
    ("boolean", True, False, "merge", None, "parameter 'p': a boolean cannot be merged"),
    ("declared-number", "1", "2", "merge", "number", "parameter 'p': a number cannot be merged"),
    ("declared-boolean", "true", "no", "merge", "Boolean", "a boolean cannot be merged"),
    ("bad-json-string", {"a": 1}, "{oops", "merge", "json", "is json, and its value is not"),
    ("string-given-a-map", "a", {"b": 1}, "merge", "string", "its value must be a string"),
    ("list-given-a-map", "a", {"b": 1}, "merge", "comma_delimited_list", "must be a list"),
]


@pytest.mark.parametrize(
    ("old", "new", "strategy", "declared", "message"),
    [case[1:] for case in REJECTED_CASES],
    ids=[case[0] for case in REJECTED_CASES],
)
def test_rejected_merges(old, new, strategy, declared, message):
    with pytest.raises(MergeRejected) as caught:
        merge_parameter("p", old, new, MergeStrategy(strategy), declared)
    assert message in str(caught.value)


def test_merging_strategies_across_files():
    merged, found = merge_environments(
        [
            env(
                "parameter_merge_strategies:\n  default: merge\n  o: overwrite\n"
                "parameters:\n  j: {a: 1}\n  l: [1]\n  s: ab\n  o: first\n"
            ),
            env("parameters:\n  j: {b: 2}\n  l: [2]\n  s: cd\n  o: second\n", "env2.yaml"),
        ]
    )
    assert found == []
    assert merged.parameters == {"j": {"a": 1, "b": 2}, "l": [1, 2], "s": "abcd", "o": "second"}
    assert merged.parameter_merge_strategies == {
        "j": "merge",
        "l": "merge",
        "s": "merge",
        "o": "overwrite",
    }
    assert value_span(merged.parameters, "j") == Span("env2.yaml", 2, 6)


def test_rejected_number_merge_is_reported_at_the_value():
    merged, found = merge_environments(
        [
            env("parameter_merge_strategies: {count: merge}\nparameters:\n  count: 1\n"),
            env("parameters:\n  count: 2\n", "env2.yaml"),
        ]
    )
    assert merged.parameters == {"count": 1}
    assert [(d.code, d.span, d.path) for d in found] == [
        (codes.ENVIRONMENT, Span("env2.yaml", 2, 10), ("parameters", "count"))
    ]
    assert found[0].message.startswith("Invalid merge strategy 'merge' for parameter 'count'")


def test_merge_of_a_boolean_into_a_section_with_values_is_rejected_even_without_old_value():
    _, found = merge_environments(
        [
            env("parameters: {a: x}\n"),
            env("parameter_merge_strategies: {default: merge}\nparameters: {flag: true}\n", "e2"),
        ]
    )
    assert [d.message.split(":")[0] for d in found] == [
        "Invalid merge strategy 'merge' for parameter 'flag'"
    ]


def test_declared_types_drive_merging():
    merged, found = merge_environments(
        [
            env("parameter_merge_strategies: {default: merge}\nparameters: {names: 'a,b'}\n"),
            env("parameters: {names: c}\n", "env2.yaml"),
        ],
        parameter_types={"names": "comma_delimited_list"},
    )
    assert found == []
    assert merged.parameters == {"names": ["a", "c"]}
    merged, _ = merge_environments(
        [
            env("parameter_merge_strategies: {default: merge}\nparameters: {names: 'a,b'}\n"),
            env("parameters: {names: c}\n", "env2.yaml"),
        ]
    )
    assert merged.parameters == {"names": "a,bc"}  # a string parameter: concatenated


# --------------------------------------------------------------------------- conflicts


def test_conflicting_strategies():
    merged, found = merge_environments(
        [
            env("parameter_merge_strategies: {p: merge}\nparameters: {p: [1]}\n"),
            env(
                "parameter_merge_strategies:\n  p: deep_merge\nparameters: {p: [2]}\n", "env2.yaml"
            ),
        ]
    )
    assert merged.parameters == {"p": [1]}
    assert len(found) == 1
    assert found[0].message.startswith(
        "Conflicting merge strategy 'deep_merge' for parameter 'p' in file 'env2.yaml'."
    )
    assert "given 'merge' by env1.yaml at env1.yaml:1:33" in found[0].message
    assert found[0].span == Span("env2.yaml", 2, 6)
    assert found[0].path == ("parameter_merge_strategies", "p")


def test_a_later_default_does_not_change_an_earlier_choice():
    merged, found = merge_environments(
        [
            env("parameter_merge_strategies: {default: merge}\nparameters: {p: [1]}\n"),
            env("parameter_merge_strategies: {default: overwrite}\nparameters: {p: [2]}\n", "e2"),
            env("parameter_merge_strategies: {p: merge}\nparameters: {p: [3]}\n", "e3"),
        ]
    )
    assert found == []
    assert merged.parameters == {"p": [1, 2, 3]}


def test_conflict_spans_parameters_and_parameter_defaults():
    # Heat's test_merge_envs_with_param_defaults_conflicting_merge_strategy
    _, found = merge_environments(
        [
            env(
                "parameter_merge_strategies: {default: overwrite, lst: merge}\n"
                "parameter_defaults: {lst: [3, 4]}\n"
            ),
            env("parameter_defaults: {lst: [7, 8]}\n", "env_2"),
            env(
                "parameter_merge_strategies: {default: overwrite, lst: overwrite}\n"
                "parameter_defaults: {lst: [9, 10]}\n",
                "env_4",
            ),
        ]
    )
    assert [d.message.split(".")[0] for d in found] == [
        "Conflicting merge strategy 'overwrite' for parameter 'lst' in file 'env_4'"
    ]


# --------------------------------------------------------------------------- Heat's cases

HEAT_ENV_1 = {
    "parameters": {
        "str_value1": "string1",
        "str_value2": "string2",
        "del_lst_value1": "1,2",
        "del_lst_value2": "3,4",
        "lst_value1": [1, 2],
        "json_value1": {"1": ["str1", "str2"]},
        "json_value2": {"2": ["test1", "test2"]},
    },
    "resource_registry": {"test::R1": "OS::Heat::RandomString", "test::R2": "BROKEN"},
    "parameter_defaults": {"lst_value2": [3, 4]},
}
HEAT_ENV_2 = {
    "parameters": {
        "str_value1": "string3",
        "str_value2": "string4",
        "del_lst_value1": "5,6",
        "del_lst_value2": "7,8",
        "lst_value1": [5, 6],
        "json_value1": {"3": ["str3", "str4"]},
        "json_value2": {"4": ["test3", "test4"]},
    },
    "resource_registry": {"test::R2": "OS::Heat::None"},
    "parameter_defaults": {"lst_value2": [7, 8]},
}
HEAT_TYPES = {
    "str_value1": "string",
    "str_value2": "string",
    "del_lst_value1": "comma_delimited_list",
    "del_lst_value2": "comma_delimited_list",
    "lst_value1": "comma_delimited_list",
    "lst_value2": "comma_delimited_list",
    "json_value1": "json",
    "json_value2": "json",
}


def heat_merge(strategies: dict) -> Environment:
    first = dict(HEAT_ENV_1, parameter_merge_strategies=strategies) if strategies else HEAT_ENV_1
    merged, found = merge_environments(
        [data_env(first, "env_1"), data_env(HEAT_ENV_2, "env_2")],
        template_parameter_names=set(HEAT_TYPES),
        parameter_types=HEAT_TYPES,
    )
    assert found == []
    return merged


def test_heat_default_overwrite():
    merged = heat_merge({})
    assert merged.parameters == HEAT_ENV_2["parameters"]
    assert merged.parameter_defaults == {"lst_value2": [7, 8]}
    assert merged.resource_registry.to_data() == {
        "test::R1": "OS::Heat::RandomString",
        "test::R2": "OS::Heat::None",
        "resources": {},
    }


def test_heat_specified_default_deep_merge():
    merged = heat_merge({"default": "deep_merge"})
    assert merged.parameters == {
        "json_value1": {"3": ["str3", "str4"], "1": ["str1", "str2"]},
        "json_value2": {"4": ["test3", "test4"], "2": ["test1", "test2"]},
        # Heat's unit test expects "1,2,5,6" here; heat-semantics §0 records ["a", "c"] for
        # "a,b" + "c" measured on Heat 24, which stoker follows.
        "del_lst_value1": ["1", "5", "6"],
        "del_lst_value2": ["3", "7", "8"],
        "lst_value1": [1, 2, 5, 6],
        "str_value1": "string1string3",
        "str_value2": "string2string4",
    }
    assert merged.parameter_defaults == {"lst_value2": [3, 4, 7, 8]}


def test_heat_parameter_specific_strategies():
    merged = heat_merge(
        {
            "default": "overwrite",
            "lst_value1": "merge",
            "lst_value2": "merge",
            "json_value1": "deep_merge",
        }
    )
    assert merged.parameters == {
        "json_value1": {"3": ["str3", "str4"], "1": ["str1", "str2"]},
        "json_value2": {"4": ["test3", "test4"]},
        "del_lst_value1": "5,6",
        "del_lst_value2": "7,8",
        "lst_value1": [1, 2, 5, 6],
        "str_value1": "string3",
        "str_value2": "string4",
    }
    assert merged.parameter_defaults == {"lst_value2": [3, 4, 7, 8]}


def test_heat_zeros_are_values():
    merged, _ = merge_environments(
        [
            data_env({"parameter_defaults": {"value1": 1}}, "env_1"),
            data_env({"parameter_defaults": {"value1": 0}}, "env_2"),
        ]
    )
    assert merged.parameter_defaults == {"value1": 0}
    merged, _ = merge_environments(
        [
            data_env(
                {
                    "parameter_defaults": {"value1": {"foo": 1}},
                    "parameter_merge_strategies": {"value1": "deep_merge"},
                },
                "env_1",
            ),
            data_env({"parameter_defaults": {"value1": {"foo": 0}}}, "env_2"),
        ]
    )
    assert merged.parameter_defaults == {"value1": {"foo": 0}}


# --------------------------------------------------------------------------- registry


def test_registry_later_entry_wins_and_null_cannot_delete():
    merged, found = merge_environments(
        [
            env('resource_registry:\n  "OS::A": a.yaml\n  "OS::B": "OS::X"\n', "one/env.yaml"),
            env('resource_registry:\n  "OS::A": null\n  "OS::B": b.yaml\n', "two/env.yaml"),
        ]
    )
    assert found == []
    registry = merged.resource_registry
    a, b = registry.resolve("OS::A"), registry.resolve("OS::B")
    assert (a.template, a.template_location) == ("a.yaml", "one/a.yaml")
    assert (b.template, b.template_location) == ("b.yaml", "two/b.yaml")
    assert b.chain[0].span == Span("two/env.yaml", 3, 3)


def test_registry_resources_block_replaced_per_resource_name():
    merged, _ = merge_environments(
        [
            env(
                "resource_registry:\n  resources:\n"
                "    web:\n      hooks: pre-create\n      restricted_actions: replace\n"
                "    db:\n      hooks: pre-delete\n"
            ),
            env(
                "resource_registry:\n  resources:\n    web:\n      hooks: post-create\n"
                "    cache: null\n",
                "env2.yaml",
            ),
        ]
    )
    registry = merged.resource_registry
    assert registry.hooks("web") == {"post-create"}
    assert registry.restricted_actions("web") == frozenset()  # the whole block was replaced
    assert registry.hooks("db") == {"pre-delete"}


def test_registry_loop_made_by_two_files_is_reported_by_the_merge():
    merged, found = merge_environments(
        [
            env('resource_registry:\n  "OS::A": "OS::B"\n'),
            env('resource_registry:\n  "OS::B": "OS::A"\n', "env2.yaml"),
        ]
    )
    assert len(found) == 1
    assert "form a loop" in found[0].message


def test_registry_loop_inside_one_file_is_not_reported_twice():
    single, parse_found = parse_environment(
        load_document('resource_registry:\n  "OS::A": "OS::A"\n', "env1.yaml")
    )
    assert len(parse_found) == 1
    _, found = merge_environments([single])
    assert found == []


def test_registry_keeps_the_global_layer():
    user = env('resource_registry:\n  "OS::A": "OS::B"\n')
    global_env = env('resource_registry:\n  "OS::C": "OS::D"\n', "/etc/heat/environment.d/d.yaml")
    user.resource_registry = with_global(user.resource_registry, global_env.resource_registry)
    merged, _ = merge_environments([user])
    assert merged.resource_registry.resolve("OS::C").type_name == "OS::D"


# --------------------------------------------------------------------------- the rest


def test_event_sinks_are_concatenated():
    merged, found = merge_environments(
        [
            env("event_sinks: [{type: zaqar-queue, target: one}]\n"),
            env("event_sinks: [{type: zaqar-queue, target: two, ttl: 60}]\n", "env2.yaml"),
        ]
    )
    assert found == []
    assert [(s.target, s.ttl) for s in merged.event_sinks] == [("one", None), ("two", 60)]


def test_encrypted_names_are_concatenated_once_each():
    merged, _ = merge_environments(
        [
            env("encrypted_param_names: [a, b]\n"),
            env("encrypted_param_names: [b, c]\n", "env2.yaml"),
        ]
    )
    assert merged.encrypted_param_names == ["a", "b", "c"]


def test_to_data_shape():
    merged, _ = merge_environments(
        [env('parameters: {a: 1}\nresource_registry: {"OS::A": "OS::B"}\n')]
    )
    assert merged.to_data() == {
        "parameters": {"a": 1},
        "parameter_defaults": {},
        "resource_registry": {"OS::A": "OS::B", "resources": {}},
        "event_sinks": [],
        "encrypted_param_names": [],
    }


# --------------------------------------------------------------------------- a PATCH's overlay


def patched(stored_text: str, *texts: str) -> Environment:
    """The stored environment with the request's files loaded over it, as a PATCH does."""
    stored = data_env(load_document(stored_text, "stored").data, "<stored environment>")
    given = [env(text, f"new{n}.yaml") for n, text in enumerate(texts)]
    merged, found = merge_environments(given)
    assert [d for d in found if d.is_error] == []
    return overlay_environment(stored, merged, given)


def test_overlay_keeps_the_sections_the_request_leaves_out():
    result = patched(
        "resource_registry: {'My::Thing': OS::Heat::None}\nparameters: {p: x}\n",
        "parameter_defaults: {q: y}\n",
    )
    assert result.resource_registry.to_data()["My::Thing"] == "OS::Heat::None"
    assert (dict(result.parameters), dict(result.parameter_defaults)) == ({"p": "x"}, {"q": "y"})


def test_overlay_null_entry_removes_a_stored_mapping():
    result = patched(
        "resource_registry: {'My::Thing': OS::Heat::None, 'My::Other': OS::Heat::None}\n",
        "resource_registry: {'My::Thing': null}\n",
    )
    assert result.resource_registry.to_data() == {"My::Other": "OS::Heat::None", "resources": {}}


def test_overlay_replaces_stored_values_whatever_the_strategy():
    """Strategies merge the request's own files; a stored value is replaced (Heat loads
    the request's environment over the stored one, and stores no strategies)."""
    result = patched(
        "parameters: {j: {a: 1}}\n",
        "parameters: {j: {b: 2}}\nparameter_merge_strategies: {j: merge}\n",
    )
    assert dict(result.parameters) == {"j": {"b": 2}}
