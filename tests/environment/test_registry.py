"""The resource registry: aliases, templates, globs, per-resource blocks, hooks, layers."""

from __future__ import annotations

import pytest

from stoker.diagnostics import Span
from stoker.environment import (
    RegistryLoopError,
    ResourceRegistry,
    child_environment,
    parse_environment,
    read_registry_section,
)
from stoker.template.loader import load_document

FILE = "envs/env.yaml"


def registry(text: str, file: str = FILE) -> ResourceRegistry:
    environment, found = parse_environment(load_document(text, file))
    assert [d for d in found if d.is_error] == []
    return environment.resource_registry


def with_global(user: ResourceRegistry, other: ResourceRegistry) -> ResourceRegistry:
    """``user`` over ``other``'s user entries as the global layer."""
    return ResourceRegistry(
        user.sections, global_sections=(*other.global_sections, *other.sections)
    )


def section(text: str, file: str = FILE):
    block, found = read_registry_section(load_document(text, file).data, file=file)
    assert [d for d in found if d.is_error] == []
    return block


# --------------------------------------------------------------------------- type names

TYPE_CASES = [
    # (id, registry text, type, resource name, nested path, final type, template, chain length)
    ("unmapped", '"OS::A": "OS::B"', "OS::X", None, (), "OS::X", None, 0),
    ("alias", '"OS::A": "OS::B"', "OS::A", None, (), "OS::B", None, 1),
    ("chain", '"OS::A": "OS::B"\n  "OS::B": "OS::C"', "OS::A", None, (), "OS::C", None, 2),
    ("template-value", '"OS::A": a.yaml', "OS::A", None, (), "OS::A", "a.yaml", 1),
    ("template-suffix", '"OS::A": a.template', "OS::A", None, (), "OS::A", "a.template", 1),
    (
        "template-url",
        '"OS::A": "https://example.com/t/a.yaml"',
        "OS::A",
        None,
        (),
        "OS::A",
        "https://example.com/t/a.yaml",
        1,
    ),
    ("yml-is-a-type", '"OS::A": a.yml', "OS::A", None, (), "a.yml", None, 1),
    (
        "alias-then-template",
        '"OS::A": "OS::B"\n  "OS::B": b.yaml',
        "OS::A",
        None,
        (),
        "OS::B",
        "b.yaml",
        2,
    ),
    ("template-named-type", '"OS::A": "OS::B"', "x.yaml", None, (), "x.yaml", "x.yaml", 0),
    (
        "template-named-key-ignores-value",
        '"x.yaml": y.yaml',
        "OS::A",
        None,
        (),
        "OS::A",
        None,
        0,
    ),
    (
        "glob-prefix-swap",
        '"OS::Networking::*": "OS::Neutron::*"',
        "OS::Networking::FloatingIP",
        None,
        (),
        "OS::Neutron::FloatingIP",
        None,
        1,
    ),
    (
        "glob-without-separator",
        '"OS::Quantum*": "OS::Neutron*"',
        "OS::Quantum::Net",
        None,
        (),
        "OS::Neutron::Net",
        None,
        1,
    ),
    (
        "glob-many-to-one",
        '"OS::*": "OS::Heat::None"',
        "OS::Nova::Server",
        None,
        (),
        "OS::Heat::None",
        None,
        1,
    ),
    (
        "many-to-one-not-applied-to-its-target",
        '"OS::*": "OS::Heat::None"',
        "OS::Heat::None",
        None,
        (),
        "OS::Heat::None",
        None,
        0,
    ),
    (
        "glob-to-template-maps-in-stoker",
        '"My::*": none.yaml',
        "My::Thing",
        None,
        (),
        "My::Thing",
        "none.yaml",
        1,
    ),
    (
        "glob-is-tried-before-exact-as-in-heat",
        '"OS::*": "OS::Heat::None"\n  "OS::Nova::Server": "My::Server"',
        "OS::Nova::Server",
        None,
        (),
        "OS::Heat::None",
        None,
        1,
    ),
    (
        "shorter-glob-is-tried-first-as-in-heat",
        '"OS::Nova::*": "Nova::*"\n  "OS::*": "Other::*"',
        "OS::Nova::Server",
        None,
        (),
        "Other::Nova::Server",
        None,
        1,
    ),
    (
        "exact-key-that-sorts-first-wins",
        '"OS::Nova::Server*": "Glob::*"\n  "OS::Nova::Server": "Exact"',
        "OS::Nova::Server",
        None,
        (),
        "Exact",
        None,
        1,
    ),
    (
        "per-resource",
        '"OS::Nova::Server": general.yaml\n  resources:\n    web:\n'
        '      "OS::Nova::Server": web.yaml',
        "OS::Nova::Server",
        "web",
        (),
        "OS::Nova::Server",
        "web.yaml",
        1,
    ),
    (
        "per-resource-applies-to-that-resource-only",
        '"OS::Nova::Server": general.yaml\n  resources:\n    web:\n'
        '      "OS::Nova::Server": web.yaml',
        "OS::Nova::Server",
        "db",
        (),
        "OS::Nova::Server",
        "general.yaml",
        1,
    ),
    (
        "per-resource-not-without-name",
        'resources:\n    web:\n      "OS::Nova::Server": web.yaml',
        "OS::Nova::Server",
        None,
        (),
        "OS::Nova::Server",
        None,
        0,
    ),
    (
        # Heat maps a type for a resource by its exact name only (24.1.2, tests/fidelity
        # env_matrix/registry.per_resource_glob); patterns serve hooks and nesting
        "per-resource-pattern-maps-no-type",
        'resources:\n    "web*":\n      "OS::Nova::Server": web.yaml',
        "OS::Nova::Server",
        "web-01",
        (),
        "OS::Nova::Server",
        None,
        0,
    ),
    (
        "per-resource-fnmatch-no-match",
        'resources:\n    "web*":\n      "OS::Nova::Server": web.yaml',
        "OS::Nova::Server",
        "db-01",
        (),
        "OS::Nova::Server",
        None,
        0,
    ),
    (
        "per-resource-exact-beats-pattern",
        'resources:\n    web1:\n      "OS::A": exact.yaml\n    "web*":\n'
        '      "OS::A": pattern.yaml',
        "OS::A",
        "web1",
        (),
        "OS::A",
        "exact.yaml",
        1,
    ),
    (
        "per-resource-patterns-map-no-type",
        'resources:\n    "w*":\n      "OS::A": first.yaml\n    "*1":\n      "OS::A": second.yaml',
        "OS::A",
        "web1",
        (),
        "OS::A",
        None,
        0,
    ),
    (
        "per-resource-glob-inside-block",
        'resources:\n    web:\n      "OS::*": "OS::Heat::None"',
        "OS::Nova::Server",
        "web",
        (),
        "OS::Heat::None",
        None,
        1,
    ),
    (
        "per-resource-chain-keeps-resource-name",
        '"OS::B": general.yaml\n  resources:\n    web:\n      "OS::A": "OS::B"\n'
        '      "OS::B": web-b.yaml',
        "OS::A",
        "web",
        (),
        "OS::B",
        "web-b.yaml",
        2,
    ),
    (
        "nested-per-resource",
        'resources:\n    parent:\n      child:\n        "OS::A": child.yaml',
        "OS::A",
        "child",
        ("parent",),
        "OS::A",
        "child.yaml",
        1,
    ),
    (
        "nested-per-resource-needs-the-parent",
        'resources:\n    parent:\n      child:\n        "OS::A": child.yaml',
        "OS::A",
        "child",
        (),
        "OS::A",
        None,
        0,
    ),
    (
        "nested-per-resource-wrong-parent",
        'resources:\n    parent:\n      child:\n        "OS::A": child.yaml',
        "OS::A",
        "child",
        ("other",),
        "OS::A",
        None,
        0,
    ),
    (
        "nested-patterns-for-the-parent-only",
        'resources:\n    "p*":\n      "c1":\n        "OS::A": child.yaml',
        "OS::A",
        "c1",
        ("parent",),
        "OS::A",
        "child.yaml",
        1,
    ),
    (
        "deeper-block-beats-general",
        '"OS::A": general.yaml\n  resources:\n    parent:\n      child:\n'
        '        "OS::A": child.yaml',
        "OS::A",
        "child",
        ("parent",),
        "OS::A",
        "child.yaml",
        1,
    ),
    (
        "parent-block-is-not-the-childs",
        'resources:\n    parent:\n      "OS::A": parent.yaml',
        "OS::A",
        "child",
        ("parent",),
        "OS::A",
        None,
        0,
    ),
]


