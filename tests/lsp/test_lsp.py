"""``stoker lsp`` end to end: pygls's client drives the server process over stdio, on
templates of the corpus (copied into a temporary directory, beside the files they need)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from lsprotocol import types

from .client import Session, at

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus" / "data"
HOT = CORPUS / "openstack__heat-templates" / "hot"
NET = HOT / "servers_in_new_neutron_net.yaml"  # 2013-05-23
CONDITIONS = HOT / "condition.yaml"  # 2017-02-24
BARBICAN = HOT / "barbican"  # container_generic.yaml uses ./secret.yaml as a type
BLUEPRINT = ROOT / "examples" / "blueprints" / "1-script-server.map.yaml"


@pytest.fixture(scope="module")
def session() -> Iterator[Session]:
    running = Session()
    try:
        yield running
    finally:
        running.close()


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("lsp")
    for source in (NET, CONDITIONS, *BARBICAN.glob("*.yaml")):
        shutil.copy(source, directory / source.name)
    return directory


def where(text: str, needle: str, nth: int = 0, offset: int = 0) -> tuple[int, int]:
    """The 0-based line and column of the ``nth`` occurrence of ``needle`` (plus offset)."""
    index = -1
    for _ in range(nth + 1):
        index = text.index(needle, index + 1)
    line = text.count("\n", 0, index)
    return line, index - (text.rfind("\n", 0, index) + 1) + offset


def labels(result: types.CompletionList | list[types.CompletionItem] | None) -> list[str]:
    items = result.items if isinstance(result, types.CompletionList) else (result or [])
    return [item.label for item in items]


def complete(session: Session, uri: str, line: int, column: int) -> list[str]:
    params = types.CompletionParams(**at(uri, line, column))
    return labels(session.call(session.client.text_document_completion_async(params)))


# --------------------------------------------------------------------------- diagnostics


def test_diagnostics_follow_the_buffer_with_rule_ids_severities_and_ranges(session, work):
    path = work / NET.name
    text = path.read_text()
    uri = session.open(path)
    found = session.diagnostics(uri)
    codes = {d.code for d in found}
    assert "W1091" in codes  # the deprecated 2013-05-23 version
    assert all(d.severity != types.DiagnosticSeverity.Error for d in found)
    broken = text.replace("      key_name: { get_param: key_name }", "      key_nam: 1", 1)
    session.change(uri, broken)
    errors = [d for d in session.diagnostics(uri) if d.severity == types.DiagnosticSeverity.Error]
    assert [d.code for d in errors] == ["E1081"]
    line, column = where(broken, "key_nam: 1")
    assert errors[0].range == types.Range(
        types.Position(line, column), types.Position(line, column + len("key_nam"))
    )
    session.change(uri, text)
    assert not [d for d in session.diagnostics(uri) if d.code == "E1081"]


def test_a_burst_of_changes_ends_with_the_diagnostics_of_the_last(session, work):
    path = work / NET.name
    text = path.read_text()
    uri = session.open(path)
    session.diagnostics(uri)
    for number in range(5):  # sent without waiting, as keystrokes are
        session.change(
            uri, text.replace("key_name: { get_param", f"key_nam{number}: {{ get_param", 1)
        )
    session.wait_for(uri, lambda found: any("key_nam4" in d.message for d in found))
    assert not any("key_nam3" in d.message for d in session.published[uri])
    session.change(uri, text)
    session.wait_for(uri, lambda found: not any(d.code == "E1081" for d in found))


def test_an_environment_beside_the_template_is_paired_with_it(session, work):
    template = work / "mapped.yaml"
    text = "heat_template_version: 2021-04-16\nresources:\n  box:\n    type: My::Box\n"
    template.write_text(text)
    uri = session.open(template)
    assert "E3001" in {d.code for d in session.diagnostics(uri) if "My::Box" in d.message}
    environment = work / "mapped_env.yaml"
    environment.write_text("resource_registry:\n  My::Box: OS::Heat::None\n")
    session.expect(uri)  # the template is checked again with its environment
    env_uri = session.open(environment)
    assert not [d for d in session.diagnostics(uri) if "My::Box" in d.message]
    assert not session.diagnostics(env_uri)
    session.change(env_uri, "resource_registry:\n  My::Box: OS::Heat::None\nparamters: {}\n")
    found = session.diagnostics(env_uri)  # the environment's own mistakes
    assert [d.range.start.line for d in found if d.severity == types.DiagnosticSeverity.Error] == [
        2
    ]
    session.change(env_uri, "resource_registry:\n  My::Box: OS::Heat::None\nparameters: {a: 1}\n")
    found = session.diagnostics(env_uri)  # checked with the template it is named after
    assert [(d.code, d.range.start.line) for d in found] == [("E1023", 2)]


CONFIGURED = """heat_template_version: 2021-04-16
parameters:
  flavor: {type: string, description: the flavor}
