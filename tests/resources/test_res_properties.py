"""Property validation: Heat's coercion rules, constraints, nesting, defaults and findings."""

from __future__ import annotations

import pytest

from stoker import codes
from stoker.diagnostics import Severity
from stoker.resources.builtin import BUILTIN_TYPES
from stoker.resources.constraints import (
    SchemaError,
    allowed_pattern,
    allowed_values,
    constraint_from_dict,
    constraint_to_dict,
    custom_constraint,
    length,
    modulo,
    value_range,
)
from stoker.resources.schema import PropertySchema, PropertyType, validate_properties
from stoker.template.loader import load_document

T = PropertyType
PATH = ("resources", "r", "properties")


def check(schema: dict[str, PropertySchema], values, **options):
    return validate_properties(schema, values, path=PATH, type_name="My::Type", **options)


def one(kind: PropertyType, value, **schema_options):
    """Validate ``{"p": value}`` against one property ``p``: (value, messages)."""
    result, found = check({"p": PropertySchema(kind, **schema_options)}, {"p": value})
    return result["p"], [d.message for d in found]


# --------------------------------------------------------------------------- coercion

ACCEPTED = [
    (T.STRING, "text", "text"),
    (T.STRING, 7, "7"),
    (T.STRING, True, "True"),
    (T.STRING, "", ""),
    (T.INTEGER, 7, 7),
    (T.INTEGER, "7", 7),
    (T.INTEGER, " 7 ", 7),
    (T.INTEGER, 7.9, 7),  # int() truncates, as in Heat
    (T.INTEGER, True, 1),
    (T.NUMBER, 7, 7),
    (T.NUMBER, 2.5, 2.5),
    (T.NUMBER, "7", 7),
    (T.NUMBER, "2.5", 2.5),
    (T.NUMBER, "1e3", 1000.0),
    (T.BOOLEAN, True, True),
    (T.BOOLEAN, False, False),
    (T.BOOLEAN, "true", True),
    (T.BOOLEAN, "FALSE", False),
    (T.MAP, {"a": 1}, {"a": 1}),
    (T.MAP, {}, {}),
    (T.LIST, [1, "a"], [1, "a"]),
    (T.LIST, (1, 2), [1, 2]),
    (T.ANY, {"x": [1]}, {"x": [1]}),
    (T.ANY, 2.5, 2.5),
]


@pytest.mark.parametrize(("kind", "raw", "expected"), ACCEPTED, ids=lambda v: repr(v))
def test_values_coerce_as_heat_coerces_properties(kind, raw, expected):
    value, messages = one(kind, raw)
    assert messages == []
    assert value == expected and type(value) is type(expected)


REJECTED = [
    (T.STRING, 2.5, "Value must be a string; got 2.5"),
    (T.STRING, ["a"], "Value must be a string; got ['a']"),
    (T.STRING, {"a": 1}, "Value must be a string; got {'a': 1}"),
    (T.INTEGER, "7.5", "Value '7.5' is not an integer"),
    (T.INTEGER, "seven", "Value 'seven' is not an integer"),
    (
        T.INTEGER,
        [1],
        "int() argument must be a string, a bytes-like object or a real number, not 'list'",
    ),
    (T.NUMBER, "seven", "could not convert string to float: 'seven'"),
    (
        T.NUMBER,
        {"a": 1},
        "int() argument must be a string, a bytes-like object or a real number, not 'dict'",
    ),
    (T.BOOLEAN, "yes", '"yes" is not a valid boolean'),
    (T.BOOLEAN, "1", '"1" is not a valid boolean'),
    (T.BOOLEAN, 1, '"1" is not a valid boolean'),
    (T.BOOLEAN, "True ", '"true " is not a valid boolean'),
    (T.MAP, "a=1", '"a=1" is not a map'),
    (T.MAP, [1], '"[1]" is not a map'),
    (T.LIST, "a,b", "\"'a,b'\" is not a list"),
    (T.LIST, {"a": 1}, "\"{'a': 1}\" is not a list"),
]


@pytest.mark.parametrize(("kind", "raw", "message"), REJECTED, ids=lambda v: repr(v))
def test_values_of_the_wrong_type_are_rejected_with_heats_message(kind, raw, message):
    value, messages = one(kind, raw)
    assert messages == [message]
    assert value is None


