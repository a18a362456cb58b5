"""Record what Heat 24.1.2 does when an update is cancelled (cancel_update, and
cancel_without_rollback) into cancel.json; run while the reference Heat runs."""

import json
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "update_nested"))
from record import call, wait

out = {}
for mode, body in (
    ("cancel_update", {"cancel_update": None}),
    ("cancel_without_rollback", {"cancel_without_rollback": None}),
):
    name = f"fid-cancel-upd-{mode}-{int(time.time())}"
    before = {
        "heat_template_version": "2021-04-16",
        "resources": {
            "a": {"type": "OS::Heat::TestResource", "properties": {"value": "x"}},
            "b": {
                "type": "OS::Heat::TestResource",
                "properties": {"value": "x"},
                "depends_on": ["a"],
            },
        },
    }
    after = json.loads(json.dumps(before))
    after["resources"]["a"]["properties"] = {"value": "y", "action_wait_secs": {"update": 6}}
    after["resources"]["b"]["properties"] = {"value": "y"}
    _, c = call(
        "POST", "/stacks", {"stack_name": name, "template": before, "disable_rollback": True}
    )
    path = f"/stacks/{name}/{c['stack']['id']}"
    wait(path)
    _, ev = call("GET", path + "/events?sort_dir=asc&limit=1000")
    seen = len(ev["events"])
    call("PUT", path, {"template": after})
    time.sleep(2.5)
    status, answer = call("POST", path + "/actions", body)
    stack = wait(path)
    _, ev = call("GET", path + "/events?sort_dir=asc&limit=1000")
    _, res = call("GET", path + "/resources")
    out[mode] = {
        "http": status,
        "status": stack["stack_status"],
        "reason": stack["stack_status_reason"],
        "events": [
            [
                e["resource_name"] if e["resource_name"] != name else "<stack>",
                e["resource_status"],
                e["resource_status_reason"],
            ]
            for e in ev["events"][seen:]
        ],
        "resources": {r["resource_name"]: r["resource_status"] for r in res["resources"]},
    }
    call("DELETE", path)
(pathlib.Path(__file__).parent / "cancel.json").write_text(json.dumps(out, indent=1) + "\n")
print("done")
