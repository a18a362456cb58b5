"""A change re-checks only what it touched (`stoker.lsp.blocks`, `stoker.definition.Reuse`),
and finds what a check from scratch finds.

These tests call the language server's check in-process, beside the stdio tests of
test_lsp.py: what is compared is the whole document tree (every position) and every
finding of a check that reused the last one's against one that did not.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from stoker.errors import TemplateError
from stoker.lsp.analysis import Analysis, analyse
from stoker.lsp.blocks import load_blocks, resource_blocks
from stoker.template.loader import LoadLimits, load_document
from stoker.template.nodes import MappingNode, SequenceNode, StrNode

ROOT = Path(__file__).resolve().parents[2]
HOT = ROOT / "tests" / "corpus" / "data" / "openstack__heat-templates" / "hot"
TEMPLATES = [
    HOT / "servers_in_new_neutron_net.yaml",
    HOT / "condition.yaml",
    HOT / "software-config" / "example-templates" / "example-deploy-sequence.yaml",
    HOT / "hello_world.yaml",
    HOT / "lb_server.yaml",
]


def same_tree(a: Any, b: Any, where: str = "$") -> None:
    """Equal values, types and positions, all the way down."""
    assert type(a) is type(b), where
    if isinstance(a, StrNode):
        assert (str(a), a.span) == (str(b), b.span), where
    elif isinstance(a, MappingNode):
        assert list(a) == list(b) and a.span == b.span, where
        assert (a.key_spans, a.value_spans) == (b.key_spans, b.value_spans), where
        for key in a:
            same_tree(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, SequenceNode):
        assert len(a) == len(b) and (a.span, a.item_spans) == (b.span, b.item_spans), where
        for index, (x, y) in enumerate(zip(a, b, strict=True)):
            same_tree(x, y, f"{where}[{index}]")
    else:
        assert a == b, where


def edited(text: str, rng: random.Random) -> str:
    """``text`` with one resource changed: a property added, its type changed, a line
    inserted, a value edited in place, the resource removed or copied."""
    blocks = resource_blocks(text)
    assert blocks is not None
    name = rng.choice(sorted(blocks.resources))
    _, block = blocks.resources[name]
    first, _, rest = block.partition("\n")
    indent = " " * (len(first) - len(first.lstrip()) + 2)
    choices = [
        block.replace("properties:\n", f"properties:\n{indent}  bogus_property: 1\n", 1),
        block.replace("properties:\n", f"properties:\n{indent}  typo: {{get_parm: x}}\n", 1),
        block.replace("type: ", "type: OS::Heat::None\n" + indent + "old_type: ", 1),
        f"{first}\n{indent}# a comment\n{rest}",
        block.replace(": ", ": x", 2),
        "" if len(blocks.resources) > 1 else block,  # removed, unless it is the only one
        block + block.replace(f"{name}:", f"{name}_copy:", 1),
    ]
    return text.replace(block, rng.choice(choices), 1)


def findings(analysis: Analysis) -> list[tuple[Any, ...]]:
    return sorted((d.code, d.message, d.span, d.severity) for d in analysis.findings)


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda path: path.name)
def test_a_check_that_reuses_the_last_one_finds_what_a_fresh_check_finds(template, tmp_path):
    path = tmp_path / template.name
    text = template.read_text()
    path.write_text(text)
    rng = random.Random(template.name)
    last = analyse(str(path), text)
    reused = 0
    for _ in range(12):
        text = edited(text, rng) if rng.random() < 0.7 else edited(template.read_text(), rng)
        again = analyse(str(path), text, None, last.carried)
        fresh = analyse(str(path), text)
        assert findings(again) == findings(fresh)
        blocks = resource_blocks(text)
        assert blocks is not None
        # the document the blocks make is the one loading the whole text makes
        loaded = load_blocks(text, str(path), blocks, {}, LoadLimits())
        try:
            whole = load_document(text, str(path))
        except TemplateError:  # an edit may break the YAML: then nothing is loaded by blocks
            assert loaded is None
        else:
            assert loaded is not None, text
            same_tree(loaded[0].data, whole.data)
        reused += len(again.carried.reuse.unchanged) if again.carried is not None else 0
        fresh.release()
        last.release()
        last = again
    assert reused > 0  # unchanged resources were taken from the last check


def errors(analysis: Analysis) -> list[str]:
    return [d.code for d in analysis.findings if d.code.startswith("E")]


def big(count: int, broken: int | None = None, value: str = "one") -> str:
    lines = [
        "heat_template_version: 2021-04-16",
        "parameters:",
        "  size: {type: number, default: 3}",
        "resources:",
    ]
    for index in range(count):
        lines += [
            f"  value{index}:",
            "    type: OS::Heat::Value",
            "    properties:",
            f"      value: {{list_join: ['-', [{value}, '{index}']]}}",
            "      typ: string" if index == broken else "      type: string",
        ]
    return "\n".join(lines) + "\n"


def test_only_the_changed_resources_are_checked_again(tmp_path):
    path = str(tmp_path / "big.yaml")
    first = analyse(path, big(50))
    assert first.carried is not None and not first.carried.reuse.unchanged
    second = analyse(path, big(50, broken=7), None, first.carried)
    assert second.carried is not None
    assert second.carried.reuse.unchanged == {f"value{i}" for i in range(50)} - {"value7"}
    assert errors(second) == ["E1081"]  # typ: an unknown property
    third = analyse(
        path, big(50, broken=7).replace("default: 3", "default: 4"), None, second.carried
    )
    # a parameter no resource reads: every resource is as it was
    assert third.carried is not None
    assert third.carried.reuse.unchanged == {f"value{i}" for i in range(50)}
    assert errors(third) == ["E1081"]
    version = big(50, broken=7).replace("2021-04-16", "2018-08-31")
    fourth = analyse(path, version, None, third.carried)
    assert fourth.carried is not None and not fourth.carried.reuse.unchanged  # the version
    assert errors(fourth) == ["E1081"]


def test_resources_below_an_inserted_line_keep_their_findings_at_their_new_lines(tmp_path):
    path = str(tmp_path / "big.yaml")
    first = analyse(path, big(20, broken=12))
    [unknown] = [d for d in first.findings if d.code == "E1081"]
    moved = big(20, broken=12).replace("  value3:\n", "  value3:\n    # a note\n", 1)
    second = analyse(path, moved, None, first.carried)
    assert second.carried is not None
    reuse = second.carried.reuse
    assert reuse.unchanged == {f"value{i}" for i in range(20)} - {"value3"}
    assert set(reuse.moved) == {f"value{i}" for i in range(4, 20)}
    [again] = [d for d in second.findings if d.code == "E1081"]
    assert again.span is not None and unknown.span is not None
    assert again.span.line == unknown.span.line + 1
    assert findings(second) == findings(analyse(path, moved))


def test_text_the_blocks_misread_is_checked_from_scratch(tmp_path):
    """A quoted scalar running over lines at a resource's indentation looks like the
    start of another resource; the parsed template says otherwise."""
    path = str(tmp_path / "quoted.yaml")
    text = big(3) + '  odd:\n    type: OS::Heat::Value\n    properties:\n      value: "a\n  b: c"\n'
    blocks = resource_blocks(text)
    assert blocks is not None and "b" in blocks.resources
    first = analyse(path, text)
    changed = text.replace("[one, '0']", "[two, '0']")
    second = analyse(path, changed, None, first.carried)
    assert findings(second) == findings(analyse(path, changed))
    assert first.carried is None and second.carried is None  # nothing kept from a misread


@pytest.mark.parametrize(
    "text",
    [
        "heat_template_version: 2021-04-16\nresources: {a: {type: OS::Heat::None}}\n",
        "heat_template_version: 2021-04-16\nresources:\n  a: &x {type: OS::Heat::None}\n  b: *x\n",
        "heat_template_version: 2021-04-16\nresources:\n  'a':\n    type: OS::Heat::None\n",
        "heat_template_version: 2021-04-16\nresources:\n  a:\n    type: OS::Heat::None\n b: 1\n",
    ],
    ids=["flow", "alias", "quoted key", "odd indentation"],
)
def test_text_the_blocks_cannot_read_has_none(text):
    assert resource_blocks(text) is None