NULLS = [
    (T.STRING, {}, ""),
    (T.STRING, {"default": "d"}, "d"),
    (T.INTEGER, {}, 0),
    (T.NUMBER, {"default": 1.5}, 1.5),
    (T.BOOLEAN, {}, False),
    (T.MAP, {}, {}),
    (T.LIST, {}, []),
    (T.ANY, {}, None),
]


@pytest.mark.parametrize(("kind", "options", "expected"), NULLS, ids=lambda v: repr(v))
def test_an_explicit_null_is_the_default_else_the_types_empty_value(kind, options, expected):
    value, messages = one(kind, None, **options)
    assert (value, messages) == (expected, [])


def test_absent_properties_get_their_default_or_none():
    schema = {
        "with_default": PropertySchema(T.INTEGER, default=3),
        "without": PropertySchema(T.STRING),
    }
    assert check(schema, {}) == ({"with_default": 3, "without": None}, [])


def test_required_property_missing_is_reported_at_the_properties_map():
    schema = {"name": PropertySchema(T.STRING, required=True)}
    result, found = check(schema, {})
    assert result == {"name": None}
    (finding,) = found
    assert finding.message == "Property name not assigned"
    assert finding.code == codes.PROPERTY_VALUE and finding.path == PATH


def test_unknown_properties_are_reported_with_the_known_ones():
    schema = {"size": PropertySchema(T.INTEGER), "hidden": PropertySchema(T.INTEGER)}
    result, found = check(schema, {"size": 1, "colour": "red", "shape": "round"})
    assert result == {"size": 1, "hidden": None}
    assert [(d.code, d.message, d.path) for d in found] == [
        (codes.PROPERTY_UNKNOWN, "Unknown Property colour", (*PATH, "colour")),
        (codes.PROPERTY_UNKNOWN, "Unknown Property shape", (*PATH, "shape")),
    ]
    assert found[0].notes == ("My::Type has properties: size, hidden",)


def test_unimplemented_properties_are_errors_when_set():
    schema = {"old": PropertySchema(T.STRING, implemented=False)}
    assert check(schema, {})[1] == []
    assert [d.message for d in check(schema, {"old": "x"})[1]] == [
        "Property old not implemented yet"
    ]


def test_dynamic_schemas_take_anything_unchecked():
    assert check({}, {"anything": {"goes": [1]}}, dynamic=True) == ({"anything": {"goes": [1]}}, [])


def test_pending_properties_are_neither_checked_nor_missing():
    schema = {
        "size": PropertySchema(T.INTEGER, required=True, constraints=(value_range(1, 2),)),
        "name": PropertySchema(T.STRING, required=True),
    }
    result, found = check(schema, {}, pending={"size", "colour"})
    assert result == {"size": None, "name": None}
    assert [(d.message, d.path) for d in found] == [
        ("Unknown Property colour", (*PATH, "colour")),  # a wrong name is wrong already
        ("Property name not assigned", PATH),
    ]


def test_unknown_values_are_kept_unchecked():
    marker = object()
    schema = {"n": PropertySchema(T.INTEGER, constraints=(value_range(1, 2),))}
    result, found = check(schema, {"n": marker}, is_unknown=lambda v: v is marker)
    assert result == {"n": marker} and found == []


# --------------------------------------------------------------------------- constraints

