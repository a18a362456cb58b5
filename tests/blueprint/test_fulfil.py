"""Types and fulfilment for the seed's examples, and the located errors for requirements
nothing fulfils, several fulfil, or that go round in a cycle."""

from __future__ import annotations

from pathlib import Path

import pytest

from stoker.blueprint.build import Source, analyse
from stoker.blueprint.decisions import Decisions

from .conftest import PAIRS, analysed, example


def decisions_of(name: str) -> Decisions:
    analysis = analysed(example(name))
    assert analysis.ok, [d.render() for d in analysis.diagnostics]
    assert analysis.decisions is not None
    return analysis.decisions


def implementations(decisions: Decisions) -> dict[str, str]:
    return {
        ident: choice.chosen.implementation
        for ident, choice in decisions.choices.items()
        if choice.chosen is not None
    }


def fulfilled(decisions: Decisions) -> dict[tuple[str | None, str | None], list[str]]:
    return {
        (f.requirement.owner, f.requirement.type): f.fulfillers
        for f in decisions.fulfilments
        if f.kind == "component"
    }


@pytest.mark.parametrize("syntax", [0, 1])
def test_script_server(syntax: int) -> None:
    decisions = decisions_of(PAIRS["script"][syntax])
    assert implementations(decisions) == {
        "my_server": "org.openstack.nova.Server",
        "my_script": "com.example.script.ShellScript",
    }
    assert fulfilled(decisions) == {("my_server", "run"): ["my_script"]}
    cloud = [f.requirement.type for f in decisions.fulfilments if f.kind == "cloud"]
    assert cloud == ["minRam"] or cloud == ["minRam"][::-1]


@pytest.mark.parametrize("syntax", [0, 1])
def test_war_gets_jetty_because_providers_exclude_tomcat(syntax: int) -> None:
    decisions = decisions_of(PAIRS["war"][syntax])
    platform = "hello_war_wardeploymentrequirement"
    assert implementations(decisions) == {
        "hello_war": "com.example.java.War",
        platform: "org.jetty.Jetty",
        f"{platform}_host": "org.openstack.nova.Server",
    }
    (war,) = [f for f in decisions.fulfilments if f.requirement.owner == "hello_war"]
    assert war.fulfillers == [platform]
    assert [r.candidate for r in war.rejected] == ["org.apache.tomcat.Tomcat (tomcat.yaml)"]
    assert "providers requirement allows only" in war.rejected[0].reason


@pytest.mark.parametrize("syntax", [0, 1])
def test_elastic_php_tier_with_load_balancer_and_dns(syntax: int) -> None:
    decisions = decisions_of(PAIRS["php"][syntax])
    assert implementations(decisions)["my_lb"] == "org.openstack.octavia.LoadBalancer"
    assert decisions.choices["my_lb"].how.startswith("inferred from the requirements pointing")
    assert fulfilled(decisions) == {
        ("my_tier", "loadbalancer"): ["my_lb"],
        ("my_tier_nodespec", "run"): ["my_tier_nodespec_run"],
        ("my_tier_nodespec", "unpack"): ["my_tier_nodespec_unpack"],
        ("my_lb", "dns"): ["my_lb_dns"],
    }
    assert implementations(decisions)["my_lb_dns"] == "org.openstack.designate.RecordSet"
    assert decisions.nested_in == {"my_tier_nodespec": "my_tier"}


@pytest.mark.parametrize("syntax", [0, 1])
def test_camp_three_tier_with_cdi_database(syntax: int) -> None:
    decisions = decisions_of(PAIRS["camp"][syntax])
    assert implementations(decisions) == {
        "hello_war": "com.example.java.War",
        "hello_sql": "com.example.database.Schema",
        "frontend": "org.jetty.Jetty",
        "backend": "com.example.database.MariaDB",
        "lb": "org.openstack.octavia.LoadBalancer",
        "frontend_host": "org.openstack.nova.Server",
        "backend_host": "org.openstack.nova.Server",
    }
    rejected = decisions.choices["frontend"].rejected
    assert [(r.candidate, r.reason) for r in rejected] == [
        ("org.apache.tomcat.Tomcat (tomcat.yaml)", "it does not understand requirement database")
    ]
    assert fulfilled(decisions)[("hello_sql", "DB")] == ["backend"]
    assert fulfilled(decisions)[("frontend", "database")] == ["backend"]


LB_WITH_DNS = (
    "components:\n  lb:\n    type: loadbalancer\n    requires:\n"
    "      dns: {hostname: a.example.com}\n"
)


