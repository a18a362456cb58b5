"""Edits that move lines (a line inserted, a line deleted) re-check only what they touched:
the resources below keep their nodes, parsed entries and findings, moved to their new
lines (`stoker.definition.Move`). Whatever the edits, a check that moved them must find
what a check from scratch of the same text finds, at the same ranges, and leave the same
document and parsed template behind (the positions navigation and hover read).

Hypothesis draws sequences of line inserts and deletes on real templates of the corpus,
into which a few findings are written first (so that moved findings are compared too).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stoker.limits import active_limits, applied
from stoker.lsp.analysis import Analysis, analyse
from stoker.lsp.server import Buffer, to_lsp
from stoker.lsp.symbols import Index

from .test_incremental import HOT, same_tree

TEMPLATES = [
    HOT / "servers_in_new_neutron_net.yaml",
    HOT / "condition.yaml",
    HOT / "lb_server.yaml",
]


def with_findings(text: str) -> str:
    """``text`` with a property that does not exist and a misspelled function in the
    properties of its resources."""
    lines = []
    for line in text.split("\n"):
        lines.append(line)
        if (
            line.strip() == "properties:"
            and line.startswith("    ")
            and not line.startswith("     ")
        ):
            lines += ["      bogus_property: 1", "      other: {get_parm: nothing}"]
    return "\n".join(lines)


#: lines an edit inserts: blank, a comment, a resource's property, a resource, nonsense,
#: and (None) the line there again (a key given twice, whose warning names a line)
INSERTED = [
    "",
    "    # a note",
    "# a note at the margin",
    "      extra: {get_param: missing}",
    "  added:\n    type: OS::Heat::None",
    "  : :",
    None,
]

#: an edit: insert (True) or delete (False), where (a fraction of the text's lines), and
#: which line to insert
EDITS = st.lists(
    st.tuples(
        st.booleans(),
        st.floats(min_value=0, max_value=1, exclude_max=True),
        st.sampled_from(INSERTED),
    ),
    min_size=1,
    max_size=6,
)

Edit = Callable[[str], str]


def edited(text: str, insert: bool, at: int, line: str | None = "") -> str:
    """``text`` with ``line`` inserted before line ``at`` (0-based; None: that line
    again), or line ``at`` deleted."""
    lines = text.split("\n")
    if insert:
        lines.insert(at, lines[min(at, len(lines) - 1)] if line is None else line)
    elif len(lines) > 1:
        del lines[at]
    return "\n".join(lines)


def drawn(edit: tuple[bool, float, str | None]) -> Edit:
    insert, where, line = edit
    return lambda text: edited(text, insert, int(where * (text.count("\n") + 1)), line)


def seen(analysis: Analysis, text: str) -> dict[str, Any]:
    """What a check leaves behind that carries positions: its findings (as found and as
    published, with their ranges), its document, its parsed template's resources and
    calls, and the index navigation builds from them."""
    lines = text.split("\n")
    published = [to_lsp(finding, lines) for finding in analysis.findings]
    found: dict[str, Any] = {
        "findings": sorted(
            (d.code, d.message, d.path, d.span, d.severity, d.notes) for d in analysis.findings
        ),
        "published": sorted(
            (
                (d.range.start.line, d.range.start.character),
                (d.range.end.line, d.range.end.character),
                d.code,
                d.message,
                d.severity,
            )
            for d in published
        ),
    }
    unit = analysis.template
    if unit is not None:
        template = unit.parsed
        found["resources"] = [
            (r.name, r.span, r.depends_on_spans, repr(r)) for r in template.resources.values()
        ]
        found["calls"] = sorted((c.span, c.path, c.name) for c in template.calls)
        found["index"] = sorted(map(repr, Index(template, lines).marks))
    return found


def check_moves(template: Path, directory: Path, edits: list[Edit]) -> int:
    """Apply ``edits`` one by one, each checked reusing the last check and from scratch;
    how many of these checks moved the last one's results to new lines."""
    path = directory / template.name
    text = with_findings(template.read_text())
    path.write_text(text)
    last = analyse(str(path), text)
    moved = 0
    for edit in edits:
        text = edit(text)
        again = analyse(str(path), text, None, last.carried)
        fresh = analyse(str(path), text)
        assert seen(again, text) == seen(fresh, text), text
        if again.template is not None and fresh.template is not None:
            same_tree(again.template.data, fresh.template.data)
        moved += again.consumed
        fresh.release()
        last.release()
        last = again
    last.release()
    return moved


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda path: path.name)
def test_checks_after_lines_moved_find_what_fresh_checks_find(template, tmp_path):
    @settings(
        derandomize=True,
        database=None,
        max_examples=12,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(edits=EDITS)
    def check(edits: list[tuple[bool, float, str | None]]) -> None:
        check_moves(template, tmp_path, [drawn(edit) for edit in edits])

    check()


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda path: path.name)
def test_a_line_inserted_and_deleted_moves_the_resources_below(template, tmp_path):
    """Enter pressed in the first resource, then the line deleted again: the resources
    below are moved, not checked again, both ways."""
    text = with_findings(template.read_text())
    section = text.split("\n").index("resources:")
    inserted = (lambda text: edited(text, True, section + 2, "    # a note"),)
    deleted = (lambda text: edited(text, False, section + 2),)
    assert check_moves(template, tmp_path, [*inserted, *deleted]) == 2


