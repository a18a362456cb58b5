"""A secret canary: a hidden parameter's value flows through properties, str_replace,
attributes, failures and outputs, and must surface only in the outputs the author computes.

Every command a user would run over such a stack is run in-process with every logger at
DEBUG (stoker has no verbosity option of its own; this is the most any library under it
logs), and the canary is looked for, case-insensitively (a boolean check once leaked it
lowercased), in stdout, stderr, the log records, and the raw rows of the database (read
with the driver itself, not through the store). The one place it may appear is an output
whose expression the author wrote to compute it, in the machine formats, as in Heat.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest
from click.testing import CliRunner, Result

from stoker.cli.main import cli

pytestmark = pytest.mark.heavy

CANARY = "Canary7Zq"  # mixed case: a lowercased or uppercased leak is caught too

HEAD = """\
heat_template_version: wallaby
parameters:
  pw: {type: string, hidden: true}
resources:
  joined:
    type: OS::Heat::Value
    properties:
      value:
        str_replace:
          template: "user:PASS@db"
          params: {PASS: {get_param: pw}}
"""

#: name -> (the rest of the template, whether the create succeeds)
CASES: dict[str, tuple[str, bool]] = {
    # the author computes an output from the secret: the one place it may be shown
    "computed": (
        "  holder:\n    type: OS::Heat::TestResource\n"
        "    properties: {value: {get_attr: [joined, value]}}\n"
        "outputs:\n  url: {value: {get_attr: [holder, output]}}\n"
        "  broken: {value: {get_attr: [joined, {get_param: pw}]}}\n",
        True,
    ),
    # a property check at run time would quote the value ("... is not a valid boolean")
    "property": (
        "  t:\n    type: OS::Heat::TestResource\n"
        "    properties: {fail: {get_attr: [joined, value]}}\n",
        False,
    ),
    # a function's failure would quote its argument ("The Referenced Attribute ...")
    "function": (
        "  t:\n    type: OS::Heat::TestResource\n"
        "    properties: {value: {get_attr: [joined, {get_param: pw}]}}\n",
        False,
    ),
    # a call that fails before anything runs would quote its argument (the reference)
    "static": (
        "  t:\n    type: OS::Heat::Value\n"
        "    properties: {value: {get_resource: {get_param: pw}}}\n",
        False,
    ),
    # a TestResource told to fail, carrying the secret in its value and metadata
    "failure": (
        "  t:\n    type: OS::Heat::TestResource\n"
        "    metadata: {note: {get_param: pw}}\n"
        "    properties: {fail: true, value: {get_attr: [joined, value]}}\n",
        False,
    ),
}


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _leaks(text: str) -> bool:
    return CANARY.lower() in text.lower()


def _raw_rows(url: str) -> dict[str, list[str]]:
    """The event reasons and status reasons as the database holds them (driver level)."""
    queries = {
        "events.reason": "SELECT reason FROM events",
        "stacks.status_reason": "SELECT status_reason FROM stacks",
        "resources.status_reason": "SELECT status_reason FROM resources",
    }
    rows: dict[str, list[str]] = {}
    if url.startswith("sqlite:///"):
        connection: Any = sqlite3.connect(url.removeprefix("sqlite:///"))
    else:
        connection = psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"))
    try:
        for column, query in queries.items():
            rows[column] = [str(v) for (v,) in connection.execute(query).fetchall()]
    finally:
        connection.close()
    return rows


@pytest.fixture
def everything(store_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture):
    """Runs each case's create and every read command; returns what each printed."""
    caplog.set_level(logging.DEBUG)  # the root logger: every library's records

    def run(case: str) -> dict[str, str]:
        body, succeeds = CASES[case]
        path = tmp_path / f"{case}.yaml"
        path.write_text(HEAD + body)
        seen: dict[str, str] = {}

        def record(label: str, result: Result) -> Result:
            seen[label] = result.stdout + result.stderr
            return result

        db = ["--db", store_url]
        given = ["--parameter", f"pw={CANARY}"]
        dry = ["stack", "create", "d", "-t", str(path), *given, "--dry-run"]
        created = record("create", _invoke(*db, "stack", "create", case, "-t", str(path), *given))
        assert (created.exit_code == 0) is succeeds, created.output
        # json carries everything the table shows (and outputs' values, which the table
        # masks): one format is enough, plus the table of the stack and of its outputs
        record("dry-run", _invoke(*db, *dry, "-f", "json"))
        record("resolve", _invoke("template", "resolve", str(path), *given, "-f", "json"))
        record("validate", _invoke("template", "validate", str(path), *given, "-f", "json"))
        record("show json", _invoke(*db, "stack", "show", case, "-f", "json"))
        record("show table", _invoke(*db, "stack", "show", case))
        record("events", _invoke(*db, "stack", "event", "list", case, "-f", "json"))
        record("resources", _invoke(*db, "stack", "resource", "list", case, "-f", "json"))
        record("environment", _invoke(*db, "stack", "environment", "show", case))
        for resource in ("joined", "holder", "t"):
            record(
                f"resource show {resource}",
                _invoke(*db, "stack", "resource", "show", case, resource, "-f", "json"),
            )
        record("outputs table", _invoke(*db, "stack", "output", "list", case, "--all"))
        seen["logs"] = "\n".join(r.getMessage() for r in caplog.records)
        for column, values in _raw_rows(store_url).items():
            seen[f"database {column}"] = "\n".join(values)
        return seen

    return run


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_canary_appears_nowhere_but_computed_outputs(
    everything: Callable[[str], dict[str, str]], case: str
) -> None:
    seen = everything(case)
    allowed = {"show json"} if case == "computed" else set()
    leaked = sorted(label for label, text in seen.items() if _leaks(text) and label not in allowed)
    assert leaked == [], {label: seen[label][-600:] for label in leaked}
    if case != "computed":  # the failure still says where it happened
        assert "resources.t" in seen["create"], seen["create"]
        return
    document = json.loads(seen["show json"])
    outputs = {o["output_key"]: o for o in document["outputs"]}
    assert outputs["url"]["output_value"] == f"user:{CANARY}@db"  # the author asked for it
    assert document["parameters"]["pw"] == "******"
    # the broken output's failure would quote the attribute name (the secret): withheld
    assert outputs["broken"]["output_value"] is None
    assert "hidden parameter" in outputs["broken"]["output_error"]
    assert "<sensitive>" in seen["outputs table"]