@pytest.mark.parametrize(
    ("text", "type_name", "resource", "nested", "final", "template", "steps"),
    [case[1:] for case in TYPE_CASES],
    ids=[case[0] for case in TYPE_CASES],
)
def test_resolve(text, type_name, resource, nested, final, template, steps):
    resolved = registry(f"resource_registry:\n  {text}\n").resolve(type_name, resource, nested)
    assert resolved.requested == type_name
    assert resolved.type_name == final
    assert resolved.template == template
    assert len(resolved.chain) == steps


KNOWN = {"OS::Nova::Server", "OS::Heat::None", "My::Server", "OS::Neutron::Net"}


@pytest.mark.parametrize(
    ("text", "type_name", "final"),
    [
        # The glob leads to an unknown type, so Heat moves on to the exact entry.
        (
            '"OS::*": "Nowhere::*"\n  "OS::Nova::Server": "My::Server"',
            "OS::Nova::Server",
            "My::Server",
        ),
        # The mapping leads nowhere and nothing else applies: the type itself, if known.
        ('"OS::Nova::Server": "Nowhere"', "OS::Nova::Server", "OS::Nova::Server"),
        # Nothing resolves: the first chain is returned for the caller to report.
        ('"OS::X": "Nowhere"', "OS::X", "Nowhere"),
        # A dead end deeper in a chain backs off to the first step's next candidate.
        (
            '"OS::*": "Mid::*"\n  "Mid::Nova::Server": "Nowhere"\n'
            '  "OS::Nova::Server": "My::Server"',
            "OS::Nova::Server",
            "My::Server",
        ),
    ],
    ids=["glob-to-unknown", "back-to-itself", "nothing-known", "deep-dead-end"],
)
def test_known_types_make_dead_ends_fall_back(text, type_name, final):
    environment, _ = parse_environment(load_document(f"resource_registry:\n  {text}\n", FILE))
    resolved = environment.resource_registry.resolve(type_name, known=KNOWN.__contains__)
    assert resolved.type_name == final