resources:
  box:
    type: My::Box
outputs:
  flavor: {value: {get_param: flavor}}
"""


def test_the_lint_config_pairs_environments_its_way(session, tmp_path):
    """``environments`` in .stoker-lint.yaml pairs a template with files not named after
    it: the template is checked with them, each of them with the template, and a change
    of one checks the template again."""
    (tmp_path / "env").mkdir()
    common = tmp_path / "env" / "common.yaml"
    common.write_text("resource_registry:\n  My::Box: OS::Heat::None\n")
    prod = tmp_path / "env" / "prod.yaml"
    prod.write_text("parameters:\n  flavour: m1.large\n")
    (tmp_path / ".stoker-lint.yaml").write_text(
        "environments:\n  app.yaml: [env/common.yaml, env/prod.yaml]\n"
    )
    (tmp_path / "app.yaml").write_text(CONFIGURED)
    (tmp_path / "other.yaml").write_text(CONFIGURED)
    app = session.open(tmp_path / "app.yaml")
    assert not session.diagnostics(app)  # My::Box mapped by env/common.yaml
    other = session.open(tmp_path / "other.yaml")  # paired by name: with nothing
    assert [d.code for d in session.diagnostics(other)] == ["E3001"]
    prod_uri = session.open(prod)
    found = session.diagnostics(prod_uri)  # checked with app.yaml: flavour is not its
    assert [(d.code, d.range.start.line) for d in found] == [("E1023", 1)]
    common_uri = session.open(common)
    assert not session.diagnostics(common_uri)
    session.expect(app)
    session.change(common_uri, "resource_registry: {}\n")
    session.wait_for(app, lambda found: [d.code for d in found] == ["E3001"])


def test_a_lint_config_that_cannot_be_used_is_shown_once(session, tmp_path):
    (tmp_path / ".stoker-lint.yaml").write_text("environments:\n  app.yaml: [gone.yaml]\n")
    (tmp_path / "app.yaml").write_text(CONFIGURED)
    uri = session.open(tmp_path / "app.yaml")
    assert [d.code for d in session.diagnostics(uri)] == ["E3001"]  # checked with defaults
    shown = session.wait_for_message(lambda message: "gone.yaml" in message)
    assert "defaults apply" in shown and "not found" in shown
    session.change(uri, CONFIGURED + "# a change\n")
    session.diagnostics(uri)
    assert len([message for message in session.messages if "gone.yaml" in message]) == 1


def test_a_provider_template_and_get_file_are_read_relative_to_the_file(session, work):
    path = work / "container_generic.yaml"
    uri = session.open(path)
    assert not [d for d in session.diagnostics(uri) if d.severity == types.DiagnosticSeverity.Error]
    extra = "  extra:\n    type: OS::Heat::Value\n    properties:\n"
    extra += "      value: {get_file: missing.txt}\n"
    text = path.read_text().replace("resources:\n", "resources:\n" + extra, 1)
    session.change(uri, text)
    errors = [d for d in session.diagnostics(uri) if d.severity == types.DiagnosticSeverity.Error]
    assert errors and "missing.txt" in errors[0].message


def test_a_blueprints_mistakes_are_reported(session, work):
    path = work / BLUEPRINT.name
    text = BLUEPRINT.read_text().replace("components:\n", "components:\n  bad: 3\n", 1)
    uri = session.open(path, text)
    messages = [d.message for d in session.diagnostics(uri)]
    assert any('component "bad" must be a mapping' in m for m in messages)


# --------------------------------------------------------------------------- completion


def test_completion_offers_what_fits_the_place(session, work):
    text = (work / NET.name).read_text()
    uri = session.open(work / NET.name)
    session.diagnostics(uri)
    line, column = where(text, "get_resource: server1_port", offset=len("get_resource: "))
    assert "server1_port" in complete(session, uri, line, column)  # get_resource targets
    line, column = where(text, "server1, first_address", offset=len("server1, "))
    attributes = complete(session, uri, line, column)  # get_attr: that resource's attributes
    assert {"networks", "addresses", "console_urls"} <= set(attributes)
    assert "first_address" not in attributes  # hidden: works, but not offered
    line, column = where(text, "get_param: image", offset=len("get_param: "))
    assert {"image", "flavor", "key_name"} <= set(complete(session, uri, line, column))
    line, column = where(text, "      image: { get_param: image }")
    properties = complete(session, uri, line, column + 6)  # property names of OS::Nova::Server
    assert {"image", "flavor", "networks", "user_data"} <= set(properties)
    line, column = where(text, "type: OS::Nova::Server", offset=len("type: OS::Nova::"))
    assert "OS::Nova::Server" in complete(session, uri, line, column)  # resource types
    assert {"resources", "outputs", "parameters"} <= set(complete(session, uri, 0, 0))
    functions = complete(session, uri, line + 2, len("      image: "))
    assert "get_param" in functions and "str_split" not in functions  # 2013-05-23's


def test_completion_of_conditions_functions_and_allowed_values(session, work):
    text = (work / CONDITIONS.name).read_text()
    uri = session.open(work / CONDITIONS.name)
    session.diagnostics(uri)
    line, column = where(text, "condition: prod", offset=len("condition: "))
    assert {"prod", "test", "beijing_prod"} <= set(complete(session, uri, line, column))
    line, column = where(text, "      value: prod_res", offset=len("      value: "))
    functions = complete(session, uri, line, column)
    assert {"str_replace_strict", "filter", "yaql"} <= set(functions)  # 2017-02-24's
    assert "make_url" not in functions  # from 2017-09-01 on
    vm = "  vm:\n    type: OS::Nova::Server\n    properties:\n      flavor_update_policy: \n"
    server = text.replace("resources:\n", "resources:\n" + vm, 1)
    session.change(uri, server)
    session.diagnostics(uri)
    line, column = where(server, "flavor_update_policy: ", offset=len("flavor_update_policy: "))
    assert {"RESIZE", "REPLACE"} <= set(complete(session, uri, line, column))


BLOCK_STYLE = """heat_template_version: 2021-04-16
parameters:
  flavor: {type: string, default: m1.small}
