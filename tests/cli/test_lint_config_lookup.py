"""Which ``.stoker-lint.yaml`` applies: the nearest from each linted path, or --config."""

from __future__ import annotations

import re
from pathlib import Path

from stoker.lint.config import _KEYS

from .entry import stoker

UNUSED = (
    "heat_template_version: 2018-08-31\nparameters:\n  p: {type: string, description: p}\n"
    "resources: {}\n"
)
DOCS = Path(__file__).parents[2] / "docs" / "lint-config.md"


def _tree(tmp_path: Path) -> Path:
    for name in ("quiet", "loud"):
        (tmp_path / "repo" / name).mkdir(parents=True)
        (tmp_path / "repo" / name / "t.yaml").write_text(UNUSED)
    (tmp_path / "repo" / "quiet" / ".stoker-lint.yaml").write_text("ignore: [W2001]\n")
    (tmp_path / "repo" / "loud" / ".stoker-lint.yaml").write_text("fail_level: warning\n")
    (tmp_path / "elsewhere").mkdir()
    return tmp_path


def test_each_path_uses_the_nearest_config_above_it_not_the_cwd(tmp_path) -> None:
    root = _tree(tmp_path)
    quiet = stoker("lint", "../repo/quiet/t.yaml", cwd=root / "elsewhere")
    assert quiet.returncode == 0 and "W2001" not in quiet.stdout
    loud = stoker("lint", "../repo/loud", cwd=root / "elsewhere")
    assert loud.returncode == 1 and "W2001" in loud.stdout  # fail_level: warning
    both = stoker("lint", "repo/quiet/t.yaml", "repo/loud/t.yaml", cwd=root)
    assert both.returncode == 1
    assert [line.split(":")[0] for line in both.stdout.splitlines() if "W2001" in line] == [
        "repo/loud/t.yaml"
    ]


def test_config_wins_over_the_lookup(tmp_path) -> None:
    root = _tree(tmp_path)
    (root / "mine.yaml").write_text("ignore: [W2001]\n")
    result = stoker("lint", "--config", "mine.yaml", "repo/loud/t.yaml", cwd=root)
    assert result.returncode == 0 and "W2001" not in result.stdout


def test_an_unknown_key_names_the_valid_ones(tmp_path) -> None:
    (tmp_path / ".stoker-lint.yaml").write_text("profile: [onap]\n")
    (tmp_path / "t.yaml").write_text(UNUSED)
    result = stoker("lint", "t.yaml", cwd=tmp_path)
    assert result.returncode == 2
    assert (
        "unknown setting 'profile'; the settings are: profiles, ignore, per_path, fail_level"
        in (result.stderr)
    )
    assert result.stderr.startswith("error: invalid config file: ")


def test_the_docs_describe_every_key(tmp_path) -> None:
    text = DOCS.read_text()
    documented = set(re.findall(r"^\| `(\w+)` \|", text, re.M))
    assert documented == set(_KEYS)
    example = text.split("```yaml\n", 1)[1].split("```", 1)[0]
    from stoker.lint.config import load_config

    path = tmp_path / ".stoker-lint.yaml"
    path.write_text(example)
    (tmp_path / "env").mkdir()  # the environment files it pairs must exist
    for name in ("common.yaml", "prod.yaml"):
        (tmp_path / "env" / name).write_text("parameter_defaults: {}\n")
    config = load_config(str(path))  # the example is a valid file
    assert config.fail_level.value == "warning"