#: a resource whose quoted value runs over lines at the resources' indentation: its block
#: reads as two resources, which the parsed text says it is not
MISREAD = '  odd:\n    type: OS::Heat::Value\n    properties:\n      value: "a\n  b: c"'


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda path: path.name)
def test_a_check_the_blocks_misread_after_lines_moved_leaves_nothing_moved_behind(
    template, tmp_path
):
    """Lines inserted above the resources that the blocks misread (the check is made
    again from scratch, after the resources below were moved), then taken out again."""
    text = with_findings(template.read_text())
    section = text.split("\n").index("resources:")
    inserted = MISREAD.count("\n") + 1
    edits = [
        lambda text: edited(text, True, section + 1, MISREAD),
        lambda text: "\n".join(
            line for at, line in enumerate(text.split("\n")) if not 0 < at - section <= inserted
        ),
        lambda text: edited(text, True, section + 2, "    # a note"),
    ]
    assert check_moves(template, tmp_path, edits) > 0


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda path: path.name)
def test_lines_moved_while_the_version_is_wrong_and_put_back(template, tmp_path):
    """A version no one knows typed, with a line below it (the resources move down, and
    are parsed as another version's), then the version put back and the line deleted,
    then Enter pressed in the first resource."""
    text = with_findings(template.read_text())
    version = text.split("\n")[0]
    section = text.split("\n").index("resources:")

    def unknown(text: str) -> str:
        return edited(edited(text, False, 0), True, 0, "heat_template_version: 1999-01-01\n")

    edits = [
        unknown,
        lambda text: edited(edited(text, False, 0), False, 0),
        lambda text: edited(text, True, 0, version),
        lambda text: edited(text, True, section + 2, "    # a note"),
    ]
    assert check_moves(template, tmp_path, edits) > 0


@pytest.mark.parametrize("broken_between", [False, True], ids=["directly", "broken between"])
def test_a_buffer_keeps_no_template_whose_resources_were_moved_from_under_it(
    broken_between, tmp_path
):
    """A change that moves the resources but parses no template (here: one resource more
    than the limit allows) leaves the buffer without a template for completion and
    navigation, rather than the last one that parsed, whose resources now sit at this
    text's lines: whether that one was the last check, or one before a check of text
    that did not parse (which passed on what the good one carried)."""
    template = TEMPLATES[0]
    path = tmp_path / template.name
    text = template.read_text()
    path.write_text(text)
    buffer = Buffer(str(path))
    buffer.update(text, {})
    assert buffer.unit is not None
    count = len(buffer.unit.parsed.resources)
    if broken_between:
        assert buffer.update(text + "\n  [: ,\n", {}).template is None
        assert buffer.unit is not None  # the last template that parsed
    section = text.split("\n").index("resources:")
    more = edited(text, True, section + 1, "  added:\n    type: OS::Heat::None")
    with applied(replace(active_limits(), resources=count)):
        analysis = buffer.update(more, {})
    assert analysis.template is None and analysis.consumed
    assert buffer.unit is None and buffer.index is None
    buffer.update(text, {})
    assert buffer.unit is not None and buffer.index is not None