resources:
  net:
    type: OS::Neutron::Net
  server:
    type: OS::Nova::Server
    depends_on:
      - net
    properties:
      flavor:
        get_param:
          - flavor
      image: cirros
      networks:
        - network:
            get_resource:
              net
outputs:
  ip:
    value:
      get_attr:
        - server
        - first_address
  flat:
    value:
      get_attr:
      - net
      - status
"""


def test_completion_of_arguments_written_in_block_style(session, work):
    text = BLOCK_STYLE
    uri = session.open(work / "block_style.yaml", text)
    session.diagnostics(uri)

    def at_item(needle: str, nth: int = 0) -> list[str]:
        line, column = where(text, needle, nth)
        return complete(session, uri, line, column + len(needle) - len(needle.lstrip("- ")))

    resources = {"net", "server"}
    assert resources <= set(at_item("- server"))  # get_attr's first item
    server = at_item("- first_address")  # its second: the attributes of server's type
    assert {"networks", "addresses", "console_urls"} <= set(server)
    assert "status" not in server
    assert "status" in at_item("- status")  # dashes at the key's indentation: net's
    assert resources <= set(at_item("- net"))  # depends_on
    assert "flavor" in at_item("- flavor")  # get_param's first item
    line, column = where(text, "              net")
    assert resources <= set(complete(session, uri, line, column + len("              ")))


# --------------------------------------------------------------------------- hover


def hover_text(session: Session, uri: str, line: int, column: int) -> str:
    result = session.call(
        session.client.text_document_hover_async(types.HoverParams(**at(uri, line, column)))
    )
    assert result is not None
    return str(result.contents.value)


def test_hover_explains_types_properties_parameters_and_functions(session, work):
    text = (work / NET.name).read_text()
    uri = session.open(work / NET.name)
    session.diagnostics(uri)
    line, column = where(text, "OS::Nova::Server", offset=3)
    assert "supported" in hover_text(session, uri, line, column)
    line, column = where(text, "      flavor: { get_param: flavor }", offset=8)
    assert "flavor" in hover_text(session, uri, line, column).lower()
    line, column = where(text, "get_param: flavor", offset=len("get_param: f"))
    assert "parameter flavor: string" in hover_text(session, uri, line, column)
    line, column = where(text, "get_attr", offset=2)
    assert "get_attr" in hover_text(session, uri, line, column)
    line, column = where(
        text, "server1_floating_ip, floating_ip_address", offset=len("server1_floating_ip, f")
    )
    assert "floating_ip_address of server1_floating_ip" in hover_text(session, uri, line, column)


# --------------------------------------------------------------------------- navigation


def definition_of(session: Session, uri: str, line: int, column: int) -> types.Location:
    params = types.DefinitionParams(**at(uri, line, column))
    result = session.call(session.client.text_document_definition_async(params))
    assert isinstance(result, types.Location), result
    return result


def test_go_to_definition_of_resources_parameters_conditions_and_providers(session, work):
    text = (work / NET.name).read_text()
    uri = session.open(work / NET.name)
    session.diagnostics(uri)
    line, column = where(text, "get_resource: server1_port", offset=len("get_resource: s"))
    target = definition_of(session, uri, line, column)
    assert target.range.start == types.Position(*where(text, "  server1_port:", offset=2))
    line, column = where(text, "server1, first_address", offset=2)
    assert definition_of(session, uri, line, column).range.start == types.Position(
        *where(text, "  server1:", offset=2)
    )
    line, column = where(text, "get_param: flavor", offset=len("get_param: f"))
    assert definition_of(session, uri, line, column).range.start == types.Position(
        *where(text, "  flavor:", offset=2)
    )
    conditions = (work / CONDITIONS.name).read_text()
    curi = session.open(work / CONDITIONS.name)
    session.diagnostics(curi)
    line, column = where(conditions, "condition: prod", offset=len("condition: p"))
    assert definition_of(session, curi, line, column).range.start == types.Position(
        *where(conditions, "  prod:", offset=2)
    )
    generic = (work / "container_generic.yaml").read_text()
    guri = session.open(work / "container_generic.yaml")
    session.diagnostics(guri)
    line, column = where(generic, "./secret.yaml", offset=3)
    assert definition_of(session, guri, line, column).uri.endswith("/secret.yaml")


def test_references_symbols_and_rename(session, work):
    text = (work / NET.name).read_text()
    uri = session.open(work / NET.name)
    session.diagnostics(uri)
    line, column = where(text, "  private_net:", offset=3)
    params = types.ReferenceParams(context=types.ReferenceContext(True), **at(uri, line, column))
    found = session.call(session.client.text_document_references_async(params))
    uses = text.count("get_resource: private_net }")
    assert len(found) == uses + 1  # the definition and each get_resource
    symbols = session.call(
        session.client.text_document_document_symbol_async(
            types.DocumentSymbolParams(types.TextDocumentIdentifier(uri))
        )
    )
    outline = {symbol.name: [child.name for child in symbol.children or []] for symbol in symbols}
    assert outline["parameters"][:3] == ["key_name", "image", "flavor"]
    assert "server1_port" in outline["resources"] and "server1_public_ip" in outline["outputs"]
    rename = types.RenameParams(new_name="inner_net", **at(uri, line, column))
    edit = session.call(session.client.text_document_rename_async(rename))
    edits = edit.changes[uri]
    assert len(edits) == uses + 1 and {e.new_text for e in edits} == {"inner_net"}
    line, column = where(text, "get_param: key_name", offset=len("get_param: k"))
    rename = types.RenameParams(new_name="keypair", **at(uri, line, column))
    edits = session.call(session.client.text_document_rename_async(rename)).changes[uri]
    assert len(edits) == text.count("get_param: key_name") + 1


def many(default: str, broken: int | None = None) -> str:
    """Forty resources and one that picks from a parameter's default."""
    lines = ["heat_template_version: 2021-04-16", "parameters:"]
    lines += [f"  csv: {{type: string, default: '{default}', description: items}}", "resources:"]
    for index in range(40):
        key = "typ" if index == broken else "type"
        lines += [f"  value{index}:", "    type: OS::Heat::Value", "    properties:"]
        lines += [f"      value: v{index}", f"      {key}: string"]
    lines += ["  pick:", "    type: OS::Heat::Value", "    properties:"]
    lines += ["      value: {str_split: [',', {get_param: csv}, 5]}", ""]
    return "\n".join(lines)


def test_a_change_rechecks_what_it_touches_and_what_depends_on_it(session, work):
    """Unchanged resources' findings are reused between changes; a change elsewhere in
    the template (a parameter's default) that changes what they mean checks them again."""
    path = work / "many.yaml"
    uri = session.open(path, many("a,b"))
    assert [d.code for d in session.diagnostics(uri)] == ["E1038"]  # index 5 of two items
    session.change(uri, many("a,b", broken=7))
    found = session.diagnostics(uri)
    assert sorted(d.code for d in found) == ["E1038", "E1081"]
    assert [d.range.start.line for d in found if d.code == "E1081"] == [4 + 7 * 5 + 4]
    session.change(uri, many("a,b,c,d,e,f", broken=7))  # the pick is right now
    assert [d.code for d in session.diagnostics(uri)] == ["E1081"]
    session.change(uri, many("a,b,c,d,e,f"))
    assert not session.diagnostics(uri)
