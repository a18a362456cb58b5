"""``stoker stack graph``: a stored stack's graph, each resource with its state, its
nested stacks (a group of provider templates) read from the store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli.entry import stoker
from stoker.graph import Graph, stack_graph
from stoker.resources.registry import default_registry
from stoker.store import open_store

from .checks import check_dot, check_mermaid, check_svg

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "graph"

FAILING = """\
heat_template_version: 2018-08-31
resources:
  first:
    type: OS::Heat::Value
    properties: {value: one}
  broken:
    type: OS::Heat::TestResource
    properties: {value: {get_attr: [first, value]}, fail: true}
  never:
    type: OS::Heat::None
    depends_on: [broken]
"""


@pytest.fixture
def database(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'stoker.db'}"


def stored_graph(database: str, name: str, depth: int) -> Graph:
    from stoker.engine.stacks import StackEngine

    with open_store(database) as store:
        engine = StackEngine(store, default_registry())
        record = store.get_stack(name, "default")
        assert record is not None
        return stack_graph(engine, record, depth)


def test_a_created_group_is_drawn_with_the_state_of_every_resource(database: str) -> None:
    ran = stoker("--db", database, "stack", "create", "web", "-t", str(EXAMPLES / "web-group.yaml"))
    assert ran.returncode == 0, ran.stderr
    graph = stored_graph(database, "web", 2)
    nodes = {n.key: n for n in graph.nodes()}
    assert len(nodes) == 4 + 3 + 9
    assert {n.state for n in nodes.values()} == {"CREATE_COMPLETE"}
    member = nodes["members/1"]
    assert member.kind == "provider" and member.child is not None
    assert member.child.stack_name is not None and member.child.stack_name.startswith("web-")
    # each resource names the stored stack that holds it (the dashboard links it)
    assert nodes["members/1/ready"].stack_id == member.child.stack_id
    assert graph.top.state == "CREATE_COMPLETE"
    reasons = {(e.source, e.target): e.reasons for e in graph.edges()}
    assert reasons[("front", "members")] == ("get_attr",)
    assert reasons[("members/1/ready", "members/1/name")] == ("depends_on",)
    check_svg(graph, _render(graph, "svg"))
    check_dot(graph, _render(graph, "dot"))
    check_mermaid(graph, _render(graph, "mermaid"))

    collapsed = stored_graph(database, "web", 0)
    (members,) = [n for n in collapsed.nodes() if n.name == "members"]
    assert members.collapsed and members.hidden == 12

    ran = stoker("--db", database, "stack", "graph", "web", "-f", "json")
    assert ran.returncode == 0, ran.stderr
    data = json.loads(ran.stdout)
    assert data["nested_depth"] == 1
    assert {n["key"] for n in data["nodes"]} == {
        "secret",
        "settings",
        "members",
        "front",
        "members/0",
        "members/1",
        "members/2",
    }
    assert {n["hidden_resources"] for n in data["nodes"] if n["parent"] == "members"} == {3}


def test_a_failed_resource_and_those_never_created_have_their_own_state(
    database: str, tmp_path: Path
) -> None:
    template = tmp_path / "failing.yaml"
    template.write_text(FAILING)
    ran = stoker("--db", database, "stack", "create", "bad", "-t", str(template))
    assert ran.returncode == 1
    graph = stored_graph(database, "bad", 1)
    states = {n.name: n.state for n in graph.nodes()}
    assert states == {
        "first": "CREATE_COMPLETE",
        "broken": "CREATE_FAILED",
        "never": "INIT_COMPLETE",
    }
    nodes = check_svg(graph, _render(graph, "svg"))
    assert set(nodes["broken"].get("class").split()) == {"node", "status-failed", "action-create"}
    assert nodes["never"].get("data-state") == "INIT_COMPLETE"
    assert "status-complete" in nodes["first"].get("class").split()
    ran = stoker("--db", database, "stack", "graph", "bad", "-f", "mermaid")
    assert ran.returncode == 0
    assert "class n1 failed" in ran.stdout


def test_an_unknown_stack_is_a_clear_error(database: str) -> None:
    ran = stoker("--db", database, "stack", "graph", "nothing")
    assert ran.returncode == 1
    assert "nothing" in ran.stderr and "Traceback" not in ran.stderr


def _render(graph: Graph, fmt: str) -> str:
    from stoker.graph import render

    return render(graph, fmt)
