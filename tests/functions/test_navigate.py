"""Indexes into parameter values (found by fuzzing: ``.inf`` as an index raised an
uncaught OverflowError in validate and resolve)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from stoker.cli.main import cli
from stoker.functions.refs import navigate


@pytest.mark.parametrize("key", [float("inf"), float("-inf"), float("nan"), "x"])
def test_a_key_that_is_no_index_is_a_value_error(key):
    with pytest.raises(ValueError):
        navigate(["a", "b"], [key], index_from_strings=True)


@pytest.mark.parametrize("command", ["validate", "resolve"])
def test_get_param_with_an_infinite_index_is_a_located_refusal(tmp_path, command):
    path = tmp_path / "t.yaml"
    path.write_text(
        "heat_template_version: 2018-08-31\n"
        "parameters:\n  l: {type: comma_delimited_list, default: 'a,b'}\n"
        "resources:\n  v:\n    type: OS::Heat::Value\n"
        "    properties: {value: {get_param: [l, .inf]}}\n"
    )
    result = CliRunner().invoke(cli, ["template", command, str(path)])
    assert not isinstance(result.exception, OverflowError), result.exception
    assert result.exit_code in (0, 1), result.output
    if result.exit_code == 1:
        assert f"{path}:" in result.output
