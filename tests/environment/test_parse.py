"""Reading one environment document: every section accepted and rejected, with positions."""

from __future__ import annotations

import pytest

from stoker import codes
from stoker.diagnostics import Severity, Span
from stoker.environment import (
    Environment,
    EventSink,
    environment_from_data,
    load_environment_file,
    parse_environment,
)
from stoker.template.loader import LoadLimits, load_document
from stoker.template.nodes import value_span

FILE = "env.yaml"


def parse(text: str) -> tuple[Environment, list]:
    return parse_environment(load_document(text, FILE))


def where(diagnostic) -> tuple[int, int]:
    assert diagnostic.span is not None, diagnostic
    assert diagnostic.span.file == FILE
    return diagnostic.span.line, diagnostic.span.column


# --------------------------------------------------------------------------- accepted


@pytest.mark.parametrize(
    "text",
    ["", "# nothing but a comment\n", "{}", "---\n"],
    ids=["empty", "comment", "json-empty", "yaml-document-marker"],
)
def test_empty_document_is_empty_environment(text):
    environment, found = parse(text)
    assert found == []
    assert environment.parameters == {}
    assert environment.parameter_defaults == {}
    assert not environment.resource_registry
    assert environment.event_sinks == []
    assert environment.files == [FILE]


def test_parameters_keep_value_positions():
    environment, found = parse("parameters:\n  key_name: mykey\n  count: 3\n")
    assert found == []
    assert environment.parameters == {"key_name": "mykey", "count": 3}
    assert value_span(environment.parameters, "key_name") == Span(FILE, 2, 13)
    assert value_span(environment.parameters, "count") == Span(FILE, 3, 10)
    assert value_span(environment.parameters, "missing") is None


def test_parameter_defaults_keep_value_positions():
    environment, found = parse("parameter_defaults:\n  KeyName: heat_key\n")
    assert found == []
    assert environment.parameter_defaults == {"KeyName": "heat_key"}
    assert environment.default_span("KeyName") == Span(FILE, 2, 12)


def test_encrypted_param_names():
    environment, found = parse("encrypted_param_names: [a, b]\n")
    assert found == []
    assert environment.encrypted_param_names == ["a", "b"]


def test_event_sinks():
    environment, found = parse(
        "event_sinks:\n  - type: zaqar-queue\n    target: myqueue\n    ttl: 1200\n"
    )
    assert found == []
    assert environment.event_sinks == [EventSink("zaqar-queue", "myqueue", 1200, Span(FILE, 2, 5))]


def test_parameter_merge_strategies():
    environment, found = parse(
        "parameter_merge_strategies:\n  default: merge\n  param1: overwrite\n  param2: deep_merge\n"
    )
    assert found == []
    assert environment.parameter_merge_strategies == {
        "default": "merge",
        "param1": "overwrite",
        "param2": "deep_merge",
    }


def test_resource_registry():
    environment, found = parse('resource_registry:\n  "OS::A": "OS::B"\n')
    assert found == []
    assert environment.resource_registry.resolve("OS::A").type_name == "OS::B"


def test_json_environment_positions():
    environment, found = parse('{"parameters": {"a": "x"}, "bogus": 1}')
    assert environment.parameters == {"a": "x"}
    assert value_span(environment.parameters, "a") == Span(FILE, 1, 22)
    assert [(where(d), d.message.split(";")[0]) for d in found] == [
        ((1, 28), 'environment has wrong section "bogus"')
    ]


def test_environment_from_data():
    environment, found = environment_from_data({"parameters": {"a": 1}})
    assert found == []
    assert environment.parameters == {"a": 1}
    assert environment.files == ["<environment>"]


# --------------------------------------------------------------------------- rejected

ALL_SECTIONS = (
    "parameters, parameter_defaults, encrypted_param_names, event_sinks, "
    "parameter_merge_strategies, resource_registry"
)

