"""The built-in types' handlers, run for real (asyncio, fake time, validated properties)."""

from __future__ import annotations

import asyncio
import email
import string
import uuid

import pytest
import yaml

from stoker.resources.base import ResourceFailure
from stoker.resources.builtin import delay as delay_module
from stoker.resources.builtin.waiting import FOREVER_STEP

NONE, TEST, RANDOM = "OS::Heat::None", "OS::Heat::TestResource", "OS::Heat::RandomString"
VALUE, DELAY = "OS::Heat::Value", "OS::Heat::Delay"
SOFTWARE, STRUCTURED = "OS::Heat::SoftwareConfig", "OS::Heat::StructuredConfig"
CLOUD, MIME = "OS::Heat::CloudConfig", "OS::Heat::MultipartMime"
COMPONENT = "OS::Heat::SoftwareComponent"


def run(coroutine):
    return asyncio.run(coroutine)


def is_uuid(text) -> bool:
    return str(uuid.UUID(text)) == text


# --------------------------------------------------------------------------- OS::Heat::None


def test_none_accepts_anything_and_answers_null(stack):
    view = run(stack.create("n", NONE, {"flavor": "m1", "nested": {"a": [1]}}))
    assert is_uuid(view.physical_id) and view.data["uuid"] == view.physical_id
    assert stack.reference("n") == view.physical_id
    assert stack.attribute("n", "anything") is None
    plugin = stack.plugin(NONE)
    assert (
        plugin.traits.dynamic_attributes
        and plugin.traits.dynamic_properties
        and plugin.traits.never_updates
    )
    run(stack.delete("n"))


def test_none_ids_are_random_version_4_uuids():
    from stoker.resources.builtin.none_resource import uuid4_text

    made = [uuid4_text() for _ in range(2000)]
    parsed = [uuid.UUID(text) for text in made]
    assert all(str(u) == text for u, text in zip(parsed, made, strict=True))
    assert {u.version for u in parsed} == {4}
    assert {u.variant for u in parsed} == {uuid.RFC_4122}
    assert len(set(made)) == len(made)
    # the random bits around the fixed ones are all used: each variant digit appears
    assert {text[19] for text in made} == set("89ab")
    assert {text[14] for text in made} == {"4"}


def test_none_gets_a_new_id_each_time(stack):
    first = run(stack.create("a", NONE)).physical_id
    second = run(stack.create("b", NONE)).physical_id
    assert first != second


# --------------------------------------------------------------------------- TestResource


def test_test_resource_stores_its_value(stack):
    view = run(stack.create("t", TEST, {"value": "hello"}))
    assert view.physical_id == "demo-t-abcdefghijkl"
    assert stack.reference("t") == view.physical_id
    assert stack.attribute("t", "output") == "hello"
    assert stack.clock.slept == []


def test_test_resource_default_value(stack):
    run(stack.create("t", TEST))
    assert stack.attribute("t", "output") == "test_string"


@pytest.mark.parametrize(
    ("properties", "create_wait", "delete_wait"),
    [
        ({"wait_secs": 2}, [2.0], [2.0]),
        ({"wait_secs": 0.25, "action_wait_secs": {"create": 3}}, [3.0], [0.25]),
        ({"wait_secs": 1, "action_wait_secs": {"delete": 0}}, [1.0], []),
    ],
)
def test_test_resource_waits_per_action(stack, properties, create_wait, delete_wait):
    run(stack.create("t", TEST, properties))
    assert stack.clock.slept == create_wait
    stack.clock.slept.clear()
    run(stack.delete("t"))
    assert stack.clock.slept == delete_wait


def test_test_resource_fails_after_its_wait_but_deletes_cleanly(stack):
    with pytest.raises(ResourceFailure, match="^Test Resource failed t$"):
        run(stack.create("t", TEST, {"fail": True, "wait_secs": 1.5, "value": "v"}))
    assert stack.clock.slept == [1.5]
    view = stack.views["t"]
    assert view.status == "FAILED" and view.physical_id is None
    assert stack.reference("t") == "t"  # the logical name: nothing was made
    assert stack.attribute("t", "output") is None
    run(stack.delete("t"))  # never fails on delete


def test_test_resource_negative_wait_lasts_until_the_operation_stops(stack):
    async def stop_after_three_steps():
        if len(stack.clock.slept) == 3:
            raise asyncio.CancelledError

    stack.on_sleep.append(stop_after_three_steps)
    with pytest.raises(asyncio.CancelledError):
        run(stack.create("t", TEST, {"wait_secs": -1}))
    assert stack.clock.slept == [FOREVER_STEP] * 3


