"""Re-record the fidelity cases against a running real Heat 24.1.2.

    .venv/bin/python tests/fidelity/record.py [--url URL] [--only SUBSTRING] [--stale] [-j N]

For each case: ``POST /validate``; when Heat accepts the template, ``POST /stacks``, wait for
the stack to leave IN_PROGRESS, read it (status, reason, parameters, outputs with
``output_error``), delete it and wait until it is gone. The files map sent is the one
python-heatclient builds for the case (``heatclient_files.py``, run by the reference Heat's
interpreter): a case whose literal ``get_file`` path heatclient cannot read is recorded as
heatclient's refusal (``"client": true``), without asking Heat. Results go to
``recordings/<area>.json`` (one file per case file), ids of stacks replaced by ``<uuid>`` so
a re-recording only changes what Heat changed. Heat is never started or stopped here: run
``../shared/tools/reference-heat/heat.sh start`` first.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fidelity.cases import RECORDINGS, Case, load_cases, load_recordings  # noqa: E402
from fidelity.normalize import normalize  # noqa: E402

DEFAULT_URL = "http://127.0.0.1:8004/v1/admin"
WAIT_SECONDS = 180
HEAT_HOME = Path(os.environ.get("HEAT_HOME", Path.home() / ".cache/stoker-reference-heat"))
HEATCLIENT_PYTHON = HEAT_HOME / "venv/bin/python"
HEATCLIENT_FILES = Path(__file__).with_name("heatclient_files.py")


class Heat:
    """The few calls of Heat's REST API the recorder needs."""

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            self.url + path,
            data=data,
            method=method,
            headers={"X-Auth-Token": "fidelity", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                text = response.read().decode()
                return response.status, json.loads(text) if text else None
        except urllib.error.HTTPError as error:
            text = error.read().decode()
            try:
                return error.code, json.loads(text)
            except json.JSONDecodeError:
                return error.code, {"error": {"message": text, "type": "HTTPError"}}


def client_files(case: Case) -> dict[str, Any]:
    """What python-heatclient makes of the case's files: ``{"files": {name: text}}`` holding
    only the files it reads (literal ``get_file`` and provider paths, environments' registry
    entries) with the contents it sends (nested templates' paths rewritten relative to the
    case's root, as heatclient rewrites them to absolute URLs), or ``{"refused": message,
    "type": ...}`` when it refuses before any request (a literal path it cannot read). The
    case is written to a temporary directory, as a user's files would be on disk, and the
    directory is named ``<dir>`` in a refusal."""
    with tempfile.TemporaryDirectory(prefix="fidelity-") as tmp:
        root = Path(tmp).resolve()
        for name, text in case.files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text, encoding="utf-8")
        (root / "template.yaml").write_text(case.template, encoding="utf-8")
        envs = []
        for index, text in enumerate(case.environments):
            envs.append(root / f"env{index}.yaml")
            envs[-1].write_text(text, encoding="utf-8")
        args = [str(HEATCLIENT_PYTHON), str(HEATCLIENT_FILES), str(root / "template.yaml")]
        done = subprocess.run(
            [*args, *map(str, envs)], capture_output=True, text=True, check=True, timeout=60
        )
        answer = json.loads(done.stdout)
        if "refused" in answer:
            message = answer["refused"].replace(str(root), "<dir>")
            return {"refused": message, "type": answer["type"]}
        # heatclient's own contents (nested templates rewritten to absolute file:// URLs),
        # with the temporary directory taken out of names and URLs: every path is then
        # relative to the case's root, as the top template's own are
        prefix = f"file://{root}/"
        return {
            "files": {
                Path(path).relative_to(root).as_posix(): text.replace(prefix, "")
                for path, text in answer["files"].items()
                if Path(path).relative_to(root).as_posix() in case.files
            }
        }


def _body(case: Case, files: dict[str, str]) -> dict[str, Any]:
    """The request heatclient would send, except that the template goes as its text and the
    files map's names and URLs are relative to the case's root (heatclient makes them
    absolute ``file://`` URLs of the user's disk, which would put the recorder's temporary
    directory into Heat's messages)."""
    files = dict(files)
    names = []
    for index, text in enumerate(case.environments):
        names.append(f"env{index}.yaml")
        files[names[-1]] = text
    body: dict[str, Any] = {"template": case.template, "files": files}
    if names:
        body["environment_files"] = names
    if case.parameters:
        body["parameters"] = dict(case.parameters)
    return body


