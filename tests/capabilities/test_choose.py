"""Choosing one template of a registry list by requires and capabilities, and its errors."""

from __future__ import annotations

import pytest

from stoker import codes
from stoker.environment import ResolvedType, parse_environment
from stoker.resolution import ProviderTemplates, choose_provider, resolve_provider
from stoker.template.loader import load_document

ENV = "env.yaml"
TEMPLATES = {
    "a.yaml": (
        "heat_template_version: 2015-10-15\n"
        "capabilities:\n  deployment: puppet\n  resource_type: OS::TripleO::Controller\n"
    ),
    "b.yaml": (
        "heat_template_version: 2016-04-08\n"
        "capabilities:\n  deployment: docker\n"
        "  resource_type: [OS::TripleO::Controller, OS::TripleO::Compute]\n"
    ),
    "c.yaml": "heat_template_version: 2016-04-08\nresources: {}\n",
    "c2.yaml": "heat_template_version: 2016-04-08\nresources: {}\n",
    "d.yaml": "heat_template_version: rocky\ncapabilities: {deployment: [puppet, docker]}\n",
    "early.yaml": "heat_template_version: 2015-04-30\ncapabilities: {deployment: puppet}\n",
    "broken.yaml": "heat_template_version: 2016-04-08\nresources: [\n",
    "env-like.yaml": "parameters: {a: 1}\n",
    "bad-value.yaml": "heat_template_version: 2016-04-08\ncapabilities: {deployment: 3}\n",
}


class Reader:
    """Serves TEMPLATES by location, counting reads; anything else does not exist."""

    def __init__(self) -> None:
        self.reads: list[str] = []

    def __call__(self, location: str):
        self.reads.append(location)
        if location not in TEMPLATES:
            raise FileNotFoundError(2, "No such file or directory", location)
        return load_document(TEMPLATES[location], location)


def environment(items: list[str], requires: str = "", type_name: str = "OS::TripleO::Controller"):
    text = (requires and f"requires: {requires}\n") + (
        f"resource_registry:\n  My::Alias: {type_name}\n  {type_name}: [{', '.join(items)}]\n"
    )
    env, found = parse_environment(load_document(text, ENV))
    assert [d.render() for d in found if d.is_error] == []
    return env


def choose(items, requires="", type_name="OS::TripleO::Controller", requested=None):
    env = environment(items, requires, type_name)
    resolved = env.resource_registry.resolve(requested or type_name, "node")
    # environment() read from "env.yaml", so candidates are relative to the current directory
    assert all(ref.base_dir == "" for ref in resolved.candidates)
    return choose_provider(resolved, env.requires, read=Reader(), resource_name="node")


CHOICES = [
    # (id, listed, requires, type, chosen)
    ("one-match", ["a.yaml", "b.yaml"], "{deployment: puppet}", None, "a.yaml"),
    ("the-other", ["a.yaml", "b.yaml"], "{deployment: docker}", None, "b.yaml"),
    ("listed-requires", ["a.yaml", "b.yaml"], "{deployment: [chef, docker]}", None, "b.yaml"),
    ("listed-capability", ["a.yaml", "d.yaml"], "{deployment: docker}", None, "d.yaml"),
    ("none", ["a.yaml", "b.yaml"], "{deployment: chef}", None, None),
    ("several-without-requires", ["a.yaml", "b.yaml"], "", None, None),
    ("several-listed-capability", ["a.yaml", "d.yaml"], "{deployment: puppet}", None, None),
    ("resource-type-filters", ["a.yaml", "b.yaml"], "", "OS::TripleO::Compute", "b.yaml"),
    ("no-resource-type-means-any", ["c.yaml"], "", "OS::TripleO::Compute", "c.yaml"),
    ("undeclared-key-disqualifies", ["a.yaml", "c.yaml"], "{deployment: puppet}", None, "a.yaml"),
    ("every-key-needed", ["a.yaml", "b.yaml"], "{deployment: puppet, net: x}", None, None),
    ("one-candidate-must-match", ["a.yaml"], "{deployment: docker}", None, None),
    ("one-candidate", ["a.yaml"], "", None, "a.yaml"),
    (
        "resource-type-as-requirement",
        ["a.yaml", "b.yaml"],
        "{resource_type: OS::TripleO::Compute}",
        None,
        "b.yaml",
    ),
]


