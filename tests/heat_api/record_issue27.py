"""Records real Heat's answers for issue 27's tests (tests/fixtures/heat_api/
issue27-heat-24.1.2.json). Run by hand against Heat 24.1.2 (the reference-heat tool's
``heat.sh start``): ``python tests/heat_api/record_issue27.py URL OUT``. Not a test: the
tests read only the JSON it wrote."""

from __future__ import annotations

import json
import sys
import time
import urllib.error
import urllib.request
from typing import Any

NESTED = """heat_template_version: 2014-10-16
description: the stack description
parameters:
  aparam:
    type: number
    default: 10
    description: the param description
resources:
  myres:
    type: OS::Heat::RandomString
    properties:
      length: {get_param: aparam}
"""
PARENT = """heat_template_version: 2014-10-16
description: the parent template
parameters:
  pparam:
    type: number
    default: 5
    description: the param description
resources:
  nres:
    type: mynested.yaml
    properties:
      aparam: {get_param: pparam}
"""
VALIDATE_DEFAULTS = {
    "heat_template_version": "2018-08-31",
    "parameters": {
        "port": {"type": "number", "default": 80},
        "z": {"type": "number"},
        "e": {"type": "string", "default": "a"},
        "n": {"type": "number", "default": 1},
    },
    "resources": {},
}
PREVIEWED = """heat_template_version: 2015-04-30
parameters:
  incomming:
    type: string
resources:
  main:
    type: nested.yaml
    properties:
      value: {get_param: incomming}
  one:
    type: OS::Heat::TestResource
    properties:
      value: fred
outputs:
  main_out:
    value: {get_attr: [main, output]}
"""
PREVIEWED_NESTED = """heat_template_version: 2015-04-30
parameters:
  value:
    type: string
resources:
  nested:
    type: OS::Heat::TestResource
    properties:
      value: {get_param: value}
outputs:
  output:
    value: {get_attr: [nested, output]}
"""
HOT = "heat_template_version: 2016-04-08\nresources:\n"
TREE = HOT + "  nested1:\n    type: nested1.yaml\n"
TREE_FILES = {
    "nested1.yaml": HOT + "  nested2:\n    type: nested2.yaml\n",
    "nested2.yaml": HOT + "  random:\n    type: OS::Heat::RandomString\n",
}
TYPED = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "thing": {"type": "My::Thing"},
        "nested": {"type": "nested.yaml"},
        "group": {
            "type": "OS::Heat::ResourceGroup",
            "properties": {"count": 1, "resource_def": {"type": "My::Thing"}},
        },
    },
}
TYPED_FILES = {
    "nested.yaml": "heat_template_version: 2018-08-31\nresources:\n  r: {type: My::Thing}\n"
}
TYPED_ENV = {"resource_registry": {"My::Thing": "OS::Heat::None"}}


class Heat:
    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")

    def call(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            self.url + path,
            data=data,
            method=method,
            headers={"X-Auth-Token": "x", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request) as response:
                status, raw = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, raw = error.code, error.read()
        answer = json.loads(raw) if raw.strip() else None
        return {
            "request": {"method": method, "path": path, "body": body},
            "status": status,
            "body": answer,
        }

    def wait(self, path: str) -> dict[str, Any]:
        for _ in range(120):
            stack = self.call("GET", path)["body"]["stack"]
            if not stack["stack_status"].endswith("IN_PROGRESS"):
                return stack
            time.sleep(1)
        raise SystemExit(f"{path} still in progress")


def main(url: str, out: str) -> None:
    heat = Heat(url)
    record: dict[str, Any] = {
        "_about": "Heat 24.1.2 (the reference-heat tool: noauth, SQLite, legacy engine) "
        "answering issue 27's requests, recorded by tests/heat_api/record_issue27.py"
    }
    record["validate_value"] = heat.call(
        "POST", "/validate", {"template": NESTED, "environment": {"parameters": {"aparam": 5}}}
    )
    record["validate_parameter_defaults"] = heat.call(
        "POST",
        "/validate",
        {
            "template": VALIDATE_DEFAULTS,
            "environment": {
                "parameter_defaults": {"port": 8443, "z": 3},
                "parameters": {"e": "", "n": 0},
            },
        },
    )
    files = {
        "mynested.yaml": NESTED.replace("OS::Heat::RandomString", "mynested2.yaml"),
        "mynested2.yaml": NESTED,
    }
    record["validate_show_nested"] = heat.call(
        "POST", "/validate?show_nested=true", {"template": PARENT, "files": files}
    )
    created = heat.call(
        "POST",
        "/stacks",
        {
            "stack_name": "issue27typed",
            "template": TYPED,
            "files": TYPED_FILES,
            "environment": TYPED_ENV,
        },
    )
    record["typed_create"] = created
    stack_id = created["body"]["stack"]["id"]
    path = f"/stacks/issue27typed/{stack_id}"
    heat.wait(path)
    record["typed_resources"] = heat.call("GET", path + "/resources")
    record["typed_nested_resource"] = heat.call("GET", path + "/resources/nested")
    heat.call("DELETE", path)
    record["preview"] = heat.call(
        "POST",
        "/stacks/preview",
        {
            "stack_name": "issue27preview",
            "template": PREVIEWED,
            "files": {"nested.yaml": PREVIEWED_NESTED},
            "disable_rollback": True,
            "environment": {"parameters": {"incomming": "abc"}},
        },
    )
    record["tree_create"] = heat.call(
        "POST", "/stacks", {"stack_name": "issue27tree", "template": TREE, "files": TREE_FILES}
    )
    path = f"/stacks/issue27tree/{record['tree_create']['body']['stack']['id']}"
    heat.wait(path)
    record["tree_preview_same"] = heat.call(
        "PUT", path + "/preview?show_nested=True", {"template": TREE, "files": TREE_FILES}
    )
    record["tree_preview_replace"] = heat.call(
        "PUT",
        path + "/preview?show_nested=True",
        {"template": TREE.replace("nested1.yaml", "OS::Heat::None"), "files": {}},
    )
    heat.call("DELETE", path)
    with open(out, "w") as handle:
        json.dump(record, handle, indent=1, sort_keys=True)
        handle.write("\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
