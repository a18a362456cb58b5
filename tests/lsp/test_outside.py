"""Edits outside the resources (a parameter, a condition, an output, the description)
re-check only the resources that read what changed (`stoker.lsp.outside`). Whatever the
edits, anywhere in the text, a check that reused the last one must find what a check from
scratch of the same text finds, at the same ranges, and leave the same document and
parsed template behind.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stoker.lsp.analysis import Analysis, analyse
from stoker.lsp.blocks import resource_blocks
from stoker.lsp.outside import PARAMETER, outside_parts

from .test_incremental import same_tree
from .test_relocation import INSERTED, TEMPLATES, Edit, edited, seen, with_findings

#: lines an edit inserts besides the resources' (`INSERTED`): into a parameter, a
#: condition, an output, the description, and sections and keys of their own
OUTSIDE = [
    "    default: other",
    "    type: number",
    "    hidden: true",
    "  added_parameter:\n    type: string\n    default: x",
    "  image:\n    type: string",
    "  added_condition: {equals: [{get_param: zone}, xian]}",
    "  prod: false",
    "    condition: prod",
    "  added_output:\n    value: {get_param: image}",
    "description: another",
    "    description: another",
    "parameter_groups:\n- parameters: [image]",
    "      - allowed_values: [a, b]",
    "      value: {get_param: [image, {get_param: flavor}]}",
    "      name: {get_param: {list_join: ['', [fla, vor]]}}",
    "heat_template_version: 2018-08-31",
    "conditions:",
    "outputs: {}",
]

#: what an edit appends to a line (a value changed in place: a parameter's default, a
#: name it reads, a condition's operand)
APPENDED = ["x", "1", " # note", ": y", "]"]

#: an edit: insert a line (0), delete one (1), append to one (2); where (a fraction of the
#: text's lines); and what to insert or append
EDITS = st.lists(
    st.tuples(
        st.sampled_from([0, 1, 2]),
        st.floats(min_value=0, max_value=1, exclude_max=True),
        st.sampled_from(INSERTED + OUTSIDE),
        st.sampled_from(APPENDED),
    ),
    min_size=1,
    max_size=6,
)


def drawn(edit: tuple[int, float, str | None, str]) -> Edit:
    kind, where, line, tail = edit

    def apply(text: str) -> str:
        at = int(where * (text.count("\n") + 1))
        if kind == 2:
            lines = text.split("\n")
            lines[at] += tail
            return "\n".join(lines)
        return edited(text, kind == 0, at, line)

    return apply


def parameters_below(text: str) -> str:
    """``text`` with its parameters section moved below the others (an edit below the
    resources moves the parameters' lines, and no resource's)."""
    lines = text.split("\n")
    start = lines.index("parameters:")
    end = next(at for at in range(start + 1, len(lines)) if lines[at][:1] not in ("", " ", "#"))
    return "\n".join([*lines[:start], *lines[end:], *lines[start:end]]) + "\n"


#: the templates the edits are drawn on: (name, text)
SOURCES = [(path.name, path.read_text()) for path in TEMPLATES] + [
    ("lb_server_parameters_below.yaml", parameters_below(TEMPLATES[2].read_text()))
]


@pytest.mark.parametrize("template", SOURCES, ids=lambda source: source[0])
def test_checks_after_edits_anywhere_find_what_fresh_checks_find(template, tmp_path):
    reused: list[int] = []

    @settings(
        derandomize=True,
        database=None,
        max_examples=30,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(edits=EDITS)
    def check(edits: list[tuple[int, float, str | None, str]]) -> None:
        reused.append(check_edits(template, tmp_path, [drawn(edit) for edit in edits]))

    check()
    assert sum(reused) > 0  # the edits outside the resources did not all re-check everything


def check_edits(template: tuple[str, str], directory: Path, edits: list[Edit]) -> int:
    """Apply ``edits`` one by one to the text of ``template`` (its name and text), each
    checked reusing the last check and from scratch (as `check_moves`); how many of
    these checks changed the text outside the resources and still reused some
    resource's results."""
    path = directory / template[0]
    text = with_findings(template[1])
    path.write_text(text)
    last = analyse(str(path), text)
    reused = 0
    for edit in edits:
        before, text = text, edit(text)
        again = analyse(str(path), text, None, last.carried)
        fresh = analyse(str(path), text)
        assert seen(again, text) == seen(fresh, text), text
        if again.template is not None and fresh.template is not None:
            same_tree(again.template.data, fresh.template.data)
        blocks, earlier = resource_blocks(text), resource_blocks(before)
        outside_changed = blocks is None or earlier is None or blocks.outside != earlier.outside
        if outside_changed and again.carried is not None and again.carried.reuse.unchanged:
            reused += 1
        fresh.release()
        last.release()
        last = again
    last.release()
    return reused


def _checked(template: Path, directory: Path, change: Edit) -> tuple[Analysis, Analysis, str]:
    """The template checked, then ``change`` checked reusing that check; also the
    changed text."""
    path = directory / template.name
    text = with_findings(template.read_text())
    path.write_text(text)
    first = analyse(str(path), text)
    changed = change(text)
    again = analyse(str(path), changed, None, first.carried)
    return first, again, changed


def _unchanged(analysis: Analysis) -> frozenset[str]:
    assert analysis.carried is not None
    return analysis.carried.reuse.unchanged


