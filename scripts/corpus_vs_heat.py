"""Run ``stoker template validate`` and real Heat's validate over every corpus template.

Heat is the judge: the files map and environments are built the way python-heatclient
builds them (``get_file`` and ``type:`` references followed recursively), so run this with
the reference Heat venv's Python, which has heatclient:

    /root/.cache/stoker-reference-heat/venv/bin/python scripts/corpus_vs_heat.py \\
        [--heat URL] [--stoker .venv/bin/stoker] [--corpus tests/corpus/data]

Prints each disagreement and the agreement count; exits 1 when any template disagrees.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

from heatclient.common import template_utils


def heat_validate(url: str, template_file: Path, env_files: list[str]) -> tuple[bool, str]:
    try:
        files, template = template_utils.get_template_contents(template_file=str(template_file))
        env_files_map, env = template_utils.process_multiple_environments_and_files(
            env_paths=env_files
        )
    except Exception as error:  # noqa: BLE001 - the client itself refuses the tree
        return False, f"heatclient: {error}"
    files.update(env_files_map)
    files = {
        k: v.decode("utf-8", "replace") if isinstance(v, bytes) else v for k, v in files.items()
    }
    body = {"template": template, "files": files, "environment": env}
    request = urllib.request.Request(
        url + "/validate",
        data=json.dumps(body).encode(),
        headers={"X-Auth-Token": "x", "Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            response.read()
            return True, ""
    except urllib.error.HTTPError as error:
        detail = error.read().decode(errors="replace")
        with contextlib.suppress(ValueError, KeyError, TypeError):
            detail = json.loads(detail)["error"]["message"]
        return False, str(detail)


def stoker_validate(stoker: str, template_file: Path, env_files: list[str]) -> tuple[bool, str]:
    command = [stoker, "template", "validate", str(template_file), "-f", "json"]
    for env in env_files:
        command += ["-e", env]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    errors = [line for line in done.stderr.splitlines() if line and not line.startswith(" ")]
    return done.returncode == 0, "\n".join(errors[:3])


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--heat", default="http://127.0.0.1:8004/v1/admin")
    parser.add_argument("--stoker", default=".venv/bin/stoker")
    parser.add_argument("--corpus", default="tests/corpus/data")
    args = parser.parse_args()
    corpus = Path(args.corpus)
    records = json.loads((corpus / "index.json").read_text())
    agree = total = unjudged = 0
    for record in records:
        if record["kind"] not in ("hot", "cfn"):
            continue
        path = corpus / record["path"]
        env = path.with_name(path.stem + "_env.yaml")
        env_files = [str(env)] if env.exists() else []
        heat_ok, heat_why = heat_validate(args.heat, path, env_files)
        if "HEAT-E99001 Service" in heat_why:
            # the reference Heat has no cloud: a type whose service it cannot reach is
            # refused for that reason alone, so Heat cannot judge the template
            unjudged += 1
            print(f"UNJUDGED {record['path']}: {heat_why[:90]}")
            continue
        stoker_ok, stoker_why = stoker_validate(args.stoker, path, env_files)
        total += 1
        if heat_ok == stoker_ok:
            agree += 1
            continue
        print(
            f"DISAGREE {record['path']}: heat={'ok' if heat_ok else 'refused'} "
            f"stoker={'ok' if stoker_ok else 'refused'}"
        )
        for why in (heat_why, stoker_why):
            if why:
                print("    " + why.replace("\n", "\n    ")[:600])
    print(f"agreement: {agree}/{total} ({unjudged} more need a cloud service to be judged)")
    return 0 if agree == total else 1


if __name__ == "__main__":
    sys.exit(main())