def test_test_resource_falls_back_to_asyncio_sleep(stack):
    context = stack.context("t", TEST, {"wait_secs": 0.01})
    context.sleep = None
    run(stack.plugin(TEST).create(context))
    assert context.physical_id == "demo-t-abcdefghijkl"


def test_test_resource_updates_in_place_unless_told_to_replace(stack):
    before = run(stack.create("t", TEST, {"value": "one", "action_wait_secs": {"update": 4}}))
    plugin = stack.plugin(TEST)
    context = stack.context("t", TEST, {"value": "two", "action_wait_secs": {"update": 4}})
    context.data.update(before.data)
    assert not plugin.needs_replace(before, context.properties)
    run(plugin.update(context, before))
    assert context.data["value"] == "two" and stack.clock.slept == [4.0]
    replacing = stack.context("t", TEST, {"value": "three", "update_replace": True})
    assert plugin.needs_replace(before, replacing.properties)
    same_value = stack.context("t", TEST, {"value": "one", "update_replace": True})
    assert not plugin.needs_replace(before, same_value.properties)


def test_test_resource_update_fails_when_told_to(stack):
    before = run(stack.create("t", TEST, {"value": "one"}))
    context = stack.context("t", TEST, {"value": "two", "fail": True})
    context.data.update(before.data)
    with pytest.raises(ResourceFailure, match="Test Resource failed t"):
        run(stack.plugin(TEST).update(context, before))
    assert context.data["value"] == "one"  # a failing update stores nothing


# --------------------------------------------------------------------------- RandomString


def test_random_string_defaults(stack):
    view = run(stack.create("r", RANDOM))
    value = view.data["value"]
    assert len(value) == 32 and set(value) <= set(string.ascii_letters + string.digits)
    assert stack.reference("r") == value and stack.attribute("r", "value") == value
    assert run(stack.create("s", RANDOM)).data["value"] != value


def test_random_string_honours_every_minimum(stack):
    properties = {
        "length": 12,
        "character_classes": [{"class": "digits", "min": 5}, {"class": "lowercase", "min": 3}],
        "character_sequences": [{"sequence": "!@", "min": 4}],
    }
    for attempt in range(20):
        value = run(stack.create(f"r{attempt}", RANDOM, properties)).data["value"]
        assert len(value) == 12
        assert sum(c in string.digits for c in value) == 5
        assert sum(c in string.ascii_lowercase for c in value) == 3
        assert sum(c in "!@" for c in value) == 4


def test_random_string_draws_the_rest_from_every_pool(stack):
    properties = {
        "length": 200,
        "character_classes": [{"class": "hexdigits"}],
        "character_sequences": [{"sequence": "~"}],
    }
    value = run(stack.create("r", RANDOM, properties)).data["value"]
    assert set(value) <= set("0123456789ABCDEF~") and "~" in value
    assert len(set(value)) > 10  # the remainder really is drawn from the union


def test_random_string_default_class_still_applies_with_sequences(stack):
    value = run(
        stack.create("r", RANDOM, {"length": 40, "character_sequences": [{"sequence": "#"}]})
    ).data["value"]
    assert "#" in value and any(c in string.ascii_letters + string.digits for c in value)


