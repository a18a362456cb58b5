"""``stoker template graph``: the graph of a template tree before the stack exists, in
every format: a three-tier template, a ResourceGroup of provider templates and a
TripleO-sized tree of 630 resources over five levels of stacks."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cli.entry import stoker
from stoker.definition.loading import LoadOptions, load_definition
from stoker.graph import Graph, render, template_graph
from stoker.resolution import validate_tree

from .checks import check_dot, check_dot_statements, check_mermaid, check_svg, svg_nodes
from .composed import ROLE_RESOURCES, TOP_RESOURCES, total_resources, write_tree

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "graph"


def graph_of(template: Path, environments: tuple[Path, ...] = (), depth: int = 1) -> Graph:
    """What `stoker template graph` draws, through the library."""
    result = load_definition(str(template), [str(e) for e in environments], {}, LoadOptions())
    assert result.definition is not None and result.ok, [d.render() for d in result.diagnostics]
    found, tree = validate_tree(result.definition, str(template))
    assert not [d for d in found if d.is_error], [d.render() for d in found]
    return template_graph(result.definition, tree.nested, depth, template.name)


def edges(graph: Graph) -> dict[tuple[str, str], tuple[str, ...]]:
    return {(e.source, e.target): e.reasons for e in graph.edges()}


def check_every_format(graph: Graph, *, dot_grammar: bool = True) -> None:
    check_svg(graph, render(graph, "svg"))
    if dot_grammar:
        check_dot(graph, render(graph, "dot"))
    else:
        check_dot_statements(graph, render(graph, "dot"))
    check_mermaid(graph, render(graph, "mermaid"))
    data = json.loads(render(graph, "json"))
    assert [n["key"] for n in data["nodes"]] == [n.key for n in graph.nodes()]
    assert len(data["edges"]) == len(list(graph.edges()))


# ---------------------------------------------------------------------- three tiers
def test_three_tiers_each_edge_with_what_made_it() -> None:
    graph = graph_of(EXAMPLES / "three-tier.yaml")
    assert [n.name for n in graph.nodes()][:3] == ["network", "subnet", "router"]
    assert all(n.state is None and n.kind is None for n in graph.nodes())
    found = edges(graph)
    assert found[("subnet", "network")] == ("get_resource",)
    assert found[("app", "router_interface")] == ("depends_on",)
    assert found[("web", "app")] == ("get_attr",)
    # Heat's Neutron rules: a port waits for its network's subnets, a floating IP for
    # the router and the interface that make it reachable
    assert found[("web_port", "subnet")] == ("implied",)
    assert found[("web_ip", "router")] == ("implied",)
    assert found[("web_ip", "router_interface")] == ("implied",)
    assert len(found) == 18
    check_every_format(graph)


def test_the_dot_output_labels_and_styles_edges_by_reason() -> None:
    dot = check_dot(graph := graph_of(EXAMPLES / "three-tier.yaml"), render(graph, "dot"))
    styles = {
        (e.get_source().strip('"'), e.get_destination().strip('"')): (
            e.get("label").strip('"'),
            e.get("style"),
        )
        for e in dot.get_edges()
    }
    assert styles[("web_port", "subnet")] == ("implied", "dotted")
    assert styles[("db", "subnet")] == ("depends_on", "dashed")
    assert styles[("web", "app")] == ("get_attr", None)


# ---------------------------------------------------------------------- a group
def test_a_group_of_provider_templates_is_a_cluster_down_to_the_depth() -> None:
    template = EXAMPLES / "web-group.yaml"
    shallow = graph_of(template, depth=0)
    members = next(n for n in shallow.nodes() if n.name == "members")
    assert members.kind == "group" and members.collapsed
    assert members.hidden == 3 * (1 + 3)  # three member facades, three resources each
    assert len(list(shallow.nodes())) == 4

    one = graph_of(template, depth=1)
    members = next(n for n in one.nodes() if n.name == "members")
    assert members.child is not None
    assert [(n.name, n.kind, n.hidden) for n in members.child.nodes] == [
        ("0", "provider", 3),
        ("1", "provider", 3),
        ("2", "provider", 3),
    ]
    assert edges(one)[("front", "members")] == ("get_attr",)

    deep = graph_of(template, depth=2)
    assert len(list(deep.nodes())) == 4 + 3 + 9
    found = edges(deep)
    assert found[("members/1/ready", "members/1/config")] == ("depends_on",)
    for graph in (shallow, one, deep):
        check_every_format(graph)


def test_svg_nodes_carry_state_classes_ids_and_links() -> None:
    graph = graph_of(EXAMPLES / "web-group.yaml", depth=1)
    text = render(graph, "svg", link=lambda node: f"/resources/{node.key}")
    nodes = check_svg(graph, text)
    member = nodes["members/0"]
    assert member.get("id") == "node-members_2f0"
    assert set(member.get("class").split()) == {"node", "status-none", "kind-provider", "collapsed"}
    cluster = nodes["members"]
    assert "cluster" in cluster.get("class").split()
    anchors = [
        e.get("href") for e in member.iter() if e.tag.endswith("}a") and e.get("href") is not None
    ]
    assert anchors == ["/resources/members/0"]


NAMES = r"""
heat_template_version: 2018-08-31
resources:
  'a "quoted" <name> & #1': {type: OS::Heat::None}
  'back\slash': {type: OS::Heat::None, depends_on: ['a "quoted" <name> & #1']}
  'ünïcødé ✓ end': {type: OS::Heat::None, depends_on: ['back\slash']}
