"""The config file: reading it, finding it from the current directory upwards, merging."""

from __future__ import annotations

import pytest

from stoker.diagnostics import Severity
from stoker.lint import LintConfig, Profile
from stoker.lint.config import ConfigError, find_config, load_config, merge


def test_a_full_config(tmp_path):
    path = tmp_path / ".stoker-lint.yaml"
    path.write_text(
        "profiles: [default, onap]\nignore: [I2002]\nper_path:\n  old/*: [W2001]\n"
        "fail_level: warning\n"
    )
    config = load_config(str(path))
    assert config.profiles == (Profile.DEFAULT, Profile.ONAP)
    assert config.ignore == ("I2002",)
    assert config.per_path == (("old/*", ("W2001",)),)
    assert config.fail_level is Severity.WARNING
    assert config.base_dir == str(tmp_path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("profile: [onap]\n", "1:1: unknown setting 'profile'"),
        ("profiles: [nope]\n", "1:11: 'nope' is not a valid profiles value"),
        ("ignore: 3\n", "1:9: ignore must be a list of strings"),
        ("fail_level: fatal\n", "is not a valid fail_level value"),
        ("per_path: [a]\n", "per_path must be a mapping"),
        ("- a\n", "must be a mapping"),
        ("a: [\n", "YAML syntax error"),
    ],
)
def test_mistakes_are_reported_with_their_place(tmp_path, text, message):
    path = tmp_path / ".stoker-lint.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message.replace("[", r"\[")):
        load_config(str(path))


def test_found_from_a_subdirectory(tmp_path):
    (tmp_path / ".stoker-lint.yaml").write_text("ignore: [W2001]\n")
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert find_config(str(deep)) == str(tmp_path / ".stoker-lint.yaml")


def test_command_line_wins_for_scalars_and_adds_to_lists():
    config = LintConfig(profiles=(Profile.ONAP,), ignore=("I2002",), fail_level=Severity.INFO)
    merged = merge(config, profiles=("default",), ignore=("W2001",), fail_level="error")
    assert merged.profiles == (Profile.DEFAULT,)
    assert merged.ignore == ("I2002", "W2001")
    assert merged.fail_level is Severity.ERROR
    assert merge(config).profiles == (Profile.ONAP,)
