"""Functions that fail inside outputs fail when the output is read, as in Heat.

Heat checks an output's calls only as far as it parses them (and runs their own
``validate``): the template is accepted, the stack is CREATE_COMPLETE, and the output
carries an ``output_error``. The verdicts and messages below were recorded from real Heat
24.1.2 (``POST /validate`` and ``POST /stacks``).
"""

from __future__ import annotations

import asyncio

import pytest

from stoker.definition.stack import OUTPUT_TIME_NOTE, define_stack
from stoker.engine.settings import EngineSettings
from stoker.engine.stacks import CreateRequest, StackEngine
from stoker.engine.state import Status
from stoker.environment import merge_environments
from stoker.resources.registry import default_registry
from stoker.template.nodes import plain

from .helpers import definition_from, template_from

pytestmark = pytest.mark.heavy


@pytest.fixture
def engine(store) -> StackEngine:
    return StackEngine(store, default_registry(), EngineSettings())


def create(engine: StackEngine, text: str):
    found = definition_from(text, require_all=True)
    assert found.errors == []
    request = CreateRequest(
        name="s",
        definition=found,
        template=plain(found.template.document.data),
        environment=found.environment.to_data(),
    )
    return asyncio.run(engine.create(request))


HEADER = """
heat_template_version: %s
parameters:
  l: {type: comma_delimited_list, default: "a,b"}
  s: {type: string, default: "abc"}
resources:
  r: {type: OS::Heat::None}
outputs:
  o:
    value: %s
"""

# (version, output value, Heat's output_error) -- Heat's validate accepts every one
ACCEPTED = [
    ("2018-08-31", '{list_join: [",", "a"]}', '"list_join" must operate on a list'),
    ("2018-08-31", "{list_join: [1, [a]]}", '"list_join" delimiter must be a string'),
    (
        "2018-08-31",
        "{str_replace: {template: [1], params: {a: b}}}",
        '"str_replace" template must be a string',
    ),
    (
        "2015-04-30",
        '{str_replace: {template: "a", params: {get_param: l}}}',
        '"str_replace" params must be a map',
    ),
    (
        "2018-08-31",
        '{str_replace_strict: {template: "a", params: {x: y}}}',
        "The following params were not found in the template: x",
    ),
    (
        "2018-08-31",
        '{str_replace_vstrict: {template: "a", params: {x: y}}}',
        "The following params were not found in the template: x",
    ),
    (
        "2018-08-31",
        '{repeat: {template: "%a", for_each: {"%a": [a], "%b": []}, permutations: false}}',
        "For repeat, the length of for_each values should be equal if no nested loop.",
    ),
    ("2018-08-31", "{digest: [nosuch, x]}", "Algorithm must be one of"),
    (
        "2018-08-31",
        '{str_split: [",", "a,b", 5]}',
        'Incorrect index to "str_split" should be between 0 and 1',
    ),
    ("2018-08-31", "{map_merge: [a, b]}", "Incorrect arguments: Items to merge must be maps."),
    ("2018-08-31", "{map_replace: [{a: 1, b: 2}, {keys: {a: b}}]}", "collides"),
    (
        "2018-08-31",
        "{contains: [a, {a: 1}]}",
        'Second argument to "contains" should be a sequence.',
    ),
    ("2018-08-31", "{filter: [a, b]}", '"filter" only works with lists'),
    (
        "2018-08-31",
        '{make_url: {scheme: "ht:tp", host: x}}',
        "URL \"scheme\" should not contain ':'",
    ),
    ("2018-08-31", "{list_concat: [a, [b]]}", "Items to concat must be lists"),
    ("2018-08-31", '{yaql: {expression: "1/0", data: {}}}', "1/0"),
    ("2018-08-31", "{get_param: nosuch}", "The Parameter (nosuch) was not provided."),
    (
        "2018-08-31",
        "{get_resource: nosuch}",
        'The specified reference "nosuch" (in unknown) is incorrect.',
    ),
    (
        "2018-08-31",
        "{get_file: nosuch.txt}",
        'No content found in the "files" section for get_file path: nosuch.txt',
    ),
    ("2013-05-23", '{"Fn::Join": [",", a]}', '"Fn::Join" must operate on a list'),
]

# (version, output value, Heat's validate message) -- structure Heat checks at validate
REFUSED = [
    ("2018-08-31", '{list_join: [","]}', 'Incorrect arguments to "list_join" should be'),
    ("2018-08-31", '{str_replace: "a"}', 'Arguments to "str_replace" must be a map'),
    ("2018-08-31", '{str_replace: {template: "a"}}', '"str_replace" syntax should be'),
    ("2018-08-31", '{repeat: {template: "%a"}}', '"repeat" syntax should be'),
    ("2018-08-31", "{contains: [a]}", 'Arguments to "contains" must be of the form'),
    ("2018-08-31", "{filter: [a]}", '"filter" expected 2 arguments'),
    ("2018-08-31", "{make_url: {nosuch: x}}", 'Invalid arguments to "make_url": nosuch'),
    ("2018-08-31", "{make_url: {port: 99999, host: x}}", "Invalid URL port 99999"),
    ("2018-08-31", '{yaql: {expression: "$(", data: {}}}', "Bad expression Parse error"),
    (
        "2018-08-31",
        "{get_attr: [nosuch, x]}",
        'The specified reference "nosuch" (in unknown) is incorrect',
    ),
    ("2018-08-31", "{if: [nosuchcond, a, b]}", 'Invalid condition "nosuchcond"'),
]


@pytest.mark.parametrize(("version", "value", "message"), ACCEPTED)
def test_validate_accepts_and_the_linter_still_reports(version, value, message):
    definition = definition_from(HEADER % (version, value))
    assert definition.errors == []
    (finding,) = definition.output_findings
    assert finding.path[:2] == ("outputs", "o")
    assert finding.message.endswith(f"({OUTPUT_TIME_NOTE})")


@pytest.mark.parametrize(("version", "value", "message"), ACCEPTED)
def test_create_completes_and_the_output_has_an_error(engine, version, value, message):
    record = create(engine, HEADER % (version, value))
    assert record.status is Status.COMPLETE, record.status_reason
    (output,) = engine.outputs(record)
    assert output["output_value"] is None
    assert message in output["output_error"]


@pytest.mark.parametrize(("version", "value", "message"), REFUSED)
def test_structure_is_still_checked_at_validate(version, value, message):
    definition = definition_from(HEADER % (version, value))
    assert any(message in d.message for d in definition.errors), definition.errors


def _without_output_values(text: str, require_all: bool):
    template = template_from(text)
    environment, _ = merge_environments([])
    return define_stack(
        template, environment, require_all_parameters=require_all, output_values=False
    )


@pytest.mark.parametrize("require_all", [False, True])
@pytest.mark.parametrize(("version", "value", "message"), ACCEPTED + REFUSED)
def test_a_nested_definition_skips_the_output_values_and_keeps_the_rest(
    require_all, version, value, message
):
    # a nested stack's definition (the tree check's, the engine's create) has nobody to
    # report the outputs' values to: the parent reads them by resolving them
    text = HEADER % (version, value)
    full = definition_from(text, require_all=require_all)
    skipped = _without_output_values(text, require_all)
    assert skipped.output_findings == []
    assert skipped.diagnostics == full.diagnostics
    assert skipped.create_findings == full.create_findings
    assert skipped.enabled == full.enabled


def test_a_description_of_any_type_is_kept_as_heat_shows_it():
    definition = definition_from("heat_template_version: 2018-08-31\ndescription: [1, 2]\n")
    assert definition.errors == [] and definition.template.description == [1, 2]
