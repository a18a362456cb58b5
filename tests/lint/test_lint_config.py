"""The config file: reading it, finding it from the current directory upwards, merging."""

from __future__ import annotations

import pytest

from stoker.diagnostics import Severity
from stoker.lint import LintConfig, LintOptions, Profile, lint
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
        ("environments: [a]\n", "1:15: environments must be a mapping"),
        ("environments:\n  app.yaml: 3\n", "2:13: app.yaml must be a list of strings"),
        ("environments:\n  app.yaml: [missing.yaml]\n", "2:13: environment file 'missing.yaml'"),
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


PAIRED = """heat_template_version: 2021-04-16
parameters:
  flavor: {type: string, description: the flavor}
resources:
  box:
    type: My::Box
outputs:
  flavor: {value: {get_param: flavor}}
"""


def paired_project(root):
    """A template whose environments are not named after it, and the config pairing
    them; another template like it that the config does not name."""
    (root / "env").mkdir()
    (root / "env" / "common.yaml").write_text("resource_registry:\n  My::Box: OS::Heat::None\n")
    (root / "env" / "prod.yaml").write_text("parameters:\n  flavour: m1.large\n")
    (root / "app.yaml").write_text(PAIRED)
    (root / "other.yaml").write_text(PAIRED)
    (root / ".stoker-lint.yaml").write_text(
        "environments:\n  app.yaml: [env/common.yaml, env/prod.yaml]\n"
    )


def test_environments_pair_templates_with_their_files_in_order(tmp_path):
    paired_project(tmp_path)
    config = load_config(str(tmp_path / ".stoker-lint.yaml"))
    files = (str(tmp_path / "env" / "common.yaml"), str(tmp_path / "env" / "prod.yaml"))
    assert config.environments == ((str(tmp_path / "app.yaml"), files),)
    assert config.environments_of(str(tmp_path / "app.yaml")) == files
    assert config.environments_of(str(tmp_path / "other.yaml")) is None
    assert config.templates_of(files[1]) == [str(tmp_path / "app.yaml")]
    assert merge(config, ignore=("W2001",)).environments == config.environments


def test_lint_reads_a_template_with_the_environments_the_config_pairs(tmp_path, monkeypatch):
    """The config's environments stand for name pairing: the registry maps the type, and
    a parameter the template lacks is reported in the environment file."""
    paired_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    report = lint(["app.yaml", "other.yaml"], LintOptions(config=find_and_load(tmp_path)))
    found = {(d.code, d.span.file if d.span else None) for d in report.findings}
    assert found == {("E1023", "env/prod.yaml"), ("E3001", "other.yaml")}


def find_and_load(directory) -> LintConfig:
    found = find_config(str(directory))
    assert found is not None
    return load_config(found)
