"""Fulfillment by a resource of an existing stack (`stoker.blueprint.existing`): the
stack is really created in a store (SQLite, in process), then named by a blueprint."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from stoker.blueprint.build import compile_source, file_source
from stoker.blueprint.existing import engine_lookup, parse_reference
from stoker.blueprint.explain import explain
from stoker.cli.main import cli
from stoker.cli.stack_session import Session
from stoker.engine.settings import EngineSettings

from .conftest import sandbox_facts

pytestmark = pytest.mark.heavy

#: a user library type for a database server the blueprint does not make: it offers
#: ``database`` and gives the ``address`` a jetty receives
LIBRARY_DB = """\
heat_template_version: 2018-08-31
capabilities:
  resource_type: Blueprint::Acme::Postgres
  implementation: com.acme.Postgres
  component: [postgres]
  offers: database
parameters:
  address: {type: string, default: 10.1.2.3}
resources:
  v: {type: OS::Heat::Value, properties: {value: {get_param: address}}}
outputs:
  address: {value: {get_attr: [v, value]}}
"""
STACK = """\
heat_template_version: 2018-08-31
resources:
  db: {type: Blueprint::Acme::Postgres, properties: {address: 10.9.8.7}}
  other: {type: OS::Heat::Value, properties: {value: x}}
"""


def stoker(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(
        cli, list(args), env={"OS_CLOUD": "", "OS_AUTH_URL": "", "STOKER_DB_URL": ""}
    )
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def stack_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A store with stack ``dbs``: a Postgres made from the user library's template (as
    compiled: without its capabilities) and an OS::Heat::Value; made once, only read."""
    directory = tmp_path_factory.mktemp("existing")
    provider = LIBRARY_DB.split("capabilities:")[0] + LIBRARY_DB.split("offers: database\n")[1]
    (directory / "postgres.yaml").write_text(provider)
    (directory / "main.yaml").write_text(STACK)
    (directory / "env.yaml").write_text(
        "resource_registry:\n  Blueprint::Acme::Postgres: postgres.yaml\n"
    )
    db = str(directory / "s.db")
    code, _, err = stoker(
        "--db", db, "stack", "create", "dbs", "-t", str(directory / "main.yaml"),
        "-e", str(directory / "env.yaml"),
    )  # fmt: skip
    assert code == 0, err
    return db


@pytest.fixture
def world(stack_db: str, tmp_path: Path) -> dict[str, Any]:
    """The store, a user library directory of this test's own, where to write blueprints."""
    library = tmp_path / "library"
    library.mkdir()
    (library / "postgres.yaml").write_text(LIBRARY_DB)
    return {"db": stack_db, "library": str(library), "dir": tmp_path}


def blueprint(directory: Path, fulfillment: str, kind: str = "database") -> str:
    path = directory / "bp.yaml"
    path.write_text(
        "components:\n"
        "  app:\n"
        "    type: jetty\n"
        "    requires:\n"
        f"      {kind}: {{fulfillment: '{fulfillment}'}}\n"
    )
    return str(path)


def lookup(world: dict[str, Any], project: str = "default") -> Any:
    session = Session(world["db"], EngineSettings(project=project))
    return engine_lookup(session.engine(), project)


@pytest.mark.parametrize(
    ("text", "stack", "stack_id", "resource"),
    [
        ("stack:dbs/db", "dbs", None, "db"),
        ("stacks/dbs/resources/db", "dbs", None, "db"),
        ("stacks/dbs/1234/resources/db", "dbs", "1234", "db"),
        ("http://h:8004/v1/p/stacks/dbs/1234/resources/db", "dbs", "1234", "db"),
        ("https://h/orchestration/v1/p/stacks/dbs/1234/resources/db/", "dbs", "1234", "db"),
    ],
)
def test_references_heat_shows_and_short(
    text: str, stack: str, stack_id: Any, resource: str
) -> None:
    found = parse_reference(text)
    assert found is not None
    assert (found.stack, found.stack_id, found.resource) == (stack, stack_id, resource)


@pytest.mark.parametrize("text", ["db", "id:db", "stack:dbs", "stacks/dbs", "http://x/y"])
def test_component_ids_are_no_references(text: str) -> None:
    assert parse_reference(text) is None