@pytest.mark.parametrize(
    ("listed", "requires", "type_name", "chosen"),
    [c[1:] for c in CHOICES],
    ids=[c[0] for c in CHOICES],
)
def test_choices(listed, requires, type_name, chosen):
    ref, found = choose(listed, requires, type_name or "OS::TripleO::Controller")
    if chosen is None:
        assert ref is None
        (error,) = found
        assert error.code == codes.PROVIDER_CHOICE and error.is_error
    else:
        assert found == []
        assert ref is not None and ref.path == chosen and ref.location == chosen


def test_the_resource_type_may_match_any_type_mapped_through():
    # My::Alias -> OS::TripleO::Controller -> [a, b]: a declares the second name, so it
    # stands in for resources written as My::Alias too.
    ref, found = choose(["a.yaml", "b.yaml"], "{deployment: puppet}", requested="My::Alias")
    assert found == [] and ref.path == "a.yaml"


def test_a_single_template_or_a_plugin_type_needs_no_choice():
    reader = Reader()
    ref, found = choose_provider(ResolvedType("OS::A", "OS::A", "x.yaml", "envs"), {}, read=reader)
    assert (ref.path, ref.base_dir, found) == ("x.yaml", "envs", [])
    assert choose_provider(ResolvedType("OS::A", "OS::A"), {}, read=reader) == (None, [])
    assert reader.reads == []


# --------------------------------------------------------------------------- messages


def shown(diagnostic) -> list[str]:
    return [diagnostic.render(), *(f"note: {note}" for note in diagnostic.notes)]


def test_none_qualifies_message():
    _, (error,) = choose(["a.yaml", "b.yaml", "c.yaml"], "{deployment: chef}")
    assert shown(error) == [
        "env.yaml:4:3: resource_registry.OS::TripleO::Controller: cannot choose a template for "
        '"OS::TripleO::Controller" of resource "node": none of the 3 listed meets requires '
        "{deployment: chef}: a.yaml has {deployment: puppet, resource_type: "
        "OS::TripleO::Controller} (its deployment is puppet, not chef); b.yaml has {deployment: "
        "docker, resource_type: [OS::TripleO::Controller, OS::TripleO::Compute]} (its "
        "deployment is docker, not chef); c.yaml has {} (it declares no deployment)",
        "note: requires deployment is set at env.yaml:1:24",
        "note: a.yaml is listed at env.yaml:4:29; its capabilities are at a.yaml:2:1",
        "note: b.yaml is listed at env.yaml:4:37; its capabilities are at b.yaml:2:1",
        "note: c.yaml is listed at env.yaml:4:45; it has no capabilities section",
    ]


def test_several_qualify_message_suggests_a_requirement():
    _, (error,) = choose(["a.yaml", "b.yaml"])
    assert shown(error) == [
        "env.yaml:3:3: resource_registry.OS::TripleO::Controller: cannot choose a template for "
        '"OS::TripleO::Controller" of resource "node": 2 of the 2 listed qualify and no '
        "requires is set to choose between them: a.yaml has {deployment: puppet, "
        "resource_type: OS::TripleO::Controller}; b.yaml has {deployment: docker, "
        "resource_type: [OS::TripleO::Controller, OS::TripleO::Compute]}; set requires "
        "deployment to one of puppet, docker to pick one",
        "note: no environment has a requires: section",
        "note: a.yaml is listed at env.yaml:3:29; its capabilities are at a.yaml:2:1",
        "note: b.yaml is listed at env.yaml:3:37; its capabilities are at b.yaml:2:1",
    ]


def test_resource_type_mismatch_says_so():
    _, (error,) = choose(["a.yaml"], "", "OS::TripleO::Compute")
    assert (
        "a.yaml has {deployment: puppet, resource_type: OS::TripleO::Controller} (its "
        "resource_type is OS::TripleO::Controller, not OS::TripleO::Compute)"
    ) in error.message


def test_several_that_nothing_tells_apart():
    _, (error,) = choose(["c.yaml", "c2.yaml"])
    assert "2 of the 2 listed qualify" in error.message
    assert error.message.endswith(
        "they declare nothing that tells them apart; give each a capability of its own "
        "(e.g. deployment: puppet) and set it in requires"
    )


# --------------------------------------------------------------------------- unreadable