CHILD = """\
heat_template_version: wallaby
parameters:
  p: {type: string}
resources:
  v:
    type: OS::Heat::Value
    properties: {value: {get_param: p}}
  bad:
    type: OS::Heat::TestResource
    properties: {fail: {get_attr: [v, value]}}
"""

NESTED = {
    # a provider template's parameter, not declared hidden, receives the secret
    "provider": "  kid:\n    type: child.yaml\n    properties: {p: {get_attr: [joined, value]}}\n",
    # a group writes the secret into its generated template as a literal
    "group": (
        "  kid:\n    type: OS::Heat::ResourceGroup\n"
        "    properties:\n      count: 1\n"
        "      resource_def: {type: OS::Heat::TestResource, "
        "properties: {value: {get_param: pw}, fail: true}}\n"
    ),
}


@pytest.mark.slow  # a nested tree per backend and case: seconds on a busy machine
@pytest.mark.parametrize("case", sorted(NESTED))
def test_the_canary_does_not_leak_from_nested_stacks(
    store_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture, case: str
) -> None:
    """A value from a hidden parameter handed to a nested stack is as hidden there: the
    child cannot tell which of its values carry it, so all of them count as derived."""
    caplog.set_level(logging.DEBUG)
    (tmp_path / "child.yaml").write_text(CHILD)
    path = tmp_path / "top.yaml"
    path.write_text(HEAD + NESTED[case])
    db = ["--db", store_url]
    seen: dict[str, str] = {}
    created = _invoke(*db, "stack", "create", "s", "-t", str(path), "--parameter", f"pw={CANARY}")
    assert created.exit_code == 1, created.output  # the child's failure fails the parent
    seen["create"] = created.stdout + created.stderr
    given = ["--parameter", f"pw={CANARY}"]
    for label, command in {
        "validate --show-nested": ["template", "validate", str(path), *given, "--show-nested"],
        "resolve": ["template", "resolve", str(path), *given],
        "dry-run": [*db, "stack", "create", "d", "-t", str(path), *given, "--dry-run"],
    }.items():
        result = _invoke(*command, "-f", "json")
        seen[label] = result.stdout + result.stderr
    listed = _invoke(*db, "stack", "list", "--nested", "-f", "value", "-c", "Stack Name")
    stacks = listed.stdout.split()
    assert len(stacks) == 2, listed.output
    for name in stacks:
        for command in (
            ["show", name, "-f", "json"],
            ["event", "list", name, "-f", "json"],
            ["resource", "list", name, "-f", "json"],
            ["template", "show", name],
            ["environment", "show", name],
            ["output", "list", name, "--all"],
            *(["resource", "show", name, r, "-f", "json"] for r in ("v", "bad", "0", "kid")),
        ):
            result = _invoke(*db, "stack", *command)
            seen[" ".join(command)] = result.stdout + result.stderr
    seen["logs"] = "\n".join(r.getMessage() for r in caplog.records)
    for column, values in _raw_rows(store_url).items():
        seen[f"database {column}"] = "\n".join(values)
    leaked = sorted(label for label, text in seen.items() if _leaks(text))
    assert leaked == [], {label: seen[label][-600:] for label in leaked}
    if case == "provider":  # the child's property check says why, without the value
        assert "read from a hidden parameter" in seen["create"], seen["create"]
