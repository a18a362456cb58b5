"""``stoker template capabilities`` and ``capabilities-find`` on a TripleO-like tree."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from stoker.cli.main import cli

FILES = {
    "overcloud.yaml": (
        "heat_template_version: 2016-04-08\n"
        "resources:\n"
        "  controller: {type: OS::TripleO::Controller}\n"
        "  compute: {type: OS::TripleO::Compute}\n"
    ),
    "overcloud-resource-registry.yaml": (
        "resource_registry:\n"
        "  OS::TripleO::Controller: [puppet/controller.yaml, docker/controller.yaml]\n"
        "  OS::TripleO::Compute: [puppet/compute.yaml, docker/compute.yaml]\n"
        "  OS::TripleO::Controller::Ports::ExternalPort: network/ports/noop.yaml\n"
    ),
    "environments/puppet.yaml": "requires: {deployment: puppet}\n",
    "environments/docker.yaml": "requires:\n  deployment: docker\n",
    "puppet/controller.yaml": (
        "heat_template_version: 2015-10-15\n"
        "capabilities:\n"
        "  deployment: puppet\n"
        "  resource_type: OS::TripleO::Controller\n"
        "resources: {}\n"
    ),
    "puppet/compute.yaml": (
        "heat_template_version: 2015-10-15\n"
        "capabilities: {deployment: puppet, resource_type: OS::TripleO::Compute}\n"
    ),
    "docker/controller.yaml": (
        "heat_template_version: 2016-10-14\n"
        "capabilities:\n"
        "  deployment: docker\n"
        "  resource_type: OS::TripleO::Controller\n"
    ),
    "docker/compute.yaml": (
        "heat_template_version: 2016-10-14\n"
        "capabilities:\n"
        "  deployment: [docker, podman]\n"
        "  resource_type: [OS::TripleO::Compute, OS::TripleO::ComputeHCI]\n"
    ),
    "network/ports/noop.yaml": "heat_template_version: 2015-10-15\noutputs: {}\n",
    "roles_data.yaml": "- name: Controller\n- name: Compute\n",
    "README.md": "This tree: has prose, [and no YAML\n",
    ".git/hooks/x.yaml": "heat_template_version: 2015-10-15\ncapabilities: {deployment: puppet}\n",
}


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, text in FILES.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(*args: str):
    return CliRunner().invoke(cli, ["template", *args], catch_exceptions=False)


# --------------------------------------------------------------------------- capabilities


def test_capabilities_of_templates_json(tree):
    result = run(
        "capabilities",
        "-t",
        "puppet/controller.yaml",
        "-t",
        "docker/controller.yaml",
        "--format",
        "json",
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {
        "capabilities": {"deployment": ["puppet", "docker"]},
        "resource_types": {
            "OS::TripleO::Controller": ["puppet/controller.yaml", "docker/controller.yaml"]
        },
        "templates": [
            {
                "file": "puppet/controller.yaml",
                "capabilities": {
                    "deployment": ["puppet"],
                    "resource_type": ["OS::TripleO::Controller"],
                },
            },
            {
                "file": "docker/controller.yaml",
                "capabilities": {
                    "deployment": ["docker"],
                    "resource_type": ["OS::TripleO::Controller"],
                },
            },
        ],
        "requires": {},
        "choices": [],
    }
    assert result.stderr == ""


def test_capabilities_of_environments_lists_each_choice(tree):
    result = run(
        "capabilities",
        "-e",
        "overcloud-resource-registry.yaml",
        "-e",
        "environments/puppet.yaml",
        "-e",
        "environments/docker.yaml",
        "--format",
        "json",
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["requires"] == {"deployment": ["docker"]}  # the later file wins
    assert data["capabilities"] == {"deployment": ["puppet", "docker", "podman"]}
    assert data["resource_types"] == {
        "OS::TripleO::Controller": ["puppet/controller.yaml", "docker/controller.yaml"],
        "OS::TripleO::Compute": ["puppet/compute.yaml", "docker/compute.yaml"],
        "OS::TripleO::ComputeHCI": ["docker/compute.yaml"],
    }
    controller, compute = data["choices"]
    assert controller == {
        "type": "OS::TripleO::Controller",
        "entry": "resource_registry.OS::TripleO::Controller",
        "environment": "overcloud-resource-registry.yaml",
        "options": [
            {
                "template": "puppet/controller.yaml",
                "file": "puppet/controller.yaml",
                "capabilities": {
                    "deployment": ["puppet"],
                    "resource_type": ["OS::TripleO::Controller"],
                },
                "meets_requires": False,
                "reason": "its deployment is puppet, not docker",
            },
            {
                "template": "docker/controller.yaml",
                "file": "docker/controller.yaml",
                "capabilities": {
                    "deployment": ["docker"],
                    "resource_type": ["OS::TripleO::Controller"],
                },
                "meets_requires": True,
                "reason": None,
            },
        ],
        "chosen": "docker/controller.yaml",
    }
    assert compute["chosen"] == "docker/compute.yaml"


def test_without_requires_nothing_is_chosen(tree):
    result = run("capabilities", "-e", "overcloud-resource-registry.yaml", "--format", "yaml")
    assert result.exit_code == 0, result.output
    assert "chosen: null" in result.stdout and "meets_requires: true" in result.stdout


def test_environment_paths_are_relative_to_the_environment(tree):
    (tree / "envs").mkdir()
    (tree / "envs" / "reg.yaml").write_text(
        "resource_registry:\n  OS::TripleO::Controller: [../puppet/controller.yaml]\n"
    )
    result = run("capabilities", "-e", "envs/reg.yaml", "--format", "json")
    assert result.exit_code == 0, result.output
    (choice,) = json.loads(result.stdout)["choices"]
    assert choice["options"][0]["file"] == "puppet/controller.yaml"
    assert choice["chosen"] == "../puppet/controller.yaml"


def test_capabilities_table(tree):
    result = run(
        "capabilities",
        "-t",
        "puppet/controller.yaml",
        "-e",
        "overcloud-resource-registry.yaml",
        "-e",
        "environments/puppet.yaml",
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Capabilities" in out and "deployment" in out and "puppet, docker, podman" in out
    assert "Resource types" in out and "OS::TripleO::ComputeHCI" in out
    assert "Requires: deployment: puppet" in out
    assert "Registry choices" in out and "* puppet/controller.yaml" in out


def test_templates_without_capabilities_say_so(tree):
    result = run("capabilities", "-t", "network/ports/noop.yaml")
    assert result.exit_code == 0 and "No capabilities declared." in result.stdout


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ((), "give at least one template (-t TEMPLATE) or environment (-e ENV)"),
        (("-t", "puppet"), "is a directory"),
        (("-t", "puppet/controller.yaml", "--format", "xml"), "'xml' is not one of"),
    ],
    ids=["nothing", "directory", "format"],
)
def test_capabilities_usage_errors_exit_2(tree, args, words):
    result = run("capabilities", *args)
    assert result.exit_code == 2 and words in result.stderr


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("bad.yaml", "heat_template_version: 2015-10-15\ncapabilities: [\n", "bad.yaml:3:1: "),
        (
            "early.yaml",
            "heat_template_version: 2015-04-30\ncapabilities: {deployment: x}\n",
            "early.yaml:2:1: capabilities: The template section is invalid: capabilities "
            "(capabilities need heat_template_version 2015-10-15 or later",
        ),
        (
            "num.yaml",
            "heat_template_version: 2015-10-15\ncapabilities:\n  version: 2\n",
            'num.yaml:3:12: capabilities.version: capabilities "version" must be a string',
        ),
        (
            "env.yaml",
            "parameters: {}\n",
            "env.yaml:1:1: not a template: a template is a mapping with a version key",
        ),
    ],
    ids=["syntax", "too-early", "number", "not-a-template"],
)
def test_capabilities_invalid_files_exit_1_with_positions(tree, name, text, expected):
    (tree / name).write_text(text)
    result = run("capabilities", "-t", "puppet/controller.yaml", "-t", name, "--format", "json")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.startswith(expected), result.stderr


def test_a_bad_candidate_in_an_environment_is_an_error(tree):
    (tree / "reg.yaml").write_text(
        "resource_registry:\n  OS::X: [puppet/controller.yaml, no.yaml]\n"
    )
    result = run("capabilities", "-e", "reg.yaml")
    assert result.exit_code == 1
    assert result.stderr.startswith("no.yaml:1:1: cannot read the template")


def test_a_url_candidate_is_an_error(tree):
    (tree / "reg.yaml").write_text("resource_registry:\n  OS::X: [https://example.com/x.yaml]\n")
    result = run("capabilities", "-e", "reg.yaml")
    assert result.exit_code == 1
    assert result.stderr == (
        "https://example.com/x.yaml:1:1: cannot read the template: it is a URL, and stoker "
        "reads templates from files only\n"
        "error: a template or environment could not be read\n"
    )


def test_a_bad_environment_is_an_error(tree):
    (tree / "reg.yaml").write_text("requires: {deployment: [a, 1]}\n")
    result = run("capabilities", "-e", "reg.yaml")
    assert result.exit_code == 1
    assert result.stderr.startswith(
        'reg.yaml:1:28: requires.deployment.1: requires "deployment": item 2 must be a string'
    )


# --------------------------------------------------------------------------- capabilities-find


def find(*args: str):
    return run("capabilities-find", *args)


def test_find_recursively_by_type(tree):
    result = find("-r", "--capability", "resource_type=OS::TripleO::Controller", "-f", "json", ".")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == [
        {
            "file": "docker/controller.yaml",
            "capabilities": {
                "deployment": ["docker"],
                "resource_type": ["OS::TripleO::Controller"],
            },
        },
        {
            "file": "puppet/controller.yaml",
            "capabilities": {
                "deployment": ["puppet"],
                "resource_type": ["OS::TripleO::Controller"],
            },
        },
    ]
    assert result.stderr == ""  # README.md, roles_data.yaml and .git/ are passed over


@pytest.mark.parametrize(
    ("wanted", "files"),
    [
        (["deployment=puppet"], ["puppet/compute.yaml", "puppet/controller.yaml"]),
        (["deployment=podman"], ["docker/compute.yaml"]),
        (
            ["deployment=docker", "resource_type=OS::TripleO::Compute"],
            ["docker/compute.yaml"],
        ),
        (["deployment=docker", "deployment=podman"], ["docker/compute.yaml"]),
        (["deployment=puppet", "resource_type=OS::TripleO::ComputeHCI"], []),
        (["nothing=declares-this"], []),
    ],
    ids=["one", "listed-value", "two-keys", "same-key-twice-means-both", "no-match", "unknown"],
)
def test_find_every_c_must_match(tree, wanted, files):
    args = [item for value in wanted for item in ("--capability", value)]
    result = find("-r", *args, "-f", "json", "puppet", "docker", "network")
    assert result.exit_code == 0, result.output
    assert [row["file"] for row in json.loads(result.stdout)] == files


def test_find_named_files_need_no_r(tree):
    result = find(
        "--capability", "deployment=docker", "-f", "json", "docker/compute.yaml", "overcloud.yaml"
    )
    assert result.exit_code == 0
    assert [row["file"] for row in json.loads(result.stdout)] == ["docker/compute.yaml"]


def test_find_table_and_no_match(tree):
    result = find("-r", "--capability", "deployment=docker", "docker")
    assert result.exit_code == 0
    assert (
        "docker/compute.yaml" in result.stdout and "deployment: [docker, podman]" in result.stdout
    )
    none = find("-r", "--capability", "deployment=chef", ".")
    assert none.exit_code == 0 and none.stdout == ""
    assert none.stderr == "No template matches deployment=chef.\n"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--capability", "deployment=puppet", "."), ". is a directory; give -r to search it"),
        (("--capability", "deployment", "-r", "."), "expected KEY=VALUE, got 'deployment'"),
        (("--capability", "=x", "-r", "."), "expected KEY=VALUE"),
        (("-r", "."), "Missing option '--capability'"),
        (("--capability", "a=b"), "Missing argument 'PATH...'"),
        (("--capability", "a=b", "nowhere"), "'nowhere' does not exist"),
    ],
    ids=["dir-without-r", "no-equals", "no-key", "no-c", "no-path", "missing-path"],
)
def test_find_usage_errors_exit_2(tree, args, words):
    result = find(*args)
    assert result.exit_code == 2 and words in result.stderr, result.stderr


def test_find_reports_broken_files_prints_matches_and_exits_1(tree):
    (tree / "docker" / "broken.yaml").write_text("heat_template_version: 2015-10-15\nx: [\n")
    (tree / "docker" / "early.yaml").write_text(
        "heat_template_version: 2015-04-30\ncapabilities: {deployment: docker}\n"
    )
    result = find("-r", "--capability", "deployment=docker", "-f", "json", "docker")
    assert result.exit_code == 1
    assert [row["file"] for row in json.loads(result.stdout)] == [
        "docker/compute.yaml",
        "docker/controller.yaml",
    ]
    lines = result.stderr.splitlines()
    assert lines[0].startswith("docker/broken.yaml:3:1: ")
    assert lines[1].startswith(
        "docker/early.yaml:2:1: capabilities: The template section is invalid: capabilities"
    )


# --------------------------------------------------------------------------- validate


def test_validate_warns_that_heat_rejects_the_section(tree):
    result = CliRunner().invoke(cli, ["template", "validate", "puppet/controller.yaml"])
    assert result.exit_code == 0, result.output
    assert (
        "puppet/controller.yaml:2:1: capabilities: warning: Heat itself rejects the capabilities "
        "section"
    ) in result.stderr