def test_shadowed_entries_are_warned_about():
    _, found = parse_environment(
        load_document(
            'resource_registry:\n  "OS::*": "OS::Heat::None"\n  "OS::Nova::Server": "My::S"\n'
            '  "OS::Nova::*": "Nova::*"\n  "AWS::X": "Y"\n',
            FILE,
        )
    )
    assert [(d.severity.value, d.span.line, d.message.split(",")[0]) for d in found] == [
        ("warning", 3, '"OS::Nova::Server" is shadowed by "OS::*"'),
        ("warning", 4, '"OS::Nova::*" is shadowed by "OS::*"'),
    ]


def test_chain_records_each_step():
    resolved = registry(
        'resource_registry:\n  "OS::A": "OS::B"\n  resources:\n    web:\n      "OS::B": b.yaml\n'
    ).resolve("OS::A", "web")
    first, second = resolved.chain
    assert (first.requested, first.key, first.target, first.scope) == (
        "OS::A",
        "OS::A",
        "OS::B",
        (),
    )
    assert first.span == Span(FILE, 2, 3)
    assert (second.requested, second.target, second.scope) == ("OS::B", "b.yaml", ("web",))
    assert second.span == Span(FILE, 5, 7)
    assert resolved.describe() == "OS::A -> OS::B -> b.yaml"
    assert str(second) == "OS::B -> b.yaml (resources.web)"


@pytest.mark.parametrize(
    ("template", "location"),
    [
        ("a.yaml", "envs/a.yaml"),
        ("../shared/a.yaml", "shared/a.yaml"),
        ("/abs/a.yaml", "/abs/a.yaml"),
        ("file:///etc/heat/templates/a.yaml", "/etc/heat/templates/a.yaml"),
        ("https://example.com/a.yaml", "https://example.com/a.yaml"),
    ],
)
def test_template_location_is_relative_to_the_environment_file(template, location):
    resolved = registry(f'resource_registry:\n  "OS::A": "{template}"\n').resolve("OS::A")
    assert resolved.template == template
    assert resolved.base_dir == "envs"
    assert resolved.template_location == location


def test_template_named_type_has_no_environment_directory():
    resolved = registry("resource_registry: {}\n").resolve("nested/x.yaml")
    assert resolved.base_dir is None
    assert resolved.template_location == "nested/x.yaml"


# --------------------------------------------------------------------------- loops


@pytest.mark.parametrize(
    ("text", "type_name", "message", "position"),
    [
        (
            '"OS::A": "OS::A"',
            "OS::A",
            "resource_registry mappings form a loop: OS::A -> OS::A",
            (2, 3),
        ),
        (
            '"OS::A": "OS::B"\n  "OS::B": "OS::A"',
            "OS::A",
            "resource_registry mappings form a loop: OS::A -> OS::B -> OS::A",
            (3, 3),
        ),
        (
            '"OS::X": "OS::A"\n  "OS::A": "OS::B"\n  "OS::B": "OS::A"',
            "OS::X",
            "resource_registry mappings form a loop: OS::A -> OS::B -> OS::A "
            '(reached from "OS::X")',
            (4, 3),
        ),
        (
            '"X::*": "X::Y::*"',
            "X::a",
            'resource_registry mappings for "X::a" go on for more than 64 steps',
            (2, 3),
        ),
    ],
    ids=["self", "two", "reached-from", "growing-glob"],
)
def test_loops_are_errors(text, type_name, message, position):
    environment, _ = parse_environment(load_document(f"resource_registry:\n  {text}\n", FILE))
    with pytest.raises(RegistryLoopError) as caught:
        environment.resource_registry.resolve(type_name)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.message.startswith(message)
    assert (diagnostic.span.line, diagnostic.span.column) == position