REJECTED = [
    (
        "unknown-section",
        "parameters: {}\nresources: {}\n",
        [((2, 1), f'environment has wrong section "resources"; the sections are {ALL_SECTIONS}')],
    ),
    (
        "empty-section",
        "parameters:\nresource_registry: {}\n",
        [
            (
                (1, 1),
                'environment has empty section "parameters"; give it a value ({} or []) '
                "or remove it",
            )
        ],
    ),
    (
        "empty-and-unknown-collected",
        "a: 1\nparameter_defaults:\nevent_sinks:\n",
        [
            ((1, 1), 'environment has wrong section "a"'),
            ((2, 1), 'environment has empty section "parameter_defaults"'),
            ((3, 1), 'environment has empty section "event_sinks"'),
        ],
    ),
    (
        "top-level-list",
        "- parameters\n",
        [((1, 1), "The environment is not a valid YAML mapping data type")],
    ),
    (
        "top-level-string",
        "\n\n  parameters\n",
        [((3, 3), "The environment is not a valid YAML mapping data type")],
    ),
    (
        "parameters-list",
        "parameters: [a, b]\n",
        [((1, 13), 'environment section "parameters" must be a mapping (got a list)')],
    ),
    (
        "parameter-defaults-string",
        "parameter_defaults: x\n",
        [((1, 21), 'environment section "parameter_defaults" must be a mapping (got a string)')],
    ),
    (
        "parameter-name-not-string",
        "parameters:\n  1: x\n",
        [((2, 3), "parameter name 1 in parameters must be a string")],
    ),
    (
        "encrypted-names-mapping",
        "encrypted_param_names: {a: 1}\n",
        [((1, 24), 'environment section "encrypted_param_names" must be a list')],
    ),
    (
        "encrypted-names-item",
        "encrypted_param_names:\n  - a\n  - 3\n",
        [((3, 5), "encrypted_param_names entries must be parameter names (got a number)")],
    ),
    (
        "event-sinks-mapping",
        "event_sinks: {type: zaqar-queue}\n",
        [((1, 14), 'environment section "event_sinks" must be a list of sinks')],
    ),
    (
        "event-sink-not-mapping",
        "event_sinks: [3]\n",
        [((1, 15), "an event sink must be a mapping {type, target, ttl} (got a number)")],
    ),
    (
        "event-sink-wrong-type",
        "event_sinks:\n  - type: kafka\n    target: q\n",
        [((2, 11), 'event sink has type "kafka"; the only type is "zaqar-queue"')],
    ),
    (
        "event-sink-no-type-no-target",
        "event_sinks:\n  - ttl: 5\n",
        [
            ((2, 5), 'event sink has no type; the only type is "zaqar-queue"'),
            ((2, 5), "event sink needs a target, the name of the Zaqar queue"),
        ],
    ),
    (
        "event-sink-bad-ttl",
        "event_sinks:\n  - {type: zaqar-queue, target: q, ttl: soon}\n",
        [((2, 41), "event sink ttl must be a whole number of seconds (got 'soon')")],
    ),
    (
        "event-sink-unknown-key",
        "event_sinks:\n  - {type: zaqar-queue, target: q, colour: red}\n",
        [((2, 36), 'unknown event sink key "colour"; the keys are type, target, ttl')],
    ),
    (
        "merge-strategies-list",
        "parameter_merge_strategies: [merge]\n",
        [((1, 29), 'environment section "parameter_merge_strategies" must be a mapping')],
    ),
    (
        "registry-list",
        "resource_registry: [a]\n",
        [((1, 20), "resource_registry must be a mapping of resource types (got a list)")],
    ),
    (
        "registry-value-number",
        'resource_registry:\n  "OS::A": 3\n',
        [((2, 12), 'resource_registry entry "OS::A" must map to a resource type or a template')],
    ),
    (
        "registry-value-mapping",
        'resource_registry:\n  "OS::A": {x: y}\n',
        [((2, 12), 'resource_registry entry "OS::A" must map to a resource type or a template')],
    ),
    (
        "registry-value-empty",
        'resource_registry:\n  "OS::A": ""\n',
        [((2, 12), 'resource_registry entry "OS::A" maps to an empty type name')],
    ),
    (
        "registry-resources-list",
        "resource_registry:\n  resources: [web]\n",
        [((2, 14), "resource_registry resources must be a mapping of resource names")],
    ),
    (
        "registry-resources-null",
        "resource_registry:\n  resources:\n",
        [((2, 3), "resource_registry resources must be a mapping of resource names")],
    ),
    (
        "registry-resource-block-string",
        'resource_registry:\n  resources:\n    web: "OS::X"\n',
        [((3, 10), 'the block for resource "web" must be a mapping of types')],
    ),
    (
        "registry-nested-entry-list",
        'resource_registry:\n  resources:\n    web:\n      "OS::X": [a]\n',
        [((4, 17), 'resource_registry entry "OS::X": item 1 "a" is not a template path')],
    ),
]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "parameter_merge_strategies:\n  p: append\n",
            ((2, 6), 'Invalid merge strategy for parameter "p" "append"; use one of overwrite'),
        ),
        (
            "parameter_merge_strategies:\n  default: sum\n",
            ((2, 12), 'Invalid default merge strategy "sum"; use one of overwrite, merge'),
        ),
    ],
    ids=["merge-strategy-unknown", "merge-strategy-default-unknown"],
)
def test_an_unknown_merge_strategy_is_a_warning_and_dropped(text, expected):
    """Heat 24.1.2 accepts the environment and uses the default strategy (measured)."""
    environment, found = parse(text)
    (warning,) = found
    assert not warning.is_error and warning.code == codes.ENVIRONMENT
    assert (where(warning), warning.message[: len(expected[1])]) == expected
    assert warning.message.endswith("(Heat ignores it and uses the default)")
    assert dict(environment.parameter_merge_strategies) == {}