CONSTRAINTS = [
    (T.INTEGER, value_range(1, 10), 5, None),
    (T.INTEGER, value_range(1, 10), 1, None),
    (T.INTEGER, value_range(1, 10), 11, "11 is out of range (min: 1, max: 10)"),
    (T.NUMBER, value_range(min=0), -0.5, "-0.5 is out of range (min: 0, max: None)"),
    (T.NUMBER, value_range(max=3), 3.5, "3.5 is out of range (min: None, max: 3)"),
    (T.STRING, length(2, 3), "abcd", "length (4) is out of range (min: 2, max: 3)"),
    (T.LIST, length(min=1), [], "length (0) is out of range (min: 1, max: None)"),
    (T.MAP, length(max=1), {"a": 1, "b": 2}, "length (2) is out of range (min: None, max: 1)"),
    (T.INTEGER, modulo(2, 1), 7, None),
    (T.INTEGER, modulo(2, 1), 8, "8 is not a multiple of 2 with an offset of 1"),
    (T.STRING, allowed_values("a", "b"), "a", None),
    (T.STRING, allowed_values("a", "b"), "c", '"c" is not an allowed value ["a", "b"]'),
    (T.STRING, allowed_values(1, 2), 1, None),  # compared as strings: "1" in ("1", "2")
    (T.INTEGER, allowed_values("1", "2"), 2, None),
    (T.INTEGER, allowed_values(1, 2), 3, "3 is not an allowed value [1, 2]"),
    (T.INTEGER, allowed_values("x"), 3, 'Value "x" is invalid for data type "Integer".'),
    (T.BOOLEAN, allowed_values("true"), True, None),
    (T.LIST, allowed_values("a", "b"), ["a", "b", "a"], None),
    (T.LIST, allowed_values("a", "b"), ["a", "c"], '["a", "c"] is not an allowed value ["a", "b"]'),
    (T.STRING, allowed_pattern("[a-z]+"), "abc", None),
    (T.STRING, allowed_pattern("[a-z]+"), "abc1", '"abc1" does not match pattern "[a-z]+"'),
    (T.STRING, allowed_pattern("a|ab"), "ab", '"ab" does not match pattern "a|ab"'),
    (T.STRING, length(max=1, description="Too long!"), "ab", "Too long!"),
    (T.STRING, custom_constraint("ip_addr"), "10.0.0.1", None),
    (
        T.STRING,
        custom_constraint("ip_addr"),
        "10.0.0.300",
        "Error validating value '10.0.0.300': Invalid IP address",
    ),
    (T.NUMBER, custom_constraint("test_constr"), 0, None),
]


@pytest.mark.parametrize(
    ("kind", "constraint", "value", "message"), CONSTRAINTS, ids=lambda v: repr(v)
)
def test_constraints_are_checked_on_the_coerced_value(kind, constraint, value, message):
    result, messages = one(kind, value, constraints=(constraint,))
    assert messages == ([] if message is None else [message])
    assert result == value or kind is T.STRING


def test_cloud_custom_constraints_are_reported_as_not_checked():
    schema = {"flavor": PropertySchema(T.STRING, constraints=(custom_constraint("nova.flavor"),))}
    result, (finding,) = check(schema, {"flavor": "m1.small"})
    assert result == {"flavor": "m1.small"}
    assert finding.severity is Severity.INFO and finding.code == codes.CONSTRAINT_NOT_CHECKED
    assert "nova.flavor" in finding.message and "nova service" in finding.message
    assert finding.path == (*PATH, "flavor")


def test_every_broken_constraint_is_reported():
    schema = {
        "p": PropertySchema(T.STRING, constraints=(length(max=2), allowed_values("a"))),
        "q": PropertySchema(T.INTEGER, constraints=(value_range(max=1),)),
    }
    _, found = check(schema, {"p": "abc", "q": 2})
    assert [(d.path[-1], d.message) for d in found] == [
        ("p", "length (3) is out of range (min: None, max: 2)"),
        ("p", '"abc" is not an allowed value ["a"]'),
        ("q", "2 is out of range (min: None, max: 1)"),
    ]


def test_defaults_pass_through_coercion_and_constraints():
    schema = {"n": PropertySchema(T.INTEGER, default="5", constraints=(value_range(max=4),))}
    result, found = check(schema, {})
    assert result == {"n": 5}
    assert [d.message for d in found] == ["5 is out of range (min: None, max: 4)"]


# --------------------------------------------------------------------------- nesting

CLASSES = PropertySchema(
    T.LIST,
    default=[{"class": "letters"}],
    schema={
        "*": PropertySchema(
            T.MAP,
            schema={
                "class": PropertySchema(
                    T.STRING, default="letters", constraints=(allowed_values("letters", "digits"),)
                ),
                "min": PropertySchema(T.INTEGER, default=1, constraints=(value_range(1, 9),)),
                "label": PropertySchema(T.STRING, required=True),
            },
        )
    },
)


def test_nested_maps_and_lists_are_validated_item_by_item_with_full_paths():
    values = {
        "classes": [
            {"class": "digits", "min": "2", "label": "a"},
            {"class": "emoji", "min": 0, "extra": 1},
            "not a map",
        ]
    }
    result, found = check({"classes": CLASSES}, values)
    assert result["classes"][0] == {"class": "digits", "min": 2, "label": "a"}
    assert [(d.path[len(PATH) :], d.message) for d in found] == [
        (("classes", 1, "extra"), "Unknown Property extra"),
        (("classes", 1, "class"), '"emoji" is not an allowed value ["letters", "digits"]'),
        (("classes", 1, "min"), "0 is out of range (min: 1, max: 9)"),
        (("classes", 1), "Property label not assigned"),
        (("classes", 2), '"not a map" is not a map'),
    ]