def test_existing_database_gives_its_address_as_a_literal(world: dict[str, Any]) -> None:
    path = blueprint(world["dir"], "stack:dbs/db")
    analysis, compiled = compile_source(
        file_source(path), sandbox_facts(), libraries=[world["library"]], existing=lookup(world)
    )
    assert analysis.ok, [str(d) for d in analysis.diagnostics]
    assert compiled is not None and compiled.ok, [str(d) for d in compiled.diagnostics]
    app = compiled.template["resources"]["app"]
    assert app["properties"]["database_address"] == "10.9.8.7"
    assert "stack:dbs/db" not in compiled.template["resources"]  # nothing made for it
    assert 'the existing resource "db" (Blueprint::Acme::Postgres) of stack "dbs"' in (
        compiled.text
    )
    assert analysis.decisions is not None
    data = explain(analysis.decisions, compiled)
    app_entry = next(c for c in data["components"] if c["id"] == "app")
    database = next(r for r in app_entry["requirements"] if r["type"] == "database")
    assert database["fulfilled_by"] == ["stack:dbs/db"]
    (existing,) = database["existing"]
    assert existing["stack"] == "dbs" and existing["resource"] == "db"
    assert existing["implementation"] == "com.acme.Postgres"
    assert existing["status"] == "CREATE_COMPLETE" and existing["physical_id"]


def test_heat_link_with_the_wrong_id_and_other_projects(world: dict[str, Any]) -> None:
    path = blueprint(world["dir"], "http://h:8004/v1/p/stacks/dbs/not-its-id/resources/db")
    analysis, _ = compile_source(
        file_source(path), sandbox_facts(), libraries=[world["library"]], existing=lookup(world)
    )
    (error,) = [d for d in analysis.diagnostics if d.is_error]
    assert "not not-its-id" in error.message and f"{path}:5:" in str(error.span)
    analysis, _ = compile_source(
        file_source(blueprint(world["dir"], "stack:dbs/db")),
        sandbox_facts(),
        libraries=[world["library"]],
        existing=lookup(world, "another"),
    )
    (error,) = [d for d in analysis.diagnostics if d.is_error]
    assert 'there is no stack "dbs" in project "another"' in error.message


@pytest.mark.parametrize(
    ("fulfillment", "kind", "reason"),
    [
        ("stack:nope/db", "database", 'there is no stack "nope"'),
        (
            "stack:dbs/nope",
            "database",
            'stack "dbs" has no resource "nope" (its resources: db, other)',
        ),
        ("stack:dbs/other", "database", "its type OS::Heat::Value is no component type"),
        ("stack:dbs/db", "host", "com.acme.Postgres (postgres.yaml): it does not offer host"),
    ],
)
def test_what_cannot_fulfil_is_a_located_error(
    world: dict[str, Any], fulfillment: str, kind: str, reason: str
) -> None:
    path = blueprint(world["dir"], fulfillment, kind)
    analysis, compiled = compile_source(
        file_source(path), sandbox_facts(), libraries=[world["library"]], existing=lookup(world)
    )
    assert compiled is None
    errors = [d for d in analysis.diagnostics if d.is_error]
    assert len(errors) == 1, [str(d) for d in errors]
    assert f'fulfillment names the existing stack resource "{fulfillment}"' in errors[0].message
    assert reason in errors[0].message
    assert str(errors[0].span).startswith(f"{path}:5:")


def test_an_existing_resource_is_not_changed(world: dict[str, Any], tmp_path: Path) -> None:
    # a load balancer would receive the tier's addresses: an existing one cannot
    library = Path(world["library"])
    (library / "lb.yaml").write_text(
        "heat_template_version: 2018-08-31\n"
        "capabilities:\n"
        "  resource_type: Blueprint::Acme::Postgres\n"
        "  implementation: com.acme.Receiver\n"
        "  component: [receiver]\n"
        "  offers: database\n"
        "  receive.database: peers/address\n"
        "parameters:\n  peers: {type: string, default: ''}\n"
    )
    (library / "postgres.yaml").unlink()
    path = blueprint(world["dir"], "stack:dbs/db")
    analysis, _ = compile_source(
        file_source(path), sandbox_facts(), libraries=[world["library"]], existing=lookup(world)
    )
    (error,) = [d for d in analysis.diagnostics if d.is_error]
    assert "it would receive its peers from app, and an existing resource is not changed" in (
        error.message
    )


CLIENT = """\
heat_template_version: 2018-08-31
capabilities:
  resource_type: Blueprint::Acme::Client
  implementation: com.acme.Client
  component: [client]
  requirement.database: fulfillment
  receive.database: db_address/address
parameters:
  db_address: {type: string}
resources:
  v: {type: OS::Heat::Value, properties: {value: {get_param: db_address}}}
outputs:
  db: {value: {get_attr: [v, value]}}
"""


def client(directory: Path, fulfillment: str) -> str:
    path = blueprint(directory, fulfillment)
    Path(path).write_text(Path(path).read_text().replace("jetty", "client"))
    return path