def test_parse_reports_each_loop_once_with_position():
    environment, found = parse_environment(
        load_document(
            'resource_registry:\n  "OS::A": "OS::B"\n  "OS::B": "OS::A"\n  "OS::C": "OS::A"\n',
            FILE,
        )
    )
    assert [d.render() for d in found] == [
        "envs/env.yaml:3:3: resource_registry.OS::B: resource_registry mappings form a loop: "
        "OS::A -> OS::B -> OS::A"
    ]


def test_loop_through_a_resource_block():
    assert registry('resource_registry:\n  "OS::A": "OS::B"\n').check() == []
    _, found = parse_environment(
        load_document(
            'resource_registry:\n  "OS::A": "OS::B"\n  resources:\n    web:\n'
            '      "OS::B": "OS::A"\n',
            FILE,
        )
    )
    assert len(found) == 1
    # The entry that closes the loop is the general one, reached from the web block.
    assert found[0].path == ("resource_registry", "OS::A")
    assert "OS::B -> OS::A -> OS::B" in found[0].message


# --------------------------------------------------------------------------- layers


GLOBAL = """resource_registry:
  "OS::Quantum*": "OS::Neutron*"
  "AWS::CloudWatch::Alarm": "file:///etc/heat/templates/AWS_CloudWatch_Alarm.yaml"
  "OS::Metering::Alarm": "OS::Aodh::Alarm"
"""


def test_user_entries_outrank_global_ones():
    global_registry = registry(GLOBAL, "/etc/heat/environment.d/default.yaml")
    user = registry('resource_registry:\n  "OS::Metering::Alarm": "My::Alarm"\n')
    combined = with_global(user, global_registry)
    assert combined.resolve("OS::Metering::Alarm").type_name == "My::Alarm"
    assert combined.resolve("OS::Quantum::Net").type_name == "OS::Neutron::Net"
    alarm = combined.resolve("AWS::CloudWatch::Alarm")
    assert alarm.template_location == "/etc/heat/templates/AWS_CloudWatch_Alarm.yaml"
    assert alarm.user is False


def test_global_target_is_resolved_in_the_global_layer_only():
    global_registry = registry('resource_registry:\n  "Old::A": "OS::A"\n', "g.yaml")
    user = registry('resource_registry:\n  "OS::A": a.yaml\n')
    combined = with_global(user, global_registry)
    assert combined.resolve("OS::A").template == "a.yaml"
    resolved = combined.resolve("Old::A")
    assert resolved.type_name == "OS::A"
    assert resolved.template is None


# --------------------------------------------------------------------------- loading order


def test_null_deletes_an_earlier_section_mapping():
    first = section('"OS::A": "OS::B"\n"OS::C": "OS::D"\n')
    second = section('"OS::A": null\n')
    combined = ResourceRegistry([first, second])
    assert combined.resolve("OS::A").type_name == "OS::A"
    assert combined.resolve("OS::C").type_name == "OS::D"


def test_glob_null_deletes_every_matching_entry():
    first = section('"OS::A": "X"\n"OS::B": "Y"\n"AWS::C": "Z"\n')
    second = section('"OS::*": null\n')
    combined = ResourceRegistry([first, second])
    assert combined.resolve("OS::A").type_name == "OS::A"
    assert combined.resolve("OS::B").type_name == "OS::B"
    assert combined.resolve("AWS::C").type_name == "Z"


def test_resource_blocks_merge_key_by_key_across_sections():
    first = section("resources:\n  web:\n    hooks: pre-create\n")
    second = section('resources:\n  web:\n    "OS::A": a.yaml\n')
    combined = ResourceRegistry([first, second])
    assert combined.hooks("web") == {"pre-create"}
    assert combined.resolve("OS::A", "web").template == "a.yaml"
    third = section("resources:\n  web:\n    hooks: null\n")
    assert ResourceRegistry([first, second, third]).hooks("web") == frozenset()


# --------------------------------------------------------------------------- hooks