def test_a_default_list_gets_its_item_schema_applied():
    result, found = check({"classes": CLASSES}, {})
    assert result == {"classes": [{"class": "letters", "min": 1, "label": None}]}
    assert [d.message for d in found] == ["Property label not assigned"]


def test_a_map_without_a_schema_is_kept_as_given():
    result, found = check({"m": PropertySchema(T.MAP)}, {"m": {"any": {"thing": [1]}}})
    assert result == {"m": {"any": {"thing": [1]}}} and found == []


def test_findings_point_at_the_template_source():
    document = load_document(
        "properties:\n  classes:\n    - {class: emoji, label: x}\n  colour: red\n", "t.yaml"
    )
    properties = document.data["properties"]
    _, found = check({"classes": CLASSES}, properties)
    spans = {d.path[len(PATH) :]: d.span for d in found}
    assert spans[("colour",)].line == 4
    assert spans[("classes", 0, "class")].line == 3
    assert all(d.span.file == "t.yaml" for d in found)


# --------------------------------------------------------------------------- declarations

BAD_DECLARATIONS = [
    (lambda: PropertySchema(T.STRING, update_allowed=True, immutable=True), "cannot both"),
    (lambda: PropertySchema(T.STRING, schema={}), "Schema valid only for List or Map"),
    (lambda: PropertySchema(T.LIST, schema={"x": PropertySchema(T.STRING)}), '"*"'),
    (lambda: PropertySchema(T.STRING, constraints=(value_range(1),)), "Range constraint invalid"),
    (lambda: PropertySchema(T.MAP, constraints=(allowed_values(1),)), "AllowedValues constraint"),
    (lambda: value_range(), "must have a min value"),
    (lambda: length(), "must have a min value"),
    (lambda: modulo(0, 0), "step cannot be 0"),
    (lambda: modulo(2, 3), "offset must be smaller"),
    (lambda: modulo(2, -1), "both positive or both negative"),
]


@pytest.mark.parametrize(("declare", "message"), BAD_DECLARATIONS)
def test_malformed_declarations_are_refused(declare, message):
    with pytest.raises(SchemaError, match=message):
        declare()


@pytest.mark.parametrize(
    "constraint",
    [
        value_range(1, 5),
        value_range(min=0),
        length(max=3, description="short"),
        modulo(3, 1),
        allowed_values("a", 1),
        allowed_pattern("^x$"),
        custom_constraint("nova.flavor"),
    ],
    ids=lambda c: c.kind.value,
)
def test_constraints_round_trip_through_their_api_form(constraint):
    assert constraint_from_dict(constraint_to_dict(constraint)) == constraint


def test_schemas_round_trip_through_their_api_form():
    assert PropertySchema.from_dict(CLASSES.to_dict()) == CLASSES
    described = CLASSES.to_dict(descriptions=True)
    assert "description" not in described  # none declared
    assert PropertySchema(T.STRING, "Why.").to_dict(descriptions=True)["description"] == "Why."


# --------------------------------------------------------------------------- built-in schemas

MINIMAL = {
    "OS::Heat::Value": {"value": 1},
    "OS::Heat::ResourceGroup": {"resource_def": {"type": "OS::Heat::None"}},
    "OS::Heat::ResourceChain": {"resources": ["OS::Heat::None"]},
    "OS::Heat::Stack": {"template": "heat_template_version: rocky"},
    "OS::Heat::WaitCondition": {"handle": "h", "timeout": 5},
    "OS::Heat::SoftwareComponent": {"configs": [{"tool": "script", "config": "x"}]},
}


@pytest.mark.parametrize("plugin", BUILTIN_TYPES, ids=lambda p: p.type_name)
def test_builtin_defaults_satisfy_their_own_constraints(plugin):
    values, found = validate_properties(
        plugin.properties_schema,
        MINIMAL.get(plugin.type_name, {}),
        path=PATH,
        type_name=plugin.type_name,
        dynamic=plugin.traits.dynamic_properties,
    )
    assert found == []
    assert plugin().validate(values) == []
    if not plugin.traits.dynamic_properties:
        assert set(values) == set(plugin.properties_schema)
