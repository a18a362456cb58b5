"""Registry list entries and the requires section: parsing, resolving, merging, nesting."""

from __future__ import annotations

import pytest

from stoker import codes
from stoker.diagnostics import Severity, Span
from stoker.environment import (
    Environment,
    TemplateRef,
    child_environment,
    environment_from_data,
    merge_environments,
    parse_environment,
)
from stoker.template.loader import load_document

FILE = "envs/env.yaml"


def parse(text: str, file: str = FILE) -> tuple[Environment, list]:
    return parse_environment(load_document(text, file))


def env(text: str, file: str = FILE) -> Environment:
    environment, found = parse(text, file)
    assert [d.render() for d in found if d.is_error] == []
    return environment


def errors(found) -> list[str]:
    return [d.render() for d in found if d.is_error]


def warnings(found) -> list[tuple[str, str]]:
    return [(d.code, d.render()) for d in found if d.severity is Severity.WARNING]


# --------------------------------------------------------------------------- registry lists

LIST_ENV = (
    "resource_registry:\n"
    "  OS::TripleO::Controller: [puppet/controller.yaml, docker/controller.yaml]\n"
)


def test_a_list_entry_offers_candidates_and_chooses_none_yet():
    registry = env(LIST_ENV).resource_registry
    resolved = registry.resolve("OS::TripleO::Controller", "controller")
    assert resolved.template is None and resolved.base_dir is None
    assert resolved.is_choice and resolved.template is None
    assert resolved.candidates == (
        TemplateRef("puppet/controller.yaml", "envs", Span(FILE, 2, 29), True),
        TemplateRef("docker/controller.yaml", "envs", Span(FILE, 2, 53), True),
    )
    assert [ref.location for ref in resolved.candidates] == [
        "envs/puppet/controller.yaml",
        "envs/docker/controller.yaml",
    ]
    assert resolved.describe() == (
        "OS::TripleO::Controller -> [puppet/controller.yaml, docker/controller.yaml]"
    )
    assert resolved.chain[-1].key == "OS::TripleO::Controller"
    assert resolved.chain[-1].span == Span(FILE, 2, 3)


def test_a_list_reached_through_an_alias_knows_every_type_on_the_way():
    registry = env(
        "resource_registry:\n  My::Ctl: OS::TripleO::Controller\n"
        "  OS::TripleO::Controller: [a.yaml, b.yaml]\n"
    ).resource_registry
    resolved = registry.resolve("My::Ctl")
    assert resolved.type_name == "OS::TripleO::Controller"
    assert resolved.mapped_types == ("My::Ctl", "OS::TripleO::Controller")
    assert len(resolved.candidates) == 2


def test_list_entries_work_in_per_resource_blocks_and_round_trip():
    text = "resource_registry:\n  resources:\n    web:\n      OS::Role: [a.yaml, b.yaml]\n"
    registry = env(text).resource_registry
    assert registry.resolve("OS::Role", "web").candidates[1].path == "b.yaml"
    assert registry.resolve("OS::Role", "db").candidates == ()
    data = registry.to_data()
    assert data == {"resources": {"web": {"OS::Role": ["a.yaml", "b.yaml"]}}}
    again, found = environment_from_data({"resource_registry": data}, "<environment>")
    assert errors(found) == []
    assert again.resource_registry.resolve("OS::Role", "web").candidates[0].path == "a.yaml"


def test_template_paths_name_every_candidate():
    registry = env(LIST_ENV + '  "OS::Other": other.yaml\n').resource_registry
    assert [ref.location for ref in registry.template_paths()] == [
        "envs/puppet/controller.yaml",
        "envs/docker/controller.yaml",
        "envs/other.yaml",
    ]


def test_the_child_registry_drops_the_list_that_expanded_it():
    parent = env(LIST_ENV + "requires: {deployment: puppet}\n")
    resolved = parent.resource_registry.resolve("OS::TripleO::Controller", "controller")
    child = child_environment(parent, "controller", {}, expanded=resolved)
    assert child.resource_registry.resolve("OS::TripleO::Controller").candidates == ()
    assert child.requires == {"deployment": ["puppet"]}


def test_a_list_warns_that_heat_cannot_read_it():
    _, found = parse(LIST_ENV)
    assert warnings(found) == [
        (
            codes.ENVIRONMENT_NONPORTABLE,
            "envs/env.yaml:2:28: resource_registry.OS::TripleO::Controller: warning: "
            '"OS::TripleO::Controller" maps to a list: Heat accepts only one type or template '
            "here (it reads a list as a plugin class and fails); stoker chooses one of the "
            "templates by the environment's requires and each template's capabilities",
        )
    ]


BAD_LISTS = [
    (
        "empty",
        "  OS::A: []\n",
        [
            'envs/env.yaml:2:10: resource_registry.OS::A: resource_registry entry "OS::A" is '
            "an empty list; list the templates to choose from, or map the type to one type or "
            "template"
        ],
        None,
    ),
    (
        "number-item",
        "  OS::A: [a.yaml, 3]\n",
        [
            'envs/env.yaml:2:19: resource_registry.OS::A.1: resource_registry entry "OS::A": '
            "item 2 must be a template path (got a number)"
        ],
        ("a.yaml",),
    ),
    (
        "type-item",
        "  OS::A:\n    - OS::Heat::None\n    - b.template\n",
        [
            'envs/env.yaml:3:7: resource_registry.OS::A.0: resource_registry entry "OS::A": '
            'item 1 "OS::Heat::None" is not a template path; a list offers provider templates '
            "to choose from by their capabilities, so each item must end .yaml or .template"
        ],
        ("b.template",),
    ),
    (
        "yml-item",
        "  OS::A: [a.yml]\n",
        [
            'envs/env.yaml:2:11: resource_registry.OS::A.0: resource_registry entry "OS::A": '
            'item 1 "a.yml" is not a template path'
        ],
        None,
    ),
    (
        "mapping-item",
        "  OS::A: [{x: a.yaml}]\n",
        [
            'envs/env.yaml:2:11: resource_registry.OS::A.0: resource_registry entry "OS::A": '
            "item 1 must be a template path (got a mapping)"
        ],
        None,
    ),
]