@pytest.mark.parametrize(
    ("text", "expected"),
    [(text, expected) for _, text, expected in REJECTED],
    ids=[name for name, _, _ in REJECTED],
)
def test_rejected(text, expected):
    _, found = parse(text)
    errors = [d for d in found if d.is_error]
    assert all(d.code == codes.ENVIRONMENT for d in errors)
    got = [(where(d), d.message) for d in errors]
    assert len(got) == len(expected)
    for (position, message), (want_position, want_message) in zip(got, expected, strict=True):
        assert (position, message[: len(want_message)]) == (want_position, want_message)


@pytest.mark.parametrize(
    "section",
    [
        "parameters",
        "parameter_defaults",
        "encrypted_param_names",
        "event_sinks",
        "parameter_merge_strategies",
        "resource_registry",
    ],
)
def test_every_section_rejects_being_empty(section):
    _, found = parse(f"# header\n{section}:\n")
    errors = [d for d in found if d.is_error]
    assert [(where(d), d.message.split(";")[0]) for d in errors] == [
        ((2, 1), f'environment has empty section "{section}"')
    ]


def test_rejected_renders_file_line_column_and_path():
    _, found = parse("parameters: {}\nresources: {}\n")
    assert (
        found[0]
        .render()
        .startswith('env.yaml:2:1: resources: environment has wrong section "resources"')
    )


def test_valid_sections_still_read_next_to_errors():
    environment, found = parse("bogus: 1\nparameters:\n  a: b\n")
    assert len(found) == 1
    assert environment.parameters == {"a": "b"}


# --------------------------------------------------------------------------- hooks


HOOK_TYPES_TEXT = (
    "('pre-create', 'pre-update', 'pre-delete', 'post-create', 'post-update', 'post-delete')"
)


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        ("pre-create", True),
        ("post-delete", True),
        ("[pre-create, pre-update, pre-delete, post-create, post-update, post-delete]", True),
        ("[]", True),
        ("bogus", False),
        ("[pre-create, bogus]", False),
        ("{a: b}", False),
        ("3", False),
    ],
)
def test_hook_values(value, valid):
    _, found = parse(f"resource_registry:\n  resources:\n    web:\n      hooks: {value}\n")
    if valid:
        assert found == []
        return
    assert len(found) == 1
    assert where(found[0]) == (4, 14)
    assert found[0].message.startswith('Invalid hook type "')
    assert found[0].message.endswith(
        f'" for resource breakpoint, acceptable hook types are: {HOOK_TYPES_TEXT}'
    )


def test_hook_message_quotes_the_value_as_heat_does():
    _, found = parse(
        "resource_registry:\n  resources:\n    web:\n      hooks: [pre-create, bogus]\n"
    )
    assert found[0].message == (
        "Invalid hook type \"['pre-create', 'bogus']\" for resource breakpoint, "
        f"acceptable hook types are: {HOOK_TYPES_TEXT}"
    )


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        ("update", True),
        ("replace", True),
        ("[update, replace]", True),
        ("delete", False),
        ("[update, create]", False),
        ("7", False),
    ],
)
def test_restricted_action_values(value, valid):
    _, found = parse(
        f"resource_registry:\n  resources:\n    web:\n      restricted_actions: {value}\n"
    )
    if valid:
        assert found == []
        return
    assert len(found) == 1
    assert where(found[0]) == (4, 27)
    assert found[0].message.endswith(
        "for resource, acceptable restricted_action types are: ('update', 'replace')"
    )


