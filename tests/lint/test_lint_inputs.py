"""Inputs: directories (recursively), VNF packages as zips, file classification, pairing."""

from __future__ import annotations

from stoker.lint import LintOptions, lint

from .cases import OK, OK_ENV
from .helpers import make_zip_file, run, where

NESTED_USE = OK.replace(
    "outputs:\n",
    "  inner:\n    type: nested.yaml\noutputs:\n  x:\n    value: {get_attr: [inner, nope]}\n",
)
NESTED = "heat_template_version: 2021-04-16\noutputs:\n  here:\n    value: 1\n"


def _kinds(report) -> dict[str, str]:
    return {f.name.rsplit("/pkg/", 1)[-1].split("!", 1)[-1]: f.kind for f in report.files}


def test_directories_are_searched_recursively(tmp_path):
    files = {
        "a.yaml": OK,
        "deep/er/b.yml": OK,
        "c.json": '{"heat_template_version": "2021-04-16"}',
        "d.template": "heat_template_version: 2021-04-16\n",
        "notes.txt": "not linted",
        ".hidden/e.yaml": "bogus: [",
    }
    report = run(tmp_path, files)
    assert sorted(_kinds(report)) == ["a.yaml", "c.json", "d.template", "deep/er/b.yml"]
    assert report.findings == []


def test_files_are_classified_and_paired(tmp_path):
    files = {
        "t.yaml": OK,
        "t.env": OK_ENV,
        "fragment.yaml": "resources: {}\n",
        "script.yaml": "#cloud-config\npackages: [git]\n",
        "list.json": "[1, 2]",
        "user.yaml": OK.replace("{get_param: name}", "{get_file: script.yaml}"),
    }
    report = run(tmp_path, files)
    assert _kinds(report) == {
        "t.yaml": "template",
        "t.env": "environment",
        "fragment.yaml": "template",  # no version key: linted, so E1001 says so
        "script.yaml": "skipped",  # read by get_file: content
        "list.json": "skipped",  # not a mapping
        "user.yaml": "template",
    }
    assert where(report, "E1001") == [("fragment.yaml", 1, 1)]
    assert where(report, "W2001") == [("user.yaml", 4, 3)]
    # paired: the environment's value reached the template (no E1023, E1060 info drop)
    assert not [f for f in report.findings if f.span and f.span.file.endswith("t.env")]


def test_a_file_named_on_the_command_line_is_always_linted(tmp_path):
    report = run(tmp_path, {"list.json": "[1, 2]"}, explicit=True)
    assert where(report, "E0005") == [("list.json", 1, 1)]


def test_a_zip_package_is_read_in_memory_with_positions_inside_it(tmp_path):
    archive = make_zip_file(
        tmp_path / "vnf.zip",
        {
            "vnf/t.yaml": NESTED_USE,
            "vnf/nested.yaml": NESTED,
            "vnf/escape.yaml": OK.replace("{get_param: name}", "{get_file: ../../etc/passwd}"),
            "vnf/reads.yaml": OK.replace("{get_param: name}", "{get_file: data/x.txt}"),
            "vnf/data/x.txt": "content",
        },
    )
    report = lint([str(archive)], LintOptions())
    names = {f.name for f in report.files}
    assert f"{archive}!vnf/t.yaml" in names
    assert where(report, "E3020") == [("vnf/t.yaml", 16, 31)]
    assert where(report, "E1070") == [("vnf/escape.yaml", 11, 15)]
    assert "E1035" not in {f.code for f in report.findings}  # data/x.txt was read


def test_a_zip_that_is_not_one(tmp_path):
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"PK but not really")
    report = lint([str(bad)], LintOptions())
    assert [(f.code, f.span.line, f.span.column) for f in report.findings] == [("E0101", 1, 1)]
    assert report.exit_code == 1
