"""Run one fidelity case through stoker, in-process, and answer in the recordings' shape.

The case goes through the ``stoker`` command itself (Click's runner, no subprocess), so what
is compared is what a user sees: ``template validate``, then ``stack create -f json`` on a
temporary SQLite store (its short view: status and reason), then ``stack show -f json``
(parameters and outputs, from the same engine call as ``stack output show --all -f json``;
a test checks that the two agree). The case's files map and environments are written next
to the template, as python-heatclient would have read them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from stoker.cli.main import cli

from .cases import Case
from .normalize import normalize

# Heat's standalone reference runs as project "admin"; OS::project_id and ARNs show it.
ENVIRONMENT = {"STOKER_PROJECT": "admin"}


def _write(case: Case, directory: Path) -> list[str]:
    """The case's inputs as files; returns the options naming them."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in case.files.items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (directory / "template.yaml").write_text(case.template, encoding="utf-8")
    options: list[str] = []
    for index, text in enumerate(case.environments):
        (directory / f"env{index}.yaml").write_text(text, encoding="utf-8")
        options += ["-e", str(directory / f"env{index}.yaml")]
    for key, value in case.parameters.items():
        options += ["--parameter", f"{key}={value}"]
    return options


def _invoke(args: list[str]) -> tuple[int, str, str]:
    result = CliRunner(env=ENVIRONMENT).invoke(cli, args, catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def _key(output: dict[str, Any]) -> str:
    return str(output["output_key"])


def _output(output: dict[str, Any]) -> dict[str, Any]:
    shown = {"key": output["output_key"], "value": output.get("output_value")}
    if "output_error" in output:
        shown["error"] = output["output_error"]
    return shown


def output_show_all(case: Case, db_url: str) -> list[dict[str, Any]]:
    """``stack output show NAME --all -f json`` of a case's stack, in the recordings' shape."""
    code, out, err = _invoke(
        ["--db", db_url, "stack", "output", "show", case.stack_name, "--all", "-f", "json"]
    )
    assert code == 0, err
    return normalize([_output(o) for o in sorted(json.loads(out), key=_key)], case.stack_name)


def run_case(case: Case, directory: Path, db_url: str) -> dict[str, Any]:
    """stoker's answer: ``validate`` verdict and message; for a valid case the created
    stack's status, reason, parameters and outputs (or the refusal of the create)."""
    options = _write(case, directory)
    template = str(directory / "template.yaml")
    code, out, err = _invoke(["template", "validate", template, *options, "-f", "json"])
    if code != 0:
        return {"validate": {"ok": False, "message": err or out}, "create": None}
    result: dict[str, Any] = {"validate": {"ok": True}}
    name = case.stack_name
    args = ["--db", db_url, "stack", "create", name, "-t", template, *options, "-f", "json"]
    code, out, err = _invoke(args)
    try:
        created = json.loads(out)
    except json.JSONDecodeError:
        result["create"] = {"refused": True, "message": err or out}
        return result
    code, out, err = _invoke(["--db", db_url, "stack", "show", name, "-f", "json"])
    assert code == 0, err
    stack = json.loads(out)
    assert (created["stack_status"], created["stack_status_reason"]) == (
        stack["stack_status"],
        stack["stack_status_reason"],
    ), "stack create's short view and stack show disagree"
    outputs = [_output(o) for o in sorted(stack.get("outputs") or [], key=_key)]
    result["create"] = normalize(
        {
            "status": stack["stack_status"],
            "reason": stack["stack_status_reason"],
            "parameters": stack.get("parameters") or {},
            "outputs": outputs,
        },
        case.stack_name,
    )
    return result
