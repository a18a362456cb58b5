"""get_file content from disk: inside the template's tree only, unless allowed."""

from __future__ import annotations

import os

from stoker import codes
from stoker.definition.loading import LoadOptions, load_definition

TEMPLATE = """heat_template_version: rocky
resources:
  r:
    type: X
    properties:
      a: {get_file: %s}
"""


def write_tree(tmp_path, target: str):
    inside = tmp_path / "stack"
    (inside / "scripts").mkdir(parents=True)
    (inside / "scripts" / "run.sh").write_text("echo inside\n")
    (tmp_path / "secret.txt").write_text("top secret\n")
    (inside / "t.yaml").write_text(TEMPLATE % target)
    return inside


def codes_of(result):
    return [d.code for d in result.diagnostics]


def test_relative_file_inside_the_tree_is_read(tmp_path):
    stack = write_tree(tmp_path, "scripts/run.sh")
    result = load_definition(str(stack / "t.yaml"))
    assert result.ok and result.definition.files == {"scripts/run.sh": "echo inside\n"}


RESTRICTED = LoadOptions(restrict_files=True)


def test_path_leaving_the_tree_is_read_as_heatclient_reads_it(tmp_path):
    stack = write_tree(tmp_path, "../secret.txt")
    result = load_definition(str(stack / "t.yaml"))
    assert result.ok and result.definition.files == {"../secret.txt": "top secret\n"}


def test_path_leaving_the_tree_is_refused_when_restricted(tmp_path):
    stack = write_tree(tmp_path, "../secret.txt")
    result = load_definition(str(stack / "t.yaml"), options=RESTRICTED)
    assert not result.ok and codes.FILE_OUTSIDE_TREE in codes_of(result)
    (error,) = [d for d in result.diagnostics if d.code == codes.FILE_OUTSIDE_TREE]
    assert str(error.span).endswith("t.yaml:6:11") and "--restrict-files" in error.message
    assert "top secret" not in repr(result.definition.files)


def test_symlink_leaving_the_tree_is_refused_when_restricted(tmp_path):
    stack = write_tree(tmp_path, "scripts/link.txt")
    os.symlink(tmp_path / "secret.txt", stack / "scripts" / "link.txt")
    result = load_definition(str(stack / "t.yaml"), options=RESTRICTED)
    assert codes.FILE_OUTSIDE_TREE in codes_of(result)


def test_absolute_file_url_outside_is_read_unless_restricted(tmp_path):
    target = f"file://{tmp_path / 'secret.txt'}"
    stack = write_tree(tmp_path, target)
    assert codes.FILE_OUTSIDE_TREE in codes_of(
        load_definition(str(stack / "t.yaml"), options=RESTRICTED)
    )
    allowed = load_definition(str(stack / "t.yaml"))
    assert allowed.ok and allowed.definition.files == {target: "top secret\n"}


def test_missing_file_points_at_the_call(tmp_path):
    stack = write_tree(tmp_path, "scripts/none.sh")
    result = load_definition(str(stack / "t.yaml"))
    (error,) = result.diagnostics
    assert error.code == codes.FILE_MISSING and str(error.span).endswith("t.yaml:6:11")


def test_urls_are_not_fetched(tmp_path):
    stack = write_tree(tmp_path, "http://example.com/x.sh")
    result = load_definition(str(stack / "t.yaml"))
    assert result.ok and codes_of(result) == [codes.FILE_NOT_FETCHED]


def test_a_nul_byte_in_a_path_is_an_error_with_a_place(tmp_path):
    stack = write_tree(tmp_path, '"run\\0.sh"')
    result = load_definition(str(stack / "t.yaml"))
    assert not result.ok
    (problem,) = [d for d in result.diagnostics if d.code == codes.FILE_MISSING]
    assert "NUL byte" in problem.message and problem.span.line == 6


def test_a_relative_file_url_is_relative_to_the_template_not_the_cwd(tmp_path, monkeypatch):
    stack = write_tree(tmp_path, "file:scripts/run.sh")
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "run.sh").write_text("echo cwd\n")
    monkeypatch.chdir(tmp_path)
    result = load_definition(str(stack / "t.yaml"))
    assert result.ok, [d.render() for d in result.diagnostics]
    assert result.definition.files == {"file:scripts/run.sh": "echo inside\n"}