def test_nested_hooks_are_checked():
    _, found = parse(
        "resource_registry:\n  resources:\n    parent:\n      child:\n        hooks: nope\n"
    )
    assert [where(d) for d in found] == [(5, 16)]


# --------------------------------------------------------------------------- warnings


def test_encrypted_parameters_is_a_wrong_section_as_in_heat():
    """Heat's documentation spells the section so; Heat itself refuses the document."""
    environment, found = parse("parameters: {}\nencrypted_parameters:\n  - password\n")
    assert environment.encrypted_param_names == []
    (error,) = found
    assert (error.code, error.severity, where(error)) == (codes.ENVIRONMENT, Severity.ERROR, (2, 1))
    assert error.message.startswith('environment has wrong section "encrypted_parameters"')
    assert "encrypted_param_names" in error.message


@pytest.mark.parametrize(
    ("entry", "position", "fragment", "code"),
    [
        ('"OS::*": "none.yaml"', (2, 3), "Heat never matches a wildcard key", "W1061"),
        ('"OS::*::Server": "X::Y"', (2, 3), "only a trailing * is a wildcard", "E1060"),
        ('"OS::X": "x.yml"', (2, 12), '"x.yml" is read as a type name', "E1060"),
        ('"x.yaml": "OS::Y"', (2, 13), 'the value "OS::Y" is ignored', "E1060"),
        ("hooks: pre-create", (2, 3), "hooks has no effect at the top", "E1060"),
    ],
    ids=["glob-to-template", "inner-star", "yml", "template-key", "top-level-hooks"],
)
def test_registry_warnings(entry, position, fragment, code):
    _, found = parse(f"resource_registry:\n  {entry}\n")
    assert len(found) == 1
    assert found[0].severity is Severity.WARNING
    assert found[0].code == code
    assert where(found[0]) == position
    assert fragment in found[0].message


# --------------------------------------------------------------------------- files


def test_load_environment_file(tmp_path):
    path = tmp_path / "env.yaml"
    path.write_text("parameters:\n  a: 1\nbogus: {}\n")
    environment, found = load_environment_file(str(path))
    assert environment.parameters == {"a": 1}
    assert environment.files == [str(path)]
    assert [(d.span.line, d.span.column) for d in found] == [(3, 1)]
    assert found[0].span.file == str(path)


def test_load_environment_file_missing(tmp_path):
    path = str(tmp_path / "nope.yaml")
    environment, found = load_environment_file(path)
    assert environment.files == [path]
    assert len(found) == 1
    assert found[0].code == codes.ENVIRONMENT
    assert "cannot read the environment file" in found[0].message


def test_load_environment_file_syntax_error(tmp_path):
    path = tmp_path / "env.yaml"
    path.write_text("parameters:\n  a: [1, 2\n")
    environment, found = load_environment_file(str(path))
    assert environment.parameters == {}
    assert [d.code for d in found] == [codes.SYNTAX]


def test_load_environment_file_duplicate_key(tmp_path):
    path = tmp_path / "env.yaml"
    path.write_text("parameters:\n  a: 1\n  a: 2\n")
    _, found = load_environment_file(str(path))
    assert [(d.code, d.span.line) for d in found] == [(codes.DUPLICATE_KEY, 3)]


def test_load_environment_file_too_large(tmp_path):
    path = tmp_path / "env.yaml"
    path.write_text("parameters:\n  a: " + "x" * 200 + "\n")
    _, found = load_environment_file(str(path), LoadLimits(max_bytes=100))
    assert [d.code for d in found] == [codes.TOO_LARGE]


@pytest.mark.parametrize("text", ['{"resource_registry": 0}', "resource_registry: 7\n"])
def test_a_resource_registry_that_is_a_number_is_located(text):
    """Found by fuzzing: a number keeps no position of its own; the finding points at it
    through its section."""
    _, found = parse(text)
    assert [d.message for d in found] == [
        "resource_registry must be a mapping of resource types (got a number)"
    ]
    assert where(found[0]) == ((1, 23) if text.startswith("{") else (1, 20))
