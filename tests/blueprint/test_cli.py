"""``stoker blueprint explain|compile|library`` in process (Click's runner)."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from stoker.cli.main import cli

from .conftest import PAIRS, example

pytestmark = pytest.mark.heavy


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), env={"OS_CLOUD": "", "OS_AUTH_URL": ""})
    return result.exit_code, result.stdout, result.stderr


def test_explain_text_and_json() -> None:
    code, out, _ = run("blueprint", "explain", example(PAIRS["camp"][0]))
    assert code == 0
    assert "component frontend: jetty -> org.jetty.Jetty (inferred from" in out
    assert "rejected type org.apache.tomcat.Tomcat (tomcat.yaml): it does not understand" in out
    code, out, _ = run("blueprint", "explain", "-f", "json", example(PAIRS["camp"][1]))
    data = json.loads(out)
    frontend = next(c for c in data["components"] if c["id"] == "frontend")
    assert frontend["implementation"] == "org.jetty.Jetty"
    assert {r["type"]: r["fulfilled_by"] for r in frontend["requirements"]}["database"] == [
        "backend"
    ]


def test_explain_reports_located_errors_and_fails(tmp_path: Path) -> None:
    path = tmp_path / "bp.yaml"
    path.write_text("components:\n  a: {type: server, requires: {dns: x}}\n")
    code, _, err = run("blueprint", "explain", str(path))
    assert code == 1
    assert f"{path}:2:" in err and "does not understand requirement dns" in err
    assert "Traceback" not in err


def test_compile_without_a_cloud_says_how_to_choose_one(tmp_path: Path) -> None:
    code, _, err = run(
        "blueprint", "compile", example(PAIRS["script"][0]), "-o", str(tmp_path / "o.yaml")
    )
    assert code == 1
    assert "needs a cloud to choose its flavor and image, and none is configured" in err
    assert "--os-cloud" in err
    assert not (tmp_path / "o.yaml").exists()


def test_every_option_has_help() -> None:
    """The conventions test sees only the groups loaded so far: load this one."""
    from stoker.cli.blueprint import blueprint

    for command in blueprint.commands.values():
        for param in command.params:
            if isinstance(param, click.Option):
                assert param.help, (command.name, param.opts)


def test_library_lists_the_component_types() -> None:
    code, out, _ = run("blueprint", "library", "-f", "json")
    rows = {row["implementation"]: row for row in json.loads(out)}
    assert code == 0
    assert rows["org.openstack.nova.Server"]["components"] == ["server", "OS::Nova::Server"]
    assert "loadbalancer" in rows["org.openstack.octavia.LoadBalancer"]["offers"]


SCRIPTS = """name: scripts only
components:
  setup:
    type: com.example.script.ShellScript
    content: setup.sh
    sudo: false
"""


def test_stack_create_compiles_a_blueprint_and_keeps_it_as_its_source(tmp_path: Path) -> None:
    (tmp_path / "setup.sh").write_text("#!/bin/sh\necho ready\n")
    blueprint = tmp_path / "bp.yaml"
    blueprint.write_text(SCRIPTS)
    db = f"sqlite:///{tmp_path / 'stoker.db'}"
    code, _, err = run("--db", db, "stack", "create", "bp", "-t", str(blueprint))
    assert code == 0, err
    code, out, _ = run("--db", db, "stack", "template", "show", "bp", "--source")
    assert code == 0 and out == SCRIPTS
    code, out, _ = run("--db", db, "stack", "template", "show", "bp", "-f", "json")
    script = json.loads(out)["resources"]["setup"]["properties"]["script"]
    assert script == "#!/bin/sh\necho ready\n"
    code, _, err = run("--db", db, "stack", "template", "show", "nosuch", "--source")
    assert code == 1 and "could not be found" in err


def test_compile_output_into_a_new_directory(tmp_path: Path) -> None:
    source = tmp_path / "scripts.yaml"
    source.write_text(SCRIPTS)
    (tmp_path / "setup.sh").write_text("echo hi\n")
    out = tmp_path / "out" / "stack.yaml"
    code, _, err = run("blueprint", "compile", str(source), "-o", str(out))
    assert code == 0, err
    assert out.exists() and (tmp_path / "out" / "stack.env.yaml").exists()


def test_an_unfulfilled_requirement_is_explained_without_an_empty_reason(tmp_path: Path) -> None:
    path = tmp_path / "amb.yaml"
    path.write_text(
        "components:\n  web:\n    content: hello.war\n    requires:\n"
        "      - type: com.example.java:WarDeploymentRequirement\n"
    )
    code, out, err = run("blueprint", "explain", str(path))
    assert code == 1
    assert "fulfilled by nothing\n" in out
    assert f"{path}:5:" in err and "2 library templates fulfil it" in err
