"""WaitConditionHandle signals and WaitCondition waits, driven by signals over fake time."""

from __future__ import annotations

import asyncio
import json

import pytest

from stoker.resources.base import ResourceFailure
from stoker.resources.builtin.wait_condition import POLL_SECONDS, normalise_signal

HANDLE, WAIT = "OS::Heat::WaitConditionHandle", "OS::Heat::WaitCondition"


def run(coroutine):
    return asyncio.run(coroutine)


def signals(stack, name="handle"):
    return stack.views[name].data["signals"]


# --------------------------------------------------------------------------- the handle


def test_handle_makes_a_secret_token_and_says_how_to_signal(stack):
    view = run(stack.create("handle", HANDLE))
    token = view.data["token"]
    assert len(token) >= 32 and view.physical_id and stack.reference("handle") == view.physical_id
    assert stack.attribute("handle", "token") == token
    assert stack.attribute("handle", "endpoint") == f"stoker://{stack.id}/handle"
    assert stack.attribute("handle", "curl_cli") == "stoker stack signal demo handle"
    described = json.loads(stack.attribute("handle", "signal"))
    assert described["token"] == token and described["stack_name"] == "demo"
    assert described["resource_name"] == "handle" and described["endpoint"].startswith("stoker://")
    assert run(stack.create("other", HANDLE)).data["token"] != token


def test_handle_attributes_are_null_before_create(stack):
    context = stack.context("handle", HANDLE, {})
    stack.record("handle", HANDLE, "INIT", "COMPLETE")
    assert context.data == {}
    assert stack.attribute("handle", "token") is None


SIGNALS = [
    (None, {"1": {"status": "SUCCESS", "reason": "Signal 1 received", "data": None}}),
    ({}, {"1": {"status": "SUCCESS", "reason": "Signal 1 received", "data": None}}),
    (
        {"status": "FAILURE", "reason": "disk full", "data": {"free": 0}, "id": "boot"},
        {"boot": {"status": "FAILURE", "reason": "disk full", "data": {"free": 0}}},
    ),
    (
        {"data": "x", "id": 7},
        {"7": {"status": "SUCCESS", "reason": "Signal 1 received", "data": "x"}},
    ),
]


@pytest.mark.parametrize(("details", "stored"), SIGNALS, ids=lambda v: repr(v)[:40])
def test_handle_fills_in_heats_defaults(stack, details, stored):
    run(stack.create("handle", HANDLE))
    run(stack.signal("handle", details))
    assert signals(stack) == stored


def test_handle_numbers_signals_and_same_id_overwrites(stack):
    run(stack.create("handle", HANDLE))
    run(stack.signal("handle", {"data": "a"}))
    run(stack.signal("handle", {"data": "b"}))
    run(stack.signal("handle", {"data": "again", "id": "1"}))
    run(stack.signal("handle", {}))
    assert signals(stack) == {
        # numbered by how many are stored, so the overwrite is "Signal 3" too
        "1": {"status": "SUCCESS", "reason": "Signal 3 received", "data": "again"},
        "2": {"status": "SUCCESS", "reason": "Signal 2 received", "data": "b"},
        "3": {"status": "SUCCESS", "reason": "Signal 3 received", "data": None},
    }


@pytest.mark.parametrize(
    "details",
    [
        {"status": "SUCCESS", "extra": 1},
        {"status": "DONE"},
        {"status": "success"},
        "SUCCESS",
        ["SUCCESS"],
    ],
    ids=repr,
)
def test_handle_rejects_malformed_signals(stack, details):
    run(stack.create("handle", HANDLE))
    with pytest.raises(ResourceFailure, match="^Metadata format invalid$"):
        run(stack.signal("handle", details))
    assert signals(stack) == {}


def test_normalised_signals_keep_their_id():
    assert normalise_signal({"id": "x"}, 4) == {
        "status": "SUCCESS",
        "reason": "Signal 4 received",
        "data": None,
        "id": "x",
    }


# --------------------------------------------------------------------------- the wait