def analyse_text(text: str, tmp_path: Path, libraries: tuple[str, ...] = ()) -> list[str]:
    path = tmp_path / "bp.yaml"
    path.write_text(text)
    analysis = analyse(Source(text, str(path)), libraries)
    return [d.render() for d in analysis.diagnostics if d.is_error]


def test_unfulfillable_requirement_names_every_candidate_and_why(tmp_path: Path) -> None:
    text = (
        "components:\n"
        "  web:\n"
        "    type: tier\n"
        "    nodespec: {type: server}\n"
        "    requires:\n"
        "      loadbalancer: {algorithm: random}\n"
    )
    (error,) = analyse_text(text, tmp_path)
    assert error.startswith(f"{tmp_path / 'bp.yaml'}:6:7: components.web.requires.loadbalancer:")
    assert 'requirement "loadbalancer" of component "web": nothing fulfils it' in error
    assert (
        "org.openstack.octavia.LoadBalancer (loadbalancer.yaml): its algorithm is one of" in error
    )
    assert "not random" in error


def test_providers_deny_can_leave_nothing(tmp_path: Path) -> None:
    text = (
        "components:\n  s:\n    type: server\nrequires:\n  providers: {deny: [org.openstack.*]}\n"
    )
    (error,) = analyse_text(text, tmp_path)
    assert ":2:3: components.s:" in error
    assert "providers requirement denies it (org.openstack.*)" in error


def test_ambiguous_requirement_lists_the_qualifying_templates(tmp_path: Path) -> None:
    extra = tmp_path / "lib"
    extra.mkdir()
    dns = (
        Path(example("1-script-server.map.yaml")).parents[2]
        / "src/stoker/blueprint/library/dns.yaml"
    )
    (extra / "other_dns.yaml").write_text(
        dns.read_text().replace("org.openstack.designate.RecordSet", "com.example.OtherDns")
    )
    text = LB_WITH_DNS
    (error,) = analyse_text(text, tmp_path, (str(extra),))
    assert ":5:7:" in error
    assert "2 library templates fulfil it" in error
    assert "org.openstack.designate.RecordSet (dns.yaml)" in error
    assert "com.example.OtherDns (other_dns.yaml)" in error


def test_a_later_library_replaces_an_implementation(tmp_path: Path) -> None:
    extra = tmp_path / "lib"
    extra.mkdir()
    dns = (
        Path(example("1-script-server.map.yaml")).parents[2]
        / "src/stoker/blueprint/library/dns.yaml"
    )
    (extra / "dns.yaml").write_text(
        dns.read_text().replace(
            "ttl: {type: number, default: 300}", "ttl: {type: number, default: 60}"
        )
    )
    text = LB_WITH_DNS
    path = tmp_path / "bp.yaml"
    analysis = analyse(Source(text, str(path)), (str(extra),))
    assert analysis.ok and analysis.decisions is not None
    chosen = analysis.decisions.type_of("lb_dns")
    assert chosen is not None and chosen.file == str(extra / "dns.yaml")


def test_cycle_is_named(tmp_path: Path) -> None:
    text = (
        "components:\n"
        "  app:\n"
        "    type: jetty\n"
        "    requires:\n"
        "      host: shared\n"
        "      database: db\n"
        "  db:\n"
        "    type: database\n"
        "    requires:\n"
        "      host: shared\n"
        "  shared:\n"
        "    type: server\n"
    )
    (error,) = analyse_text(text, tmp_path)
    assert "requirements go round in a cycle: " in error
    assert "app -> shared -> app" in error or "shared -> app -> shared" in error


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("components:\n  a: {type: nosuch}\n", 'unknown component type "nosuch"'),
        ("components:\n  a: {}\n", "nothing to infer one from"),
        ("components:\n  a: {type: server, requires: [backend]}\n", "declares no default"),
        (
            "components:\n  a: {type: server, requires: {dns: x}}\n",
            "does not understand requirement dns",
        ),
        ("components:\n  a: {type: server, requires: {run: nope}}\n", 'names "nope", which is no'),
        ("components: {}\nrequires: {color: red}\n", 'unknown global requirement type "color"'),
    ],
)
def test_type_and_requirement_errors(text: str, words: str, tmp_path: Path) -> None:
    errors = analyse_text(text, tmp_path)
    assert any(words in e for e in errors), errors
    assert all(e.startswith(str(tmp_path / "bp.yaml") + ":") for e in errors)