@pytest.mark.parametrize(
    ("entry", "expected", "kept"), [c[1:] for c in BAD_LISTS], ids=[c[0] for c in BAD_LISTS]
)
def test_bad_list_items_are_reported_where_they_are(entry, expected, kept):
    environment, found = parse("resource_registry:\n" + entry)
    got = errors(found)
    assert len(got) == len(expected)
    for line, prefix in zip(got, expected, strict=True):
        assert line.startswith(prefix)
    assert all(d.code == codes.ENVIRONMENT for d in found if d.is_error)
    candidates = environment.resource_registry.resolve("OS::A").candidates
    assert tuple(ref.path for ref in candidates) == (kept or ())


def test_a_repeated_item_is_a_warning_and_kept_once():
    environment, found = parse("resource_registry:\n  OS::A: [a.yaml, b.yaml, a.yaml]\n")
    assert errors(found) == []
    assert (
        codes.ENVIRONMENT,
        'envs/env.yaml:2:27: resource_registry.OS::A.2: warning: resource_registry entry "OS::A": '
        '"a.yaml" is listed twice; the repeat is ignored',
    ) in warnings(found)
    candidates = environment.resource_registry.resolve("OS::A").candidates
    assert [ref.path for ref in candidates] == ["a.yaml", "b.yaml"]


def test_a_template_key_with_a_list_means_the_key():
    environment, found = parse("resource_registry:\n  x.yaml: [a.yaml, b.yaml]\n")
    assert any("the list is ignored" in line for _, line in warnings(found))
    resolved = environment.resource_registry.resolve("x.yaml")
    assert resolved.template == "x.yaml" and resolved.candidates == ()


# --------------------------------------------------------------------------- requires


def test_requires_is_read_with_positions_and_a_portability_warning():
    environment, found = parse("requires:\n  deployment: puppet\n  network: [isolated, flat]\n")
    assert errors(found) == []
    assert environment.requires == {"deployment": ["puppet"], "network": ["isolated", "flat"]}
    assert environment.requires.value_spans["deployment"] == Span(FILE, 2, 15)
    assert warnings(found) == [
        (
            codes.ENVIRONMENT_NONPORTABLE,
            'envs/env.yaml:1:1: requires: warning: Heat rejects the section "requires" '
            "(environment has wrong section); stoker uses it to choose among the templates a "
            "resource_registry list offers, by their capabilities",
        )
    ]


REQUIRES_ERRORS = [
    (
        "list",
        "requires: [a]\n",
        ['envs/env.yaml:1:11: requires: The "requires" section must be a mapping'],
    ),
    (
        "null",
        "requires:\n",
        ['envs/env.yaml:1:1: requires: environment has empty section "requires"'],
    ),
    (
        "number",
        "requires: {version: 2}\n",
        [
            'envs/env.yaml:1:21: requires.version: requires "version" must be a string or a '
            "list of strings (got a number); quote it"
        ],
    ),
    (
        "item",
        "requires: {d: [a, {b: c}]}\n",
        ['envs/env.yaml:1:19: requires.d.1: requires "d": item 2 must be a string (got a mapping)'],
    ),
]


@pytest.mark.parametrize(
    ("text", "expected"), [c[1:] for c in REQUIRES_ERRORS], ids=[c[0] for c in REQUIRES_ERRORS]
)
def test_requires_shapes_are_environment_errors(text, expected):
    environment, found = parse(text)
    got = errors(found)
    assert len(got) == len(expected)
    for line, prefix in zip(got, expected, strict=True):
        assert line.startswith(prefix)
    assert all(d.code == codes.ENVIRONMENT for d in found if d.is_error)
    assert environment.requires == {}


def test_unknown_sections_mention_requires():
    _, found = parse("require: {a: b}\n")
    assert errors(found)[0].endswith("resource_registry (and stoker's requires)")


def test_requires_merge_in_order_later_keys_win():
    first = env("requires: {deployment: puppet, network: flat}\n", "base.yaml")
    second = env("requires:\n  deployment: docker\n  storage: ceph\n", "override.yaml")
    merged, found = merge_environments([first, second])
    assert found == []
    assert merged.requires == {
        "network": ["flat"],
        "deployment": ["docker"],
        "storage": ["ceph"],
    }
    assert merged.requires.value_spans["deployment"] == Span("override.yaml", 2, 15)
    assert merged.requires.key_spans["deployment"] == Span("override.yaml", 2, 3)
    assert merged.requires.value_spans["network"] == Span("base.yaml", 1, 41)
    assert list(merged.requires) == ["network", "deployment", "storage"]  # file order


def test_merging_without_requires_leaves_none_and_to_data_keeps_heats_shape():
    merged, _ = merge_environments([env("parameters: {a: 1}\n")])
    assert merged.requires == {}
    assert "requires" not in merged.to_data()


def test_to_data_keeps_requires_so_a_stored_stack_chooses_the_same():
    environment = env(LIST_ENV + "requires: {deployment: [puppet, docker]}\n")
    data = environment.to_data()
    assert data["requires"] == {"deployment": ["puppet", "docker"]}
    assert data["resource_registry"]["OS::TripleO::Controller"] == [
        "puppet/controller.yaml",
        "docker/controller.yaml",
    ]
    again, found = environment_from_data(data)
    assert errors(found) == []
    assert again.requires == environment.requires
