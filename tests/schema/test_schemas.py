"""The JSON Schemas accept the corpus's templates and refuse broken ones; the committed
copies under schemas/ are what the code generates."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from corpus.test_corpus import KNOWN_INVALID
from stoker.cli.main import cli
from stoker.lint import lint
from stoker.schema import committed_schemas, environment_schema, render, template_schema
from stoker.template.loader import load_document, read_file
from stoker.template.nodes import plain
from stoker.template.versions import HOT_VERSIONS, TemplateVersion, hot, lookup

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus" / "data"
REGENERATE = ".venv/bin/python -m stoker.schema"

#: HOT templates stoker's validate accepts that the schema refuses, and why: each has a
#: property its type does not declare, or lacks a required one (the schema checks what
#: Heat checks when it creates the resource; validate without a cloud does not), so
#: Heat refuses them too. The test checks that `stoker lint` reports the same.
PROPERTY_MISTAKES: dict[str, str] = {
    "openstack__heat-templates/hot/designate/desginate_domain.yaml": "OS::Designate::Domain is retired (hidden since Heat 10): no properties left",
    "openstack__heat-templates/hot/designate/desginate_record.yaml": "OS::Designate::Record is retired (hidden since Heat 10): no properties left",
    "openstack__heat-templates/hot/octavia/servers_with_octavia.yaml": "OS::Octavia::HealthMonitor has no max_retries_down property",
    "openstack__heat-templates/hot/software-config/example-templates/example-chef-template.yaml": "StructuredConfig's config is a map, given a list",
    "openstack__heat-templates/openshift-origin/centos65/highly-available/invalid/oso_ha.yaml": "an upstream 'invalid' example: LBaaS v1 pool properties",
    "openstack__heat/_extracted/rst/doc/source/template_guide/composition.rst/L119.yaml": "doc snippet: OS::Nova::Server without its required flavor",
}


@cache
def validator(version: TemplateVersion) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(template_schema(version))


def test_the_schemas_are_valid_draft_2020_12():
    # one template version (they share their structure) and the environment: checking a
    # schema against the metaschema takes a second each
    jsonschema.Draft202012Validator.check_schema(template_schema(hot("2016-10-14")))
    jsonschema.Draft202012Validator.check_schema(environment_schema())


def hot_corpus() -> list[str]:
    records = json.loads((CORPUS / "index.json").read_text())
    return [r["path"] for r in records if r["kind"] == "hot" and r["path"] not in KNOWN_INVALID]


def errors_of(data: object) -> list[str]:
    assert isinstance(data, dict)
    version = lookup("heat_template_version", str(data.get("heat_template_version")))
    assert version is not None
    return [error.message for error in validator(version).iter_errors(data)]


def test_the_corpus_is_accepted_but_for_the_property_mistakes_the_linter_finds_too():
    paths = hot_corpus()
    assert len(paths) > 100
    refused = {path for path in paths if errors_of(plain(read_file(str(CORPUS / path)).data))}
    assert refused == set(PROPERTY_MISTAKES)
    report = lint([str(CORPUS / path) for path in sorted(refused)])
    flagged = {
        Path(finding.span.file).resolve()
        for finding in report.findings
        if finding.code in ("E1080", "E1081") and finding.span is not None
    }
    assert flagged == {(CORPUS / path).resolve() for path in refused}


BASE = """\
heat_template_version: {version}
parameters:
  size: {{type: number, default: 1}}
resources:
  net: {{type: OS::Neutron::Net}}
  server:
    type: OS::Nova::Server
    properties:
"""

#: (what is wrong, version, the server's properties or a whole template)
BROKEN = [
    ("unknown section", "2021-04-16", "heat_template_version: 2021-04-16\nresorces: {}\n"),
    ("property of the wrong type", "2021-04-16", "      flavor: m1\n      networks: eth0\n"),
    ("missing required property", "2021-04-16", "      image: cirros\n"),
    ("unknown property", "2021-04-16", "      flavor: m1\n      flavour: m1\n"),
    ("value not allowed", "2021-04-16", "      flavor: m1\n      flavor_update_policy: NOW\n"),
    ("function unknown in that version", "2013-05-23", "      flavor: {str_split: [',', 'a,b']}\n"),
    ("function removed in that version", "2015-10-15", "      flavor: {'Fn::Select': [0, [a]]}\n"),
    ("unknown resource key", "2021-04-16", "      flavor: m1\n    propertes: {}\n"),
    (
        "condition key before conditions existed",
        "2016-04-08",
        "      flavor: m1\n    condition: c\n",
    ),
]


@pytest.mark.parametrize(("wrong", "version", "text"), BROKEN, ids=[b[0] for b in BROKEN])
def test_a_broken_template_is_refused(wrong, version, text):
    source = (
        text if text.startswith("heat_template_version") else BASE.format(version=version) + text
    )
    assert errors_of(plain(load_document(source).data)), wrong


def test_the_same_template_fixed_is_accepted():
    fixed = (
        BASE.format(version="2021-04-16")
        + "      flavor: {get_param: size}\n      networks: [{network: {get_resource: net}}]\n"
    )
    assert errors_of(plain(load_document(fixed).data)) == []
    later = BASE.format(version="2013-05-23") + "      flavor: {'Fn::Select': [0, [a]]}\n"
    assert errors_of(plain(load_document(later).data)) == []


def test_environment_schema_accepts_an_environment_and_refuses_an_unknown_section():
    check = jsonschema.Draft202012Validator(environment_schema())
    good = (
        "parameters: {a: 1}\nresource_registry:\n  My::Type: my.yaml\n"
        "parameter_merge_strategies: {a: merge}\n"
    )
    assert not list(check.iter_errors(plain(load_document(good).data)))
    assert list(check.iter_errors(plain(load_document("paramters: {a: 1}\n").data)))


def test_every_version_has_its_schema_and_the_committed_files_are_current():
    files = committed_schemas()
    assert len(files) == len(HOT_VERSIONS) + 1
    stale = [
        name
        for name, schema in files.items()
        if not (ROOT / "schemas" / name).exists()
        or (ROOT / "schemas" / name).read_text(encoding="utf-8") != render(schema)
    ]
    assert not stale, f"schemas/ is out of date ({', '.join(stale)}): run {REGENERATE}"


def test_a_cfn_version_is_refused():
    with pytest.raises(ValueError, match="CFN"):
        template_schema(lookup("AWSTemplateFormatVersion", "2010-09-09"))  # type: ignore[arg-type]
    assert hot("wallaby").value == "2021-04-16"


def test_the_cli_prints_the_committed_schemas():
    runner = CliRunner()
    printed = runner.invoke(cli, ["schema", "template", "--version", "pike"])
    assert printed.exit_code == 0
    assert printed.output == (ROOT / "schemas" / "template-2017-09-01.json").read_text()
    printed = runner.invoke(cli, ["schema", "environment"])
    assert printed.output == (ROOT / "schemas" / "environment.json").read_text()
    refused = runner.invoke(cli, ["schema", "template", "--version", "2010-09-09"])
    assert refused.exit_code == 2 and "2010-09-09" in refused.output