"""


def test_names_that_need_escaping_in_every_format(tmp_path: Path) -> None:
    template = tmp_path / "names.yaml"
    template.write_text(NAMES, encoding="utf-8")
    graph = graph_of(template)
    assert [n.name for n in graph.nodes()] == [
        'a "quoted" <name> & #1',
        "back\\slash",
        "ünïcødé ✓ end",
    ]
    assert graph.top.nodes[1].key == "back%5Cslash"
    check_every_format(graph)


# ---------------------------------------------------------------------- TripleO-sized
@pytest.fixture(scope="module")
def overcloud(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return write_tree(tmp_path_factory.mktemp("overcloud"))


def test_a_tripleo_sized_tree_in_full(overcloud: tuple[Path, Path]) -> None:
    template, environment = overcloud
    graph = graph_of(template, (environment,), depth=9)
    nodes = list(graph.nodes())
    assert len(nodes) == total_resources() == 630
    assert not any(n.collapsed for n in nodes)
    # five levels: overcloud, a group, a role, its chain of services, a service
    assert max(len(n.path) for n in nodes) == 4
    found = edges(graph)
    assert found[("Compute/13/deployment5", "Compute/13/deployment4")] == ("depends_on",)
    assert found[("Compute/13/deployment5", "Compute/13/config5")] == ("get_resource",)
    assert found[("Networks/vip", "Networks/router")] == ("implied",)
    assert found[("Hosts", "Compute")] == ("get_attr",)
    check_every_format(graph, dot_grammar=False)


def test_a_tripleo_sized_tree_collapsed_below_the_depth(overcloud: tuple[Path, Path]) -> None:
    template, environment = overcloud
    graph = graph_of(template, (environment,), depth=1)
    nodes = list(graph.nodes())
    # the overcloud's own, the network template's and the 17 role members, collapsed
    assert len(nodes) == TOP_RESOURCES + 12 + 17
    roles = [n for n in nodes if n.collapsed]
    assert len(roles) == 17 and {n.hidden for n in roles} == {ROLE_RESOURCES}
    assert sum(n.hidden or 0 for n in roles) + len(nodes) == total_resources()
    check_every_format(graph)


# ---------------------------------------------------------------------- the command
def test_the_command_writes_each_format(tmp_path: Path) -> None:
    os.chdir(tmp_path)  # stoker() restores the working directory; the test's own is kept
    for fmt in ("dot", "mermaid", "json", "svg"):
        ran = stoker(
            "template", "graph", "-t", str(EXAMPLES / "web-group.yaml"), "-f", fmt, "-n", "2"
        )
        assert ran.returncode == 0, ran.stderr
        assert ran.stdout
    out = tmp_path / "group.svg"
    ran = stoker(
        "template", "graph", "-t", str(EXAMPLES / "web-group.yaml"), "-o", str(out), "-f", "svg"
    )
    assert ran.returncode == 0 and ran.stdout == ""
    assert "members/0/ready" not in svg_nodes(out.read_text())  # depth 1 by default
    assert "members/0" in svg_nodes(out.read_text())


def test_a_broken_template_is_refused_with_its_location(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text(
        "heat_template_version: 2018-08-31\n"
        "resources:\n"
        "  a: {type: OS::Heat::None, depends_on: [b]}\n"
        "  b: {type: OS::Heat::None, depends_on: [a]}\n"
    )
    ran = stoker("template", "graph", "-t", str(broken))
    assert ran.returncode == 1
    assert "broken.yaml:3:" in ran.stderr and "Circular Dependency" in ran.stderr
    assert ran.stdout == "" and "Traceback" not in ran.stderr
    ran = stoker("template", "graph", "-t", str(broken), "-f", "png")
    assert ran.returncode == 2 and "png" in ran.stderr


def test_the_docs_show_what_the_command_prints() -> None:
    page = (EXAMPLES.parents[1] / "docs" / "graph.md").read_text(encoding="utf-8")
    block = page.split("```mermaid\n", 1)[1].split("```", 1)[0]
    assert block == render(graph_of(EXAMPLES / "three-tier.yaml"), "mermaid")


def test_the_command_takes_environments_and_parameters(overcloud: tuple[Path, Path]) -> None:
    template, environment = overcloud
    ran = stoker(
        "template",
        "graph",
        "-t",
        str(template),
        "-e",
        str(environment),
        "--parameter",
        "ComputeCount=2",
        "-f",
        "json",
        "--nested-depth",
        "9",
    )
    assert ran.returncode == 0, ran.stderr
    assert len(json.loads(ran.stdout)["nodes"]) == total_resources(computes=2)


def test_the_options_offer_the_library_s_formats() -> None:
    from stoker.cli.graph import GRAPH_FORMATS
    from stoker.graph import FORMATS

    assert GRAPH_FORMATS == FORMATS
