"""A case run through the ``stoker stack`` commands in-process, shaped as the recorder
shapes Heat's answers (``suite``)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner, Result

from stoker.cli.main import cli
from stoker.engine.testpoints import ENV

from . import suite


class Stoker:
    def __init__(self, url: str, directory: Path) -> None:
        self.url = url
        self.directory = directory

    def __call__(self, *args: str) -> Result:
        return CliRunner().invoke(cli, ["--db", self.url, "stack", *args], catch_exceptions=False)

    def json(self, *args: str) -> Any:
        return json.loads(self(*args, "-f", "json").stdout)


def _write(folder: Path, case: suite.Case, key: str, stage: str) -> str:
    """The template and its files on disk, as python-heatclient would read them."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in case.files(stage).items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    path = folder / "template.yaml"
    path.write_text(case.template(key), encoding="utf-8")
    return str(path)


def _options(folder: Path, case: suite.Case, stage: str) -> list[str]:
    request = case.request("create" if stage == "before" else "update")
    found: list[str] = []
    folder.mkdir(parents=True, exist_ok=True)  # a PATCH without a template has none yet
    if "environment" in request:
        env = folder / "env.yaml"
        env.write_text(yaml.safe_dump(request["environment"]), encoding="utf-8")
        found += ["-e", str(env)]
    for name, text in case.environment_files(stage).items():
        (folder / name).write_text(text, encoding="utf-8")
        found += ["-e", str(folder / name)]
    for key, value in (request.get("parameters") or {}).items():
        found += ["--parameter", f"{key}={value}"]
    if "timeout_mins" in request:
        found += ["--timeout", str(request["timeout_mins"])]
    for key in request.get("clear_parameters") or ():
        found += ["--clear-parameter", key]
    rollback = request.get("disable_rollback")
    if stage == "before" and rollback is False:
        found.append("--enable-rollback")
    elif stage == "after" and rollback is not None:
        found += ["--rollback", "disabled" if rollback else "enabled"]
    return found


@dataclass
class _Ran:
    """What `_cancelled`'s process left, shaped as the click Result the rest reads."""

    exit_code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def _cancelled(stoker: Stoker, name: str, operation: list[str], spec: dict[str, Any]) -> _Ran:
    """The operation (the update, or the create) in a process of its own, stopped
    (`testpoints`) when the handler of the case's ``at`` is about to start (IN_PROGRESS
    committed, as the recorder waits for it in Heat), ``stack cancel`` asked meanwhile,
    then continued."""
    command = [sys.executable, "-m", "stoker", "--db", stoker.url, "stack", *operation]
    command += ["-f", "json"]
    env = {**os.environ, ENV: f"before_handler@{spec['at']}"}
    child = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        _, status = os.waitpid(child.pid, os.WUNTRACED)
        if os.WIFSTOPPED(status):
            rollback = [] if spec.get("rollback", True) else ["--no-rollback"]
            stoker("cancel", name, *rollback)
            os.kill(child.pid, signal.SIGCONT)
        out, err = child.communicate(timeout=300)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    return _Ran(child.returncode, out, err)


def run_case(case: suite.Case, stoker: Stoker) -> dict[str, Any]:
    name = case.stack_name
    root = stoker.directory / name
    template = _write(root / "before", case, "before", "before")
    create = ["create", name, "-t", template, *_options(root / "before", case, "before")]
    stop = case.cancels("create")
    created: Result | _Ran = _cancelled(stoker, name, create, stop) if stop else stoker(*create)
    if created.exit_code not in (0, 1) or stoker("show", name).exit_code != 0:
        return {"create_status": "REFUSED", "create_error": created.output}
    first = stoker.json("show", name)
    resources = stoker.json("resource", "list", name)
    before_ids = {r["resource_name"]: r["physical_resource_id"] for r in resources}
    before_outputs = {o["output_key"]: o.get("output_value") for o in first.get("outputs") or []}
    seen = len(stoker.json("event", "list", name))
    result: dict[str, Any] = {
        "create_status": first["stack_status"],
        "create_reason": suite.reason(first["stack_status_reason"], name),
    }
    update = ["update", name]
    if "after" in case.spec or not case.existing:
        key = "after" if "after" in case.spec else "before"
        update += ["-t", _write(root / "after", case, key, "after")]
    if case.existing:
        update.append("--existing")
    update += _options(root / "after", case, "after")
    if case.spec.get("preview", True):
        nested = ["--show-nested"] if case.spec.get("show_nested") else []
        preview = stoker(*update, "--dry-run", *nested, "-f", "json")
        if preview.exit_code == 0:
            changes = json.loads(preview.stdout)
            result["preview"] = {
                k: sorted(r["resource_name"] for r in v) for k, v in changes.items()
            }
        else:
            result["preview"] = {"status": 400}
    ran: Result | _Ran
    stop = case.cancels("update")
    if stop is not None:
        ran = _cancelled(stoker, name, update, stop)
    else:
        ran = stoker(*update, "-f", "json")
    refused = ran.exit_code != 0 and not ran.stdout.strip()
    result["update_refused"] = refused
    if refused:
        result["update_error"] = suite.reason(ran.stderr.strip().removeprefix("error: "), name)
    stack = stoker.json("show", name)
    result["status"] = stack["stack_status"]
    result["reason"] = suite.reason(stack["stack_status_reason"], name)
    result["parameters"] = {
        k: suite.normalize(v, name) for k, v in stack["parameters"].items() if "::" not in k
    }
    opaque = list(case.spec.get("opaque") or ())
    result["outputs"] = suite.outputs(stack.get("outputs") or [], name, opaque, before_outputs)
    result["events"] = suite.events(stoker.json("event", "list", name)[seen:], name, before_ids)
    result["resources"] = suite.resources(stoker.json("resource", "list", name), before_ids)
    if case.spec.get("show_environment"):
        result["environment"] = suite.normalize(stoker.json("environment", "show", name), name)
    return result