HOOKS = """resource_registry:
  resources:
    my_server:
      "OS::DBInstance": file:///home/mine/all_my_cool_templates/db.yaml
      hooks: pre-create
      restricted_actions: replace
    "*_server":
      hooks: [pre-update]
    nested_stack:
      nested_resource:
        hooks: pre-update
        restricted_actions: update
      another_resource:
        hooks: [pre-create, pre-update]
        restricted_actions: [update, replace]
"""


@pytest.mark.parametrize(
    ("name", "nested", "hooks", "restricted"),
    [
        ("my_server", (), {"pre-create", "pre-update"}, {"replace"}),
        ("db_server", (), {"pre-update"}, set()),
        ("server", (), set(), set()),
        ("nested_resource", ("nested_stack",), {"pre-update"}, {"update"}),
        (
            "another_resource",
            ("nested_stack",),
            {"pre-create", "pre-update"},
            {"update", "replace"},
        ),
        ("nested_resource", (), set(), set()),
        ("nested_stack", (), set(), set()),
        ("another_resource", ("other",), set(), set()),
    ],
)
def test_hooks_and_restricted_actions(name, nested, hooks, restricted):
    reg = registry(HOOKS)
    assert reg.hooks(name, nested) == hooks
    assert reg.restricted_actions(name, nested) == restricted


def test_per_resource_entry_does_not_leak_to_other_resources():
    reg = registry(HOOKS)
    assert reg.resolve("OS::DBInstance", "my_server").template is not None
    assert reg.resolve("OS::DBInstance", "my_db").template is None


# --------------------------------------------------------------------------- the rest


def test_template_paths_lists_every_template_once():
    reg = registry(
        "resource_registry:\n"
        '  "OS::A": a.yaml\n'
        '  "OS::B": a.yaml\n'
        '  "OS::C": "OS::D"\n'
        '  "x.template": x.template\n'
        "  resources:\n"
        "    web:\n"
        '      "OS::A": web/a.yaml\n'
        "      child:\n"
        '        "OS::E": "https://example.com/e.yaml"\n'
    )
    paths = [(ref.path, ref.location) for ref in reg.template_paths()]
    assert paths == [
        ("a.yaml", "envs/a.yaml"),
        ("x.template", "envs/x.template"),
        ("web/a.yaml", "envs/web/a.yaml"),
        ("https://example.com/e.yaml", "https://example.com/e.yaml"),
    ]


def test_to_data_round_trips_the_registry_shape():
    reg = registry(
        'resource_registry:\n  "OS::A": a.yaml\n  resources:\n    web:\n      hooks: pre-create\n'
    )
    assert reg.to_data() == {"OS::A": "a.yaml", "resources": {"web": {"hooks": ["pre-create"]}}}


def test_child_registry_drops_the_expanding_mapping_and_narrows_resources():
    reg = registry(
        "resource_registry:\n"
        '  "OS::Nova::Server": my_nova.yaml\n'
        '  "OS::Other": other.yaml\n'
        "  resources:\n"
        "    web:\n"
        "      hooks: pre-create\n"
        "      inner:\n"
        "        hooks: pre-update\n"
        '    "w*":\n'
        "      inner:\n"
        "        hooks: pre-delete\n"
        "      other:\n"
        "        hooks: post-create\n"
        "    db:\n"
        "      inner:\n"
        "        hooks: post-delete\n"
    )
    expanded = reg.resolve("OS::Nova::Server", "web")
    child = reg.for_child("web", expanded)
    assert child.resolve("OS::Nova::Server").template is None
    assert child.resolve("OS::Other").template == "other.yaml"
    assert child.hooks("inner") == {"pre-update"}  # the exact block's entry replaces the glob's
    assert child.hooks("other") == {"post-create"}
    assert child.hooks("web") == frozenset()
    assert reg.resolve("OS::Nova::Server").template == "my_nova.yaml"  # parent unchanged


def test_child_environment():
    environment, _ = parse_environment(
        load_document(
            "parameters: {a: 1}\nparameter_defaults: {b: 2}\n"
            "event_sinks: [{type: zaqar-queue, target: q}]\n"
            'resource_registry:\n  "OS::A": a.yaml\n',
            FILE,
        )
    )
    resolved = environment.resource_registry.resolve("OS::A", "r")
    child = child_environment(environment, "r", {"x": "y"}, expanded=resolved)
    assert child.parameters == {"x": "y"}
    assert child.parameter_defaults == {"b": 2}
    assert [sink.target for sink in child.event_sinks] == ["q"]
    assert child.resource_registry.resolve("OS::A").template is None