def signal_on_sleep(stack, plan):
    """Send ``plan[n]`` to the handle during the n-th poll sleep of the waiter."""
    polls = iter(range(1, 1000))

    async def act():
        step = next(polls)
        for details in plan.get(step, []):
            await stack.signal("handle", details)

    stack.on_sleep.append(act)


def test_wait_condition_completes_after_count_successes(stack):
    run(stack.create("handle", HANDLE))
    signal_on_sleep(stack, {2: [{"data": "one", "id": "a"}], 5: [{"data": "two", "id": "b"}]})
    handle_ref = stack.reference("handle")
    view = run(stack.create("wait", WAIT, {"handle": handle_ref, "timeout": 60, "count": 2}))
    assert view.status == "COMPLETE"
    assert stack.clock.slept == [POLL_SECONDS] * 5
    assert json.loads(stack.attribute("wait", "data")) == {"a": "one", "b": "two"}
    assert stack.reference("wait") == "wait"  # it makes nothing: the logical name


def test_wait_condition_accepts_signals_that_came_first(stack):
    run(stack.create("handle", HANDLE))
    run(stack.signal("handle", {"data": "early"}))
    run(stack.create("wait", WAIT, {"handle": stack.reference("handle"), "timeout": 10}))
    assert stack.clock.slept == []
    assert json.loads(stack.attribute("wait", "data")) == {"1": "early"}


def test_wait_condition_finds_its_handle_by_name_too(stack):
    run(stack.create("handle", HANDLE))
    run(stack.signal("handle", None))
    assert run(stack.create("wait", WAIT, {"handle": "handle", "timeout": 10})).status == "COMPLETE"


def test_wait_condition_fails_at_the_first_failure_with_every_reason(stack):
    run(stack.create("handle", HANDLE))
    signal_on_sleep(
        stack,
        {
            1: [{"data": "fine"}],
            3: [
                {"status": "FAILURE", "reason": "disk full"},
                {"status": "FAILURE", "reason": "no network"},
            ],
        },
    )
    with pytest.raises(ResourceFailure, match="^disk full;no network$"):
        run(stack.create("wait", WAIT, {"handle": "handle", "timeout": 60, "count": 5}))
    assert json.loads(stack.views["wait"].data["data"]) == {"1": "fine", "2": None, "3": None}


@pytest.mark.parametrize(
    ("plan", "message"),
    [
        ({}, "^0 of 2 received$"),
        ({3: [{"reason": "first up"}]}, "^1 of 2 received - first up$"),
    ],
)
def test_wait_condition_times_out(stack, plan, message):
    run(stack.create("handle", HANDLE))
    signal_on_sleep(stack, plan)
    with pytest.raises(ResourceFailure, match=message):
        run(stack.create("wait", WAIT, {"handle": "handle", "timeout": 1, "count": 2}))
    waited = stack.clock.now - 1000.0
    assert 1 < waited <= 1 + 2 * POLL_SECONDS


@pytest.mark.parametrize("handle", ["nowhere", "other"])
def test_wait_condition_needs_a_real_handle(stack, handle):
    run(stack.create("other", "OS::Heat::None"))
    with pytest.raises(ResourceFailure, match=f"^{handle} is not a valid wait condition handle.$"):
        run(stack.create("wait", WAIT, {"handle": handle, "timeout": 5}))


def test_wait_condition_update_waits_for_the_new_count(stack):
    run(stack.create("handle", HANDLE))
    run(stack.signal("handle", {}))
    before = run(stack.create("wait", WAIT, {"handle": "handle", "timeout": 30}))
    signal_on_sleep(stack, {2: [{}]})
    plugin = stack.plugin(WAIT)
    context = stack.context("wait", WAIT, {"handle": "handle", "timeout": 30, "count": 2})
    run(plugin.update(context, before))
    assert stack.clock.slept == [POLL_SECONDS] * 2
    assert json.loads(context.data["data"]) == {"1": None, "2": None}


def test_wait_condition_without_a_lookup_cannot_find_its_handle(stack):
    context = stack.context("wait", WAIT, {"handle": "h", "timeout": 5})
    context.lookup = None
    with pytest.raises(ResourceFailure, match="not a valid wait condition handle"):
        run(stack.plugin(WAIT).create(context))
