"""The seed's four blueprint examples created and deleted against the sandbox through
``stoker stack create -t BLUEPRINT``: the chosen fulfilments show in the resources, the
cloud holds what they say (flavors, images, zones, load balancer members, DNS records),
and a delete leaves nothing behind. Each takes seconds: all are slow tests."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from stoker.cli.main import cli

EXAMPLES = Path(__file__).parents[2] / "examples" / "blueprints"
US = str(EXAMPLES / "us-cloud.env.yaml")
Stoker = Callable[..., Any]


@pytest.fixture
def stoker(db_url: str, cloud_env: dict[str, str]) -> Stoker:
    def run(*args: str) -> Any:
        return CliRunner().invoke(cli, ["--db", db_url, "stack", *args])

    return run


@pytest.fixture(scope="module")
def private_subnet(admin: Any) -> str:
    """A tenant network with one subnet: servers get an address on it, and a load
    balancer takes its address from it."""
    network = admin.network.find_network("bp-private")
    if network is None:
        network = admin.network.create_network(name="bp-private")
        admin.network.create_subnet(
            network_id=network.id, name="bp-private-subnet", cidr="10.9.0.0/24", ip_version=4
        )
    return str(network.id)


@pytest.fixture(scope="module")
def rhel_image(admin: Any) -> str:
    """The elastic PHP example asks for os: rhel; the sandbox seeds one such image."""
    found = [i for i in admin.image.images() if i.os_distro == "rhel"]
    assert len(found) == 1, [i.name for i in found]
    return str(found[0].id)


def resources(stoker: Stoker, name: str, depth: int = 0) -> dict[str, dict[str, Any]]:
    listed = stoker("resource", "list", name, "--nested-depth", str(depth), "-f", "json")
    assert listed.exit_code == 0, listed.stderr
    return {r["resource_name"]: r for r in json.loads(listed.stdout)}


def created(stoker: Stoker, name: str, *args: str) -> dict[str, dict[str, Any]]:
    result = stoker("create", name, *args)
    assert result.exit_code == 0, result.stderr
    return resources(stoker, name)


def deleted(stoker: Stoker, admin: Any, name: str) -> None:
    result = stoker("delete", "-y", name)
    assert result.exit_code == 0, result.stderr
    assert list(admin.compute.servers()) == []
    assert list(admin.load_balancer.load_balancers()) == []
    assert list(admin.dns.zones()) == []


def servers(admin: Any) -> dict[str, Any]:
    return {s.name: s for s in admin.compute.servers(details=True)}


@pytest.mark.slow
def test_script_server(stoker: Stoker, admin: Any) -> None:
    made = created(stoker, "bp1", "-t", str(EXAMPLES / "1-script-server.map.yaml"))
    assert {n: r["resource_type"] for n, r in made.items()} == {
        "my_server": "Blueprint::Nova::Server",
        "my_script": "Blueprint::Script::Shell",
    }
    (server,) = servers(admin).values()
    assert server.flavor["original_name"] == "m1.medium"  # the smallest with 4 GB RAM
    assert admin.image.get_image(server.image.id).os_distro == "ubuntu"
    source = stoker("template", "show", "bp1", "--source")
    assert source.stdout == (EXAMPLES / "1-script-server.map.yaml").read_text()
    deleted(stoker, admin, "bp1")


@pytest.mark.slow
def test_war_on_jetty_in_the_us(stoker: Stoker, admin: Any) -> None:
    made = created(stoker, "bp2", "-t", str(EXAMPLES / "2-war-jetty.list.yaml"), "-e", US)
    platform = "hello_war_wardeploymentrequirement"
    assert {n: r["resource_type"] for n, r in made.items()} == {
        "hello_war": "Blueprint::Java::War",
        platform: "Blueprint::Java::Jetty",
        f"{platform}_host": "Blueprint::Nova::Server",
    }
    (server,) = servers(admin).values()
    assert server.availability_zone == "nova"
    deleted(stoker, admin, "bp2")


@pytest.mark.slow
def test_elastic_php_tier(stoker: Stoker, admin: Any, private_subnet: str, rhel_image: str) -> None:
    made = created(stoker, "bp3", "-t", str(EXAMPLES / "3-elastic-php.map.yaml"))
    assert {n: r["resource_type"] for n, r in made.items()} == {
        "my_tier_nodespec_run": "Blueprint::Package::Rpm",
        "my_tier_nodespec_unpack": "Blueprint::Archive::Tgz",
        "my_tier": "Blueprint::Heat::Tier",
        "my_lb": "Blueprint::Octavia::LoadBalancer",
        "my_lb_dns": "Blueprint::Designate::Record",
    }
    nodes = list(servers(admin).values())
    assert len(nodes) == 3
    assert {s.image.id for s in nodes} == {rhel_image}
    addresses = {a["addr"] for s in nodes for net in s.addresses.values() for a in net}
    (pool,) = admin.load_balancer.pools()
    members = {m.address for m in admin.load_balancer.members(pool)}
    assert members == addresses
    (balancer,) = admin.load_balancer.load_balancers()
    (zone,) = admin.dns.zones()
    assert zone.name == "example.com."
    records = [r for r in admin.dns.recordsets(zone) if r.type == "A"]
    assert [(r.name, r.records) for r in records] == [
        ("myapp.example.com.", [balancer.vip_address])
    ]
    deleted(stoker, admin, "bp3")


@pytest.mark.slow
def test_camp_three_tier_from_a_package(
    stoker: Stoker, admin: Any, private_subnet: str, tmp_path: Path
) -> None:
    """The CAMP example as a ZIP: the blueprint at its root as heat.yaml, the WAR and the
    SQL it names beside it."""
    package = tmp_path / "camp.zip"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.write(EXAMPLES / "4-camp-cdi.map.yaml", "heat.yaml")
        archive.write(EXAMPLES / "hello.war", "hello.war")
        archive.write(EXAMPLES / "hello.sql", "hello.sql")
    package.write_bytes(buffer.getvalue())
    made = created(stoker, "bp4", "-t", str(package))
    assert {n: r["resource_type"] for n, r in made.items()} == {
        "hello_war": "Blueprint::Java::War",
        "hello_sql": "Blueprint::Database::Schema",
        "backend": "Blueprint::Database::MariaDB",
        "backend_host": "Blueprint::Nova::Server",
        "frontend": "Blueprint::Java::Jetty",
        "frontend_host": "Blueprint::Nova::Server",
        "lb": "Blueprint::Octavia::LoadBalancer",
    }
    by_name = servers(admin)
    (front,) = [s for n, s in by_name.items() if "-frontend_host-" in n]
    (pool,) = admin.load_balancer.pools()
    assert pool.session_persistence["type"] == "SOURCE_IP"
    assert pool.lb_algorithm == "ROUND_ROBIN" and pool.protocol == "HTTPS"
    members = [m.address for m in admin.load_balancer.members(pool)]
    assert members == [a["addr"] for net in front.addresses.values() for a in net]
    source = stoker("template", "show", "bp4", "--source")
    assert source.stdout == (EXAMPLES / "4-camp-cdi.map.yaml").read_text()
    deleted(stoker, admin, "bp4")


@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    [
        "1-script-server.list.json",
        "2-war-jetty.map.yaml",
        "3-elastic-php.list.yaml",
        "4-camp-cdi.list.yaml",
    ],
)
def test_compiled_output_validates(
    name: str,
    cloud_env: dict[str, str],
    private_subnet: str,
    rhel_image: str,
    tmp_path: Path,
) -> None:
    out = tmp_path / "compiled.yaml"
    args = ["blueprint", "compile", str(EXAMPLES / name), "-o", str(out), "-e", US]
    compiled = CliRunner().invoke(cli, args)
    assert compiled.exit_code == 0, compiled.stderr
    assert "  # " in out.read_text()  # a comment per component and requirement
    env = str(tmp_path / "compiled.env.yaml")
    validated = CliRunner().invoke(cli, ["template", "validate", str(out), "-e", env])
    assert validated.exit_code == 0, validated.stderr
    assert "warning" not in validated.stderr


@pytest.mark.slow
def test_a_database_of_an_existing_stack_gives_its_hosts_address(
    stoker: Stoker, admin: Any, private_subnet: str, tmp_path: Path
) -> None:
    """A database made by one blueprint stack fulfils the app server of another: the
    database has no address of its own, so its host's (in its stack, as its blueprint
    says) is written into the new stack."""
    shared = tmp_path / "shared.yaml"
    shared.write_text("components:\n  backend: {type: database}\n")
    created(stoker, "bp-shared", "-t", str(shared))
    (host,) = servers(admin).values()
    address = next(a["addr"] for net in host.addresses.values() for a in net)
    app = tmp_path / "app.yaml"
    app.write_text(
        "components:\n  frontend:\n    type: jetty\n    requires:\n"
        "      database: {fulfillment: 'stack:bp-shared/backend'}\n"
    )
    made = created(stoker, "bp-app", "-t", str(app))
    assert set(made) == {"frontend", "frontend_host"}  # nothing made for the database
    template = stoker("template", "show", "bp-app", "-f", "json")
    properties = json.loads(template.stdout)["resources"]["frontend"]["properties"]
    assert properties["database_address"] == address
    result = stoker("delete", "-y", "bp-app")
    assert result.exit_code == 0, result.stderr
    assert len(list(admin.compute.servers())) == 1  # the shared stack's is untouched
    deleted(stoker, admin, "bp-shared")