@pytest.mark.parametrize(
    ("name", "charset"),
    [
        ("letters", string.ascii_letters),
        ("octdigits", "01234567"),
        ("uppercase", "ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
    ],
)
def test_random_string_classes(stack, name, charset):
    value = run(stack.create("r", RANDOM, {"character_classes": [{"class": name}]})).data["value"]
    assert set(value) <= set(charset)


def test_random_string_legacy_sequence_property(stack):
    value = run(stack.create("r", RANDOM, {"sequence": "digits", "length": 50})).data["value"]
    assert value.isdigit()


def test_random_string_minimums_must_fit_in_the_length(stack):
    plugin = stack.plugin(RANDOM)
    properties = {
        "length": 4,
        "character_classes": [{"class": "digits", "min": 3}],
        "character_sequences": [{"sequence": "ab", "min": 2}],
    }
    context = stack.context("r", RANDOM, properties)
    expected = (
        "Length property cannot be smaller than combined character class and "
        "character sequence minimums"
    )
    assert plugin.validate(context.properties) == [expected]
    with pytest.raises(ResourceFailure, match=expected):
        run(plugin.create(context))


def test_random_string_needs_characters(stack):
    plugin = stack.plugin(RANDOM)
    empty = stack.context("r", RANDOM, {"character_classes": []}).properties
    assert plugin.validate(empty) == ["character_classes and character_sequences are both empty"]
    blank = stack.context("r", RANDOM, {"character_sequences": [{"sequence": ""}]}).properties
    assert plugin.validate(blank) == ["a character sequence must hold at least one character"]


# --------------------------------------------------------------------------- Value


# Recorded from Heat 24.1.2: the attribute is the value as given, once it fits the type.
@pytest.mark.parametrize(
    ("properties", "expected"),
    [
        ({"value": "5", "type": "number"}, "5"),
        ({"value": "2.5", "type": "number"}, "2.5"),
        ({"value": ["a", "b"], "type": "comma_delimited_list"}, ["a", "b"]),
        ({"value": {"a": 1}, "type": "json"}, {"a": 1}),
        ({"value": 7, "type": "string"}, 7),
        ({"value": {"as": ["given"]}}, {"as": ["given"]}),
    ],
)
def test_value_is_exposed_as_given(stack, properties, expected):
    view = run(stack.create("v", VALUE, properties))
    assert stack.attribute("v", "value") == expected
    assert view.physical_id == "demo-v-abcdefghijkl" == stack.reference("v")


# Recorded from Heat 24.1.2 (create refuses; validate accepts)
@pytest.mark.parametrize(
    ("properties", "message"),
    [
        ({"value": "many", "type": "number"}, "could not convert string to float: 'many'"),
        ({"value": '{"a": 1}', "type": "json"}, '"{"a": 1}" is not a map'),
        ({"value": [1, 2], "type": "json"}, '"[1, 2]" is not a map'),
        ({"value": "a,b", "type": "comma_delimited_list"}, "\"'a,b'\" is not a list"),
        ({"value": "yes", "type": "boolean"}, '"yes" is not a valid boolean'),
    ],
)
def test_value_of_the_wrong_type_is_refused(stack, properties, message):
    plugin = stack.plugin(VALUE)
    context = stack.context("v", VALUE, properties)
    assert plugin.validate(context.properties) == [f"value: {message}"]
    with pytest.raises(ResourceFailure):
        run(plugin.create(context))


def test_value_updates_in_place(stack):
    before = run(stack.create("v", VALUE, {"value": "1", "type": "number"}))
    context = stack.context("v", VALUE, {"value": "2", "type": "number"})
    run(stack.plugin(VALUE).update(context, before))
    assert (
        stack.plugin(VALUE).attribute(stack.record("v", VALUE, "UPDATE", "COMPLETE"), "value")
        == "2"
    )


# --------------------------------------------------------------------------- Delay


def test_delay_waits_on_the_listed_actions(stack, monkeypatch):
    monkeypatch.setattr(delay_module.random, "random", lambda: 0.5)
    properties = {"min_wait": 2, "max_jitter": 3, "jitter_multiplier": 2, "actions": ["DELETE"]}
    view = run(stack.create("d", DELAY, properties))
    assert stack.clock.slept == [] and view.physical_id is None
    assert stack.reference("d") == "d"
    run(stack.delete("d"))
    assert stack.clock.slept == [2 + 0.5 * 3 * 2]


def test_delay_defaults_wait_on_create_only(stack):
    run(stack.create("d", DELAY, {"min_wait": 1}))
    assert stack.clock.slept == [1]
    run(stack.delete("d"))
    assert stack.clock.slept == [1]


def test_delay_suspend_and_resume(stack):
    context = stack.context("d", DELAY, {"min_wait": 1.5, "actions": ["SUSPEND", "RESUME"]})
    plugin = stack.plugin(DELAY)
    run(plugin.create(context))
    run(plugin.suspend(context))
    run(plugin.resume(context))
    assert stack.clock.slept == [1.5, 1.5]


def test_delay_longer_than_the_time_left_fails(stack):
    stack.time_left = 5
    with pytest.raises(
        ResourceFailure,
        match=r"^OS::Heat::Delay maximum delay 6.0s exceeds "
        "stack timeout.$",
    ):
        run(stack.create("d", DELAY, {"min_wait": 4, "max_jitter": 2}))
    assert stack.clock.slept == []
    run(stack.create("e", DELAY, {"min_wait": 4, "max_jitter": 1}))


# --------------------------------------------------------------------------- configs


def test_software_config_stores_a_config_record(stack):
    properties = {
        "group": "script",
        "config": "#!/bin/sh\necho hi\n",
        "inputs": [{"name": "who"}],
        "outputs": [{"name": "result", "error_output": True}],
        "options": {"debug": True},
    }
    view = run(stack.create("c", SOFTWARE, properties))
    assert is_uuid(view.physical_id) and stack.reference("c") == view.physical_id
    assert stack.attribute("c", "config") == "#!/bin/sh\necho hi\n"
    record = view.data["config"]
    assert record["id"] == view.physical_id and record["group"] == "script"
    assert record["inputs"] == [
        {
            "name": "who",
            "description": None,
            "type": "String",
            "default": None,
            "replace_on_change": False,
        }
    ]
    assert record["outputs"][0]["error_output"] is True and record["options"] == {"debug": True}


def test_structured_config_keeps_its_map(stack):
    run(stack.create("c", STRUCTURED, {"config": {"packages": ["nginx"]}}))
    assert stack.attribute("c", "config") == {"packages": ["nginx"]}
    assert stack.views["c"].data["config"]["group"] == "Heat::Ungrouped"


def test_software_component_stores_its_configs_under_the_component_group(stack):
    configs = [{"actions": ["CREATE"], "config": "one", "tool": "script"}]
    view = run(stack.create("c", COMPONENT, {"configs": configs}))
    record = view.data["config"]
    assert is_uuid(view.physical_id) and record["group"] == "component"
    assert record["config"] == {"configs": configs}
    assert stack.attribute("c", "config") is None  # as Heat's: it answers no such attribute
    assert stack.attribute("c", "show")["config"] == {"configs": configs}


def test_software_component_refuses_two_configs_for_one_action(stack):
    plugin = stack.plugin(COMPONENT)
    one = {"actions": ["CREATE", "UPDATE"], "tool": "script"}
    two = {"actions": ["UPDATE"], "tool": "script"}
    assert plugin.validate({"configs": [one]}) == []
    assert plugin.validate({"configs": [one, two]}) == [
        "Defining more than one configuration for the same action in a "
        "SoftwareComponent is not allowed."
    ]


def test_cloud_config_is_a_cloud_config_document(stack):
    data = {"packages": ["nginx"], "runcmd": [["echo", "ü"]]}
    run(stack.create("c", CLOUD, {"cloud_config": data}))
    text = stack.attribute("c", "config")
    assert text.startswith("#cloud-config\n") and "packages:\n- nginx" in text
    assert yaml.safe_load(text) == data


def test_multipart_mime_joins_inline_and_referenced_configs(stack):
    script = run(stack.create("script", SOFTWARE, {"config": "#!/bin/sh\necho one\n"}))
    run(stack.create("cloud", CLOUD, {"cloud_config": {"packages": ["nginx"]}}))
    parts = [
        {"config": script.physical_id},
        {"config": stack.reference("cloud"), "subtype": "cloud-config", "filename": "c.yaml"},
        {"config": "plain words", "filename": "notes.txt"},
        {"config": "héllo"},
        {"config": str(uuid.uuid4())},  # names no config of this stack: taken as text
    ]
    view = run(stack.create("mime", MIME, {"parts": parts}))
    assert is_uuid(view.physical_id)
    message = email.message_from_string(stack.attribute("mime", "config"))
    assert message.is_multipart() and message.get_content_type() == "multipart/mixed"
    got = [
        (
            p.get_content_type(),
            p.get_filename(),
            p.get_payload(decode=True).decode(p.get_content_charset()),
        )
        for p in message.get_payload()
    ]
    assert got == [
        ("text/plain", None, "#!/bin/sh\necho one\n"),
        ("text/cloud-config", "c.yaml", "#cloud-config\npackages:\n- nginx\n"),
        ("text/notes", "notes.txt", "plain words"),  # the subtype defaults to the stem
        ("text/plain", None, "héllo"),
        ("text/plain", None, parts[4]["config"]),
    ]
    assert message.get_payload()[3].get_content_charset() == "utf-8"


def test_multipart_mime_takes_over_the_parts_of_another_message(stack):
    run(
        stack.create(
            "inner",
            MIME,
            {"parts": [{"config": "one"}, {"config": "zwei", "subtype": "x-shellscript"}]},
        )
    )
    parts = [
        {"config": stack.reference("inner"), "type": "multipart"},
        {"config": "not a mime message", "type": "multipart"},  # adds nothing, as in Heat
        {"config": "last"},
    ]
    run(stack.create("outer", MIME, {"parts": parts}))
    message = email.message_from_string(stack.attribute("outer", "config"))
    payloads = [(p.get_content_type(), p.get_payload()) for p in message.get_payload()]
    assert payloads == [
        ("text/plain", "one"),
        ("text/x-shellscript", "zwei"),
        ("text/plain", "last"),
    ]


def test_multipart_mime_of_a_structured_config_uses_json(stack):
    run(stack.create("s", STRUCTURED, {"config": {"a": 1}}))
    run(stack.create("m", MIME, {"parts": [{"config": stack.reference("s")}]}))
    message = email.message_from_string(stack.attribute("m", "config"))
    assert message.get_payload()[0].get_payload() == '{"a": 1}'


def test_multipart_mime_with_no_parts(stack):
    run(stack.create("m", MIME))
    message = email.message_from_string(stack.attribute("m", "config"))
    # The email parser reads the empty body between the two boundaries as one empty part.
    assert message.is_multipart() and [p.get_payload() for p in message.get_payload()] == [""]
