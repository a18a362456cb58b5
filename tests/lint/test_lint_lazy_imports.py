"""``stoker lint --profile onap`` imports only what linting a package needs.

The whole-process time of the ONAP lint is measured against a bare YAML load
(benchmarks/lint_process.py), and start-up is a large part of it: these modules are
imported where they are used, not at start-up. Each case runs ``stoker`` in a fresh
interpreter (this test process has imported everything already) and lists the modules
it loaded.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

MODULE = """\
heat_template_version: 2015-04-30
description: base module
parameters:
  vnf_name: {type: string, description: VNF name}
  lb_image_name: {type: string, description: image}
  lb_flavor_name: {type: string, description: flavor}
  oam_net_id: {type: string, description: network}
resources:
  lb_0_oam_port_0:
    type: OS::Neutron::Port
    properties:
      network: {get_param: oam_net_id}
  lb_server_0:
    type: OS::Nova::Server
    properties:
      image: {get_param: lb_image_name}
      flavor: {get_param: lb_flavor_name}
      networks: [{port: {get_resource: lb_0_oam_port_0}}]
      metadata:
        vnf_name: {get_param: vnf_name}
  lb_group:
    type: OS::Heat::ResourceGroup
    properties:
      count: 1
      resource_def:
        type: lb_nested.yaml
        properties:
          vnf_name: {get_param: vnf_name}
"""
NESTED = """\
heat_template_version: 2015-04-30
description: nested
parameters:
  vnf_name: {type: string, description: VNF name}
resources:
  lb_value:
    type: OS::Heat::Value
    properties:
      value: {get_param: vnf_name}
"""

_PROBE = """
import json, sys
from stoker.cli.main import main
try:
    main()
except SystemExit:
    pass
modules = sorted(sys.modules)  # before the catalog is looked at here
from stoker.resources.catalog import heat_catalog
built = len(heat_catalog().types._built)  # the schemas made so far
from stoker.resources.catalog import load_document
raw = load_document()["types"]
parsed = len(getattr(raw, "_parsed", raw))  # the catalog entries read from their JSON
sys.__stdout__.write("\\n" + json.dumps([modules, built, parsed]) + "\\n")
"""

#: never needed to lint a package: tables (Rich), the store (SQLAlchemy, Alembic), yaql
NOT_AT_START = (
    "rich",
    "sqlalchemy",
    "alembic",
    "yaql",
    "stoker.store",
    "stoker.engine.stacks",
)


def _run(*args: str) -> tuple[set[str], int, int]:
    completed = subprocess.run(
        [sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, check=True
    )
    modules, built, parsed = json.loads(completed.stdout.strip().splitlines()[-1])
    return set(modules), built, parsed


def _loaded(modules: set[str], *prefixes: str) -> list[str]:
    return sorted(m for m in modules if any(m == p or m.startswith(p + ".") for p in prefixes))


def test_onap_lint_of_a_package_imports_nothing_it_does_not_use(tmp_path: Path) -> None:
    (tmp_path / "base_lb.yaml").write_text(MODULE)
    (tmp_path / "base_lb.env").write_text("parameters:\n  lb_image_name: i\n  lb_flavor_name: f\n")
    (tmp_path / "lb_nested.yaml").write_text(NESTED)
    modules, built, parsed = _run("lint", "--profile", "onap", str(tmp_path))
    assert "stoker.lint.onap.ports" in modules  # the probe really linted
    assert "stoker.resolution.validation" in modules  # R-92635 ran
    assert _loaded(modules, *NOT_AT_START) == []
    # the default profile's rules and its catalog checks are not the onap profile's
    assert _loaded(modules, "stoker.lint.rules.core", "stoker.lint.rules.default") == []
    assert _loaded(modules, "stoker.lint.attributes", "stoker.lint.properties") == []
    # Heat's catalog builds only the schemas of the types the package uses (of 201), and
    # reads only their entries of its JSON
    assert 0 < built <= 10
    assert 0 < parsed <= 10


def test_json_report_imports_no_tables(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(NESTED)
    modules, _, _ = _run("lint", "-f", "json", str(tmp_path))
    assert "stoker.lint.formats.json" in modules
    assert _loaded(modules, "rich") == []
    # the default profile alone: its rules, not the onap profile's
    assert "stoker.lint.rules.core.structure" in modules
    assert _loaded(modules, "stoker.lint.onap.rules", "stoker.lint.onap.nova") == []