def _replaced(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


NET = TEMPLATES[0]  # servers_in_new_neutron_net.yaml


@pytest.mark.parametrize(
    "change",
    [
        lambda text: _replaced(text, "\ndescription: >\n", "\ndescription: >\n  Edited.\n"),
        lambda text: _replaced(
            text, "    description: IP address of server1", "    description: Edited"
        ),
        lambda text: _replaced(
            text, "  server2_public_ip:\n", "  added:\n    value: 1\n  server2_public_ip:\n"
        ),
    ],
    ids=["description, lines moved", "an output", "an output added"],
)
def test_a_change_no_resource_reads_rechecks_none(change, tmp_path):
    first, again, text = _checked(NET, tmp_path, change)
    assert _unchanged(again) == set(resource_blocks(text).resources)  # type: ignore[union-attr]
    assert again.findings == analyse(str(tmp_path / NET.name), text).findings
    first.release()


def test_a_parameter_changed_rechecks_the_resources_naming_it(tmp_path):
    change = lambda text: _replaced(  # noqa: E731
        text,
        "    description: Name of image to use for servers\n",
        "    description: Name of image to use for servers\n    default: cirros\n",
    )
    first, again, text = _checked(NET, tmp_path, change)
    blocks = resource_blocks(text)
    assert blocks is not None
    reading = {name for name, (_, block) in blocks.resources.items() if "image" in block}
    assert reading and _unchanged(again) == set(blocks.resources) - reading
    assert again.carried is not None  # their entries are not parsed again
    assert again.carried.reuse.written == set(blocks.resources)
    fresh = analyse(str(tmp_path / NET.name), text)
    assert sorted(map(repr, again.findings)) == sorted(map(repr, fresh.findings))
    first.release()


def test_a_parameter_read_by_a_computed_name_rechecks_its_reader(tmp_path):
    computed = "      name: { get_param: {list_join: ['', [private_net, _name]]} }\n"
    change = lambda text: _replaced(  # noqa: E731
        text, "    description: Name of private network to be created\n", ""
    )
    path = tmp_path / NET.name
    text = _replaced(
        with_findings(NET.read_text()), "      name: { get_param: private_net_name }\n", computed
    )
    first = analyse(str(path), text)
    changed = change(text)
    again = analyse(str(path), changed, None, first.carried)
    assert "private_net" not in _unchanged(again)
    assert "router" in _unchanged(again)
    first.release()


def test_a_condition_changed_rechecks_the_resources_using_conditions(tmp_path):
    template = TEMPLATES[1]  # condition.yaml
    change = lambda text: _replaced(  # noqa: E731
        text, "    - xian\n", "    - xian\n    - extra\n"
    )
    first, again, text = _checked(template, tmp_path, change)
    blocks = resource_blocks(text)
    assert blocks is not None
    using = {
        name
        for name, (_, block) in blocks.resources.items()
        if "condition" in block or "if:" in block
    }
    assert _unchanged(again) == set(blocks.resources) - using
    first.release()


def test_the_version_changed_rechecks_everything(tmp_path):
    change = lambda text: _replaced(  # noqa: E731
        text, "heat_template_version: 2013-05-23", "heat_template_version: 2014-10-16"
    )
    first, again, _ = _checked(NET, tmp_path, change)
    assert not _unchanged(again)
    first.release()


def test_the_text_is_cut_into_its_parts():
    text = with_findings(TEMPLATES[1].read_text())
    blocks = resource_blocks(text)
    assert blocks is not None
    outside = outside_parts(text, blocks)
    assert set(outside.shared) == {PARAMETER + "env_type", PARAMETER + "zone", "conditions"} | {
        "outputs"
    }
    assert [name for name, _ in outside.sections] == [
        "heat_template_version",
        "parameters",
        "conditions",
        "resources",
        "outputs",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "heat_template_version: 2018-08-31\nparameters: {a: {type: string}}\nresources:\n"
        "  r:\n    type: OS::Heat::None\n",
        "HeatTemplateFormatVersion: '2012-12-12'\nParameters:\n  a:\n    Type: String\n"
        "resources:\n  r:\n    type: OS::Heat::None\n",
        "heat_template_version: 2018-08-31\nparameters:\n  a:\n    type: string\n"
        "parameters:\n  b:\n    type: string\nresources:\n  r:\n    type: OS::Heat::None\n",
    ],
    ids=["parameters in flow style", "not HOT", "a section twice"],
)
def test_what_cannot_be_cut_is_compared_whole(text):
    blocks = resource_blocks(text)
    assert blocks is not None
    outside = outside_parts(text, blocks)
    assert not outside.shared and outside.rest == blocks.outside


#: a parameter whose quoted default runs over lines at the parameters' indentation (its
#: lines read as two parameters, which the parsed text says they are not), and a resource
#: whose findings depend on that default: a third item it has, or not
MISREAD = """heat_template_version: 2018-08-31
parameters:
  items:
    type: string
    default: "a,
  picture: b,c"
resources:
  probe:
    type: OS::Heat::Value
    properties:
      value: {str_split: [",", {get_param: items}, 2]}
  other:
    type: OS::Heat::None
"""


def test_a_cut_the_parsed_text_disagrees_with_is_checked_from_scratch(tmp_path):
    """A default that the cut misreads as a parameter of its own, changed (the resource
    reading it finds an index out of range), then changed back."""
    edits: list[Edit] = [
        lambda text: text.replace("picture: b,c", "picture: b"),
        lambda text: text.replace("picture: b", "picture: b,c"),
    ]
    blocks = resource_blocks(MISREAD)
    assert blocks is not None
    assert PARAMETER + "picture" in outside_parts(MISREAD, blocks).shared  # the misreading
    path = tmp_path / "misread.yaml"
    path.write_text(MISREAD)
    first = analyse(str(path), MISREAD)
    second = analyse(str(path), edits[0](MISREAD), None, first.carried)
    assert [d.code for d in second.findings] != [d.code for d in first.findings]
    first.release()
    second.release()
    check_edits(("misread.yaml", MISREAD), tmp_path, edits)