def test_cli_explain_and_compile_use_the_store(world: dict[str, Any]) -> None:
    path = blueprint(world["dir"], "stacks/dbs/resources/db")
    code, out, err = stoker(
        "--db", world["db"], "blueprint", "explain", "--library", world["library"], path
    )
    assert code == 0, err
    assert (
        "requires database (type from key): fulfilled by stacks/dbs/resources/db: named by "
        'fulfillment; stacks/dbs/resources/db is the existing resource "db" '
        '(Blueprint::Acme::Postgres) of stack "dbs"'
    ) in out
    code, out, err = stoker(
        "--db", world["db"], "blueprint", "explain", "-f", "json", "--library",
        world["library"], blueprint(world["dir"], "stack:dbs/nope"),
    )  # fmt: skip
    assert code == 1
    assert f"{path}:5:" in err and 'has no resource "nope"' in err
    # a client type that needs no cloud: compiled, and created, without one
    (Path(world["library"]) / "client.yaml").write_text(CLIENT)
    path = client(world["dir"], "stack:dbs/db")
    code, out, err = stoker(
        "--db", world["db"], "blueprint", "compile", "--library", world["library"], path
    )
    assert code == 0, err
    assert "db_address: 10.9.8.7" in out
    code, out, err = stoker(
        "--db", world["db"], "blueprint", "compile", "--library", world["library"],
        client(world["dir"], "stack:dbs/other"),
    )  # fmt: skip
    assert code == 1 and "its type OS::Heat::Value is no component type" in err


def test_stack_create_and_update_compile_a_blueprint(world: dict[str, Any]) -> None:
    """``stack create`` and ``stack update`` compile through one function, with the
    store's stacks and ``--library``; the stack keeps the blueprint as its source."""
    (Path(world["library"]) / "client.yaml").write_text(CLIENT)
    path = client(world["dir"], "stack:dbs/db")
    db, library = world["db"], world["library"]
    name = f"app-{world['dir'].name}"  # the store is the module's
    code, _, err = stoker("--db", db, "stack", "create", name, "-t", path, "--library", library)
    assert code == 0, err
    code, out, _ = stoker("--db", db, "stack", "output", "show", name, "app_db", "-f", "json")
    assert code == 0 and json.loads(out)["output_value"] == "10.9.8.7"
    second = Path(path).read_text() + "  more:\n    type: client\n    requires:\n"
    second += "      database: {fulfillment: 'stack:dbs/db'}\n"
    Path(path).write_text(second)
    code, _, err = stoker("--db", db, "stack", "update", name, "-t", path, "--library", library)
    assert code == 0, err
    code, out, _ = stoker("--db", db, "stack", "resource", "list", name, "-f", "json")
    assert sorted(r["resource_name"] for r in json.loads(out)) == ["app", "more"]
    code, out, _ = stoker("--db", db, "stack", "template", "show", name, "--source")
    assert code == 0 and out == second
    # a blueprint that cannot be compiled changes nothing, and says where
    Path(path).write_text(second.replace("stack:dbs/db", "stack:dbs/gone"))
    code, _, err = stoker("--db", db, "stack", "update", name, "-t", path, "--library", library)
    assert code == 1 and f"{path}:5:" in err and 'has no resource "gone"' in err
    code, out, _ = stoker("--db", db, "stack", "template", "show", name, "--source")
    assert out == second


def test_template_validate_compiles_a_blueprint_first(world: dict[str, Any]) -> None:
    (Path(world["library"]) / "client.yaml").write_text(CLIENT)
    db, library = world["db"], world["library"]
    path = client(world["dir"], "stack:dbs/db")
    code, out, err = stoker(
        "--db", db, "template", "validate", path, "--library", library, "-f", "json"
    )
    assert code == 0, err
    assert json.loads(out)["Description"] == "compiled from a blueprint"
    # a server needs the cloud's flavors and images: without one, the reason and the remedy
    path = blueprint(world["dir"], "stack:dbs/db")
    code, _, err = stoker("--db", db, "template", "validate", path, "--library", library)
    assert code == 1
    assert f"{path}:1:" in err or f"{path}:2:" in err
    assert 'component "app_host" (server) needs a cloud to choose its flavor' in err
    assert "--os-cloud" in err
    # a blueprint's own mistakes are located in it
    Path(path).write_text("components:\n  app: {type: nosuch}\n")
    code, _, err = stoker("template", "validate", path)
    assert code == 1 and f"{path}:2:" in err and 'unknown component type "nosuch"' in err