def _error(answer: Any) -> dict[str, Any]:
    error = (answer or {}).get("error") or {}
    return {"type": error.get("type"), "message": error.get("message")}


def record(heat: Heat, case: Case) -> dict[str, Any]:
    """Heat's answer to one case."""
    result: dict[str, Any] = {"digest": case.digest()}
    client = client_files(case)
    if "refused" in client:
        refusal = {"type": client["type"], "message": client["refused"]}
        result["validate"] = {"ok": False, "client": True, **refusal}
        result["create"] = None
        return result
    code, answer = heat.call("POST", "/validate", _body(case, client["files"]))
    if code != 200:
        result["validate"] = {"ok": False, **_error(answer)}
        result["create"] = None
        return result
    result["validate"] = {"ok": True}
    body = _body(case, client["files"]) | {"stack_name": case.stack_name, "disable_rollback": True}
    code, answer = heat.call("POST", "/stacks", body)
    if code not in (200, 201):
        result["create"] = {"refused": True, **_error(answer)}
        return result
    stack_id = answer["stack"]["id"]
    path = f"/stacks/{case.stack_name}/{stack_id}"
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        code, answer = heat.call("GET", path)
        stack = answer["stack"]
        if not stack["stack_status"].endswith("IN_PROGRESS") or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    outputs = []
    for output in sorted(stack.get("outputs") or [], key=lambda o: o["output_key"]):
        shown = {"key": output["output_key"], "value": output.get("output_value")}
        if "output_error" in output:
            shown["error"] = output["output_error"]
        outputs.append(shown)
    result["create"] = normalize(
        {
            "status": stack["stack_status"],
            "reason": stack["stack_status_reason"],
            "parameters": stack.get("parameters") or {},
            "outputs": outputs,
        },
        case.stack_name,
    )
    heat.call("DELETE", path)
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        code, answer = heat.call("GET", path)
        if code == 404 or answer["stack"]["stack_status"] in ("DELETE_COMPLETE", "DELETE_FAILED"):
            break
        time.sleep(0.5)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default=DEFAULT_URL)
    parser.add_argument("--only", help="record only cases whose id contains this")
    parser.add_argument("--stale", action="store_true", help="only cases new or edited")
    parser.add_argument("-j", "--jobs", type=int, default=4)
    options = parser.parse_args()
    heat = Heat(options.url)
    cases = load_cases()
    existing = load_recordings()
    chosen = [
        c
        for c in cases
        if (not options.only or options.only in c.id)
        and (not options.stale or existing.get(c.id, {}).get("digest") != c.digest())
    ]
    print(f"recording {len(chosen)} of {len(cases)} cases against {heat.url}", file=sys.stderr)
    with ThreadPoolExecutor(options.jobs) as pool:
        answers = pool.map(lambda c: record(heat, c), chosen)
        results = dict(zip([c.id for c in chosen], answers, strict=True))
    known = {c.id for c in cases}
    merged = {k: v for k, v in existing.items() if k in known} | results
    by_area: dict[str, dict[str, Any]] = {}
    for case in cases:
        if case.id in merged:
            by_area.setdefault(case.area, {})[case.id] = merged[case.id]
    for old in RECORDINGS.glob("*.json"):
        if old.stem not in by_area:
            old.unlink()
    for area, records in by_area.items():
        text = json.dumps(records, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
        (RECORDINGS / f"{area}.json").write_text(text, encoding="utf-8")
    for case in chosen:
        got = results[case.id]
        if got["validate"].get("client"):
            print(f"{case.id}: heatclient refuses: {got['validate']['message']}")
        message = got["validate"].get("message") or (got["create"] or {}).get("message") or ""
        if case.fragment and case.fragment.lower() not in " ".join(message.split()).lower():
            print(f"{case.id}: fragment {case.fragment!r} not in Heat's {message!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
