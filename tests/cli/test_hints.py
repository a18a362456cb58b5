"""Hints for mistakes a person makes: misspelled functions, tabs (real ``stoker`` command)."""

from __future__ import annotations

import pytest

from .entry import stoker

TYPOS = """heat_template_version: 2018-08-31
parameters:
  n: {type: string, default: x, description: n}
resources:
  a:
    type: OS::Heat::Value
    properties:
      value: {get_parm: n}
  b:
    type: OS::Heat::RandomString
    properties:
      length: {get_prams: n}
    metadata:
      x: {get_atr: [a, value]}
outputs:
  o:
    value: {str_replce: {template: x, params: {}}}
"""


@pytest.fixture
def typos(tmp_path):
    (tmp_path / "typo.yaml").write_text(TYPOS)
    return tmp_path


@pytest.mark.parametrize(
    ("where", "name", "meant"),
    [
        ("typo.yaml:8:15", "get_parm", "get_param"),
        ("typo.yaml:12:16", "get_prams", "get_param"),
        ("typo.yaml:14:11", "get_atr", "get_attr"),
        ("typo.yaml:17:13", "str_replce", "str_replace"),
    ],
)
def test_validate_and_lint_name_the_function_meant(typos, where, name, meant) -> None:
    validate = stoker("template", "validate", "typo.yaml", cwd=typos)
    assert validate.returncode == 0, validate.stderr  # Heat accepts it: data, not a call
    hint = f'unknown function "{name}" (did you mean `{meant}`?)'
    assert any(
        line.startswith(f"{where}: ") and hint in line for line in validate.stderr.splitlines()
    ), validate.stderr
    lint = stoker("lint", "typo.yaml", cwd=typos)
    assert f"{where}: W1039 warning: {hint}" in lint.stdout


def test_an_error_inside_the_mapping_carries_the_hint_as_a_note(tmp_path) -> None:
    (tmp_path / "t.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n  a:\n    type: OS::Heat::None\n"
        "    depends_on: {get_resorce: b}\n  b: {type: OS::Heat::None}\n"
    )
    result = stoker("template", "validate", "t.yaml", cwd=tmp_path)
    assert result.returncode == 1
    assert '    note: "get_resorce" is not a function; did you mean `get_resource`?' in (
        result.stderr.splitlines()
    ), result.stderr


def test_a_tab_in_indentation_says_so(tmp_path) -> None:
    (tmp_path / "tabs.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n  a:\n\ttype: OS::Heat::None\n"
    )
    expected = "tabs.yaml:4:1: a tab character indents this line; YAML allows only spaces"
    validate = stoker("template", "validate", "tabs.yaml", cwd=tmp_path)
    assert validate.returncode == 1 and validate.stderr.splitlines()[0] == expected
    lint = stoker("lint", "tabs.yaml", cwd=tmp_path)
    assert lint.stdout.startswith(
        "tabs.yaml:4:1: E0000 error: a tab character indents this line; YAML allows only spaces"
    )