BAD_CANDIDATES = [
    (
        "missing",
        "gone.yaml",
        [
            'env.yaml:4:37: resource_registry.OS::TripleO::Controller: cannot read "gone.yaml", '
            "listed for OS::TripleO::Controller: No such file or directory; no template can be "
            "chosen without it"
        ],
    ),
    (
        "syntax",
        "broken.yaml",
        [
            "broken.yaml:",
            "env.yaml:4:37: resource_registry.OS::TripleO::Controller: cannot read the "
            'capabilities of "broken.yaml", listed for OS::TripleO::Controller: it is not a '
            "valid document",
        ],
    ),
    (
        "not-a-template",
        "env-like.yaml",
        [
            'env.yaml:4:37: resource_registry.OS::TripleO::Controller: "env-like.yaml", listed '
            "for OS::TripleO::Controller, is not a template: it has no heat_template_version"
        ],
    ),
    (
        "too-early-for-capabilities",
        "early.yaml",
        [
            "early.yaml:2:1: capabilities: The template section is invalid: capabilities "
            "(capabilities need heat_template_version 2015-10-15 or later"
        ],
    ),
    (
        "bad-value",
        "bad-value.yaml",
        ['bad-value.yaml:2:28: capabilities.deployment: capabilities "deployment" must be'],
    ),
    (
        "url",
        "https://example.com/x.yaml",
        [
            'env.yaml:4:37: resource_registry.OS::TripleO::Controller: cannot read "https://'
            'example.com/x.yaml", listed for OS::TripleO::Controller: it is a URL, and stoker '
            "reads provider templates from files only; give a path"
        ],
    ),
]


@pytest.mark.parametrize(
    ("bad", "expected"), [c[1:] for c in BAD_CANDIDATES], ids=[c[0] for c in BAD_CANDIDATES]
)
def test_a_bad_candidate_stops_the_choice_even_if_another_matches(bad, expected):
    ref, found = choose(["a.yaml", bad], "{deployment: puppet}")
    assert ref is None
    got = [d.render() for d in found if d.is_error]
    assert len(got) == len(expected), got
    for line, prefix in zip(got, expected, strict=True):
        assert line.startswith(prefix)


# --------------------------------------------------------------------------- resolve_provider


def test_resolve_provider_sets_the_chosen_template():
    env = environment(["a.yaml", "b.yaml"], "{deployment: docker}")
    resolved, found = resolve_provider(
        env.resource_registry, env.requires, "OS::TripleO::Controller", "node", read=Reader()
    )
    assert found == []
    assert resolved.template == "b.yaml" and resolved.base_dir == ""
    assert resolved.template is not None and resolved.template_location == "b.yaml"
    assert len(resolved.candidates) == 2
    assert resolved.describe() == "OS::TripleO::Controller -> [a.yaml, b.yaml] -> b.yaml"


def test_resolve_provider_returns_the_unchosen_list_with_the_error():
    env = environment(["a.yaml", "b.yaml"], "{deployment: chef}")
    resolved, (error,) = resolve_provider(
        env.resource_registry, env.requires, "OS::TripleO::Controller", read=Reader()
    )
    assert resolved.template is None and len(resolved.candidates) == 2
    assert error.code == codes.PROVIDER_CHOICE and 'of resource "' not in error.message


def test_resolve_provider_leaves_other_resolutions_alone():
    text = 'resource_registry:\n  "OS::A": a.yaml\n  "OS::B": "OS::Heat::None"\n'
    env, _ = parse_environment(load_document(text, "envs/env.yaml"))
    reader = Reader()
    for type_name in ("OS::A", "OS::B", "OS::C"):
        resolved, found = resolve_provider(env.resource_registry, {}, type_name, read=reader)
        assert resolved == env.resource_registry.resolve(type_name) and found == []
    assert reader.reads == []


def test_requires_may_be_plain_data():
    env = environment(["a.yaml", "b.yaml"])
    resolved, found = resolve_provider(
        env.resource_registry, {"deployment": "puppet"}, "OS::TripleO::Controller", read=Reader()
    )
    assert found == [] and resolved.template == "a.yaml"


def test_caching_read_reads_each_candidate_once():
    env = environment(["a.yaml", "b.yaml"], "{deployment: puppet}")
    counting = Reader()
    read = ProviderTemplates(counting).read
    for index in range(50):
        resolved, found = resolve_provider(
            env.resource_registry, env.requires, "OS::TripleO::Controller", str(index), read=read
        )
        assert resolved.template == "a.yaml" and found == []
    assert counting.reads == ["a.yaml", "b.yaml"]
