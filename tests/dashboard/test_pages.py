"""The dashboard's pages and forms in process, on SQLite and PostgreSQL: what the
browser test drives, checked at the HTTP level (refusals, CSRF, masking, the engine's
findings at their fields and lines, every action)."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import pytest

from .conftest import Board, field_error, source_of

TEMPLATE = """heat_template_version: 2018-08-31
description: a value and a secret
parameter_groups:
  - label: Naming
    parameters: [site]
parameters:
  site:
    type: string
    default: web
    constraints:
      - length: {min: 3, max: 12}
        description: A site name has 3 to 12 characters
  size:
    type: number
    default: 2
    constraints:
      - range: {min: 1, max: 5}
  flavour:
    type: string
    default: small
    constraints:
      - allowed_values: [small, large]
  password:
    type: string
    hidden: true
    default: the-hidden-default
resources:
  value:
    type: OS::Heat::Value
    properties:
      value: {get_param: site}
  group:
    type: OS::Heat::ResourceGroup
    properties:
      count: 1
      resource_def: {type: OS::Heat::None}
outputs:
  site:
    value: {get_attr: [value, value]}
  secret:
    value: {get_param: password}
"""
SECRET = "the-hidden-default"


def _launch(board: Board, name: str = "site", **values: str) -> str:
    """Launch ``TEMPLATE`` through the form; the new stack's id once it is complete."""
    form = board.post(
        "/dashboard/launch", {"step": "read", "stack_name": name, "template_text": TEMPLATE}
    )
    assert form.status_code == 200, form.text
    sent = {f"param.{k}": v for k, v in values.items()}
    created = board.post(
        "/dashboard/launch",
        {"step": "create", "stack_name": name, "source": source_of(form.text), **sent},
    )
    assert created.status_code == 200, created.text
    stack_id = created.url.path.rsplit("/", 1)[-1]
    assert board.wait(stack_id) == "CREATE_COMPLETE"
    return stack_id


def test_a_browser_is_sent_to_the_dashboard_and_clients_get_the_versions(board: Board) -> None:
    client = board.client
    browser = client.get("/", headers={"accept": "text/html,*/*"}, follow_redirects=False)
    assert (browser.status_code, browser.headers["location"]) == (303, "/dashboard")
    assert client.get("/", headers={"accept": "application/json"}).status_code == 300
    page = client.get("/dashboard/stacks", follow_redirects=False)
    assert (page.status_code, page.headers["location"]) == (303, "/dashboard/login")


def test_login_needs_the_forms_token_and_keeps_the_project_in_strict_cookies(
    board: Board,
) -> None:
    client = board.client
    refused = client.post("/dashboard/login", data={"project": "demo", "csrf_token": "x" * 40})
    assert refused.status_code == 403
    board.get("/dashboard/login")
    answer = board.post("/dashboard/login", {"project": "demo"}, follow_redirects=False)
    assert answer.status_code == 303
    cookie = answer.headers["set-cookie"].lower()
    assert "stoker_project=demo" in cookie and "httponly" in cookie and "samesite=strict" in cookie
    assert '<strong id="project">demo</strong>' in board.get("/dashboard/stacks").text


def test_the_form_follows_the_parameters(board: Board) -> None:
    board.login()
    page = board.post(
        "/dashboard/launch", {"step": "read", "stack_name": "s", "template_text": TEMPLATE}
    ).text
    site = re.search(r"<input id=\"param-site\"[^>]*>", page, re.S)
    assert site is not None
    tag = site.group(0)
    for rule in ('minlength="3"', 'maxlength="12"', 'value="web"'):
        assert rule in tag
    assert 'data-message="A site name has 3 to 12 characters"' in tag
    size = re.search(r"<input id=\"param-size\"[^>]*>", page, re.S)
    assert size is not None and 'type="number"' in size.group(0) and 'max="5"' in size.group(0)
    assert re.search(r'<select id="param-flavour".*?<option selected>small</option>', page, re.S)
    password = re.search(r"<input id=\"param-password\"[^>]*>", page, re.S)
    assert password is not None and 'type="password"' in password.group(0)
    assert 'value=""' in password.group(0)  # its default is not written into the field
    assert "<legend>Naming</legend>" in page and "<legend>Other parameters</legend>" in page


def test_the_engines_findings_are_shown_at_the_field_and_the_line(board: Board) -> None:
    board.login()
    form = board.post(
        "/dashboard/launch", {"step": "read", "stack_name": "s", "template_text": TEMPLATE}
    )
    source = source_of(form.text)
    refused = board.post(
        "/dashboard/launch",
        {"step": "preview", "stack_name": "s", "source": source, "param.site": "ab"},
    )
    assert refused.status_code == 400
    assert "A site name has 3 to 12 characters" in field_error(refused.text, "site")
    assert field_error(refused.text, "size") == ""
    broken = TEMPLATE.replace("    type: OS::Heat::Value", "    type: OS::Heat::Valu")
    answer = board.post(
        "/dashboard/launch", {"step": "read", "stack_name": "s", "template_text": broken}
    )
    form = board.post(
        "/dashboard/launch",
        {"step": "preview", "stack_name": "s", "source": source_of(answer.text)},
    )
    assert form.status_code == 400
    # at the resource the unknown type names (its line: the engine's span)
    line = broken.splitlines().index("  value:") + 1
    row = re.search(rf'<tr id="template-L{line}" class="error">.*?</tr>', form.text, re.S)
    assert row is not None and "(OS::Heat::Valu) could not be found" in row.group(0)
    not_yaml = board.post(
        "/dashboard/launch",
        {"step": "read", "stack_name": "s", "template_text": "a: [1,\nb: 2\n"},
    )
    assert not_yaml.status_code == 400
    assert re.search(r'<tr id="template-L\d" class="error">', not_yaml.text)


def test_preview_then_create_and_the_stack_page(board: Board) -> None:
    board.login()
    form = board.post(
        "/dashboard/launch", {"step": "read", "stack_name": "site", "template_text": TEMPLATE}
    )
    preview = board.post(
        "/dashboard/launch",
        {"step": "preview", "stack_name": "site", "source": source_of(form.text)},
    )
    assert "2 resources would be created" in preview.text
    assert board.client.get("/dashboard/stacks").text.count("/dashboard/stacks/") == 0
    stack_id = _launch(board, "site", site="website")
    page = board.get(f"/dashboard/stacks/{stack_id}").text
    assert "website" in page and "&lt;sensitive&gt;" in page
    assert SECRET not in page
    assert f'href="/dashboard/stacks/{stack_id}/outputs/secret"' in page
    # the topology: a node per resource, by its stable id, opening the resource's page
    assert '<svg xmlns="http://www.w3.org/2000/svg" class="stoker-graph"' in page
    node = re.search(r'<g id="node-value" class="([^"]*)"', page)
    assert node is not None and "status-complete" in node.group(1).split()
    assert f'<a href="/dashboard/stacks/{stack_id}/resources/value">' in page
    live = board.client.get(f"/dashboard/stacks/{stack_id}/live").json()
    assert live["nodes"]["node-value"] == "CREATE_COMPLETE"
    assert live["status"] == "CREATE_COMPLETE" and not live["in_progress"]
    revealed = board.get(f"/dashboard/stacks/{stack_id}/outputs/secret?part=1").text
    assert SECRET in revealed
    listing = board.get("/dashboard/stacks?q=sit&status=COMPLETE").text
    assert f"/dashboard/stacks/{stack_id}" in listing
    assert "/dashboard/stacks/" not in board.get("/dashboard/stacks?q=nothing").text
    # the nested stack of the group is one click away, and its resource's page
    group = re.search(r'href="/dashboard/stacks/([0-9a-f-]{36})">open</a>', page)
    assert group is not None
    nested = board.get(f"/dashboard/stacks/{group.group(1)}").text
    assert "CREATE_COMPLETE" in nested and f"/dashboard/stacks/{stack_id}" in nested
    resource = board.get(f"/dashboard/stacks/{stack_id}/resources/value").text
    assert "OS::Heat::Value" in resource and "website" in resource
    for part in ("summary", "resources", "events", "outputs", "topology"):
        assert board.get(f"/dashboard/stacks/{stack_id}/part/{part}").status_code == 200
    template = board.get(f"/dashboard/stacks/{stack_id}/template").text
    assert SECRET not in template and "******" in template
    assert 'id="template-L1"' in template


def test_another_projects_stack_is_not_found(board: Board) -> None:
    board.login("demo")
    stack_id = _launch(board)
    board.login("other")
    page = board.get(f"/dashboard/stacks/{stack_id}")
    assert page.status_code == 404
    assert f"/dashboard/stacks/{stack_id}" not in board.get("/dashboard/stacks").text


def test_actions_update_and_delete(board: Board) -> None:
    board.login()
    stack_id = _launch(board)
    base = f"/dashboard/stacks/{stack_id}"
    forged = board.client.post(base + "/action", data={"action": "check", "csrf_token": "f" * 43})
    assert forged.status_code == 403
    for action, status in (("check", "CHECK_COMPLETE"), ("suspend", "SUSPEND_COMPLETE")):
        assert board.post(base + "/action", {"action": action}).status_code == 200
        assert board.wait(stack_id) == status
    assert "Resume" in board.get(base).text
    assert board.post(base + "/action", {"action": "resume"}).status_code == 200
    assert board.wait(stack_id) == "RESUME_COMPLETE"
    assert board.post(base + "/action", {"action": "explode"}).status_code == 400
    form = board.get(base + "/update").text
    assert 'value="web"' in form and SECRET not in form
    refused = board.post(base + "/update", {"param.site": "x"})
    assert refused.status_code == 400
    assert "A site name has 3 to 12 characters" in field_error(refused.text, "site")
    assert board.post(base + "/update", {"param.site": "renamed"}).status_code == 200
    assert board.wait(stack_id) == "UPDATE_COMPLETE"
    assert "renamed" in board.get(base + "/part/outputs").text
    assert board.get(base + "/delete").status_code == 200
    assert board.post(base + "/delete", {"confirm_name": "wrong"}).status_code == 400
    assert board.post(base + "/delete", {"confirm_name": "site"}).status_code == 200
    assert board.wait(stack_id) == "DELETE_COMPLETE"
    assert base not in board.get("/dashboard/stacks").text


def test_updated_is_shown_once_the_stack_is_updated(board: Board) -> None:
    """As Heat's updated_time (tests/fidelity/times): none after the create, nor after a
    check; the update's time once it ran."""
    board.login()
    stack_id = _launch(board)
    base = f"/dashboard/stacks/{stack_id}"
    assert "<dt>Updated</dt>" not in board.get(base + "/part/summary").text
    assert board.post(base + "/action", {"action": "check"}).status_code == 200
    assert board.wait(stack_id) == "CHECK_COMPLETE"
    assert "<dt>Updated</dt>" not in board.get(base + "/part/summary").text
    assert board.post(base + "/update", {"param.site": "renamed"}).status_code == 200
    assert board.wait(stack_id) == "UPDATE_COMPLETE"
    updated = board.client.get(f"/v1/demo/stacks/{stack_id}").json()["stack"]["updated_time"]
    summary = board.get(base + "/part/summary").text
    assert f'<dt>Updated</dt><dd><time datetime="{updated}">' in summary


def test_a_zip_package_is_launched(board: Board) -> None:
    board.login()
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as package:
        package.writestr(
            "heat.yaml",
            "heat_template_version: 2018-08-31\nresources:\n  child:\n    type: child.yaml\n",
        )
        package.writestr(
            "child.yaml",
            "heat_template_version: 2018-08-31\n"
            "parameters:\n  word: {type: string, default: zipped}\n"
            "resources:\n  v: {type: OS::Heat::Value, properties: {value: {get_param: word}}}\n",
        )
    form = board.client.post(
        "/dashboard/launch",
        data={"csrf_token": board.csrf, "step": "read", "stack_name": "packaged"},
        files={"upload": ("stack.zip", data.getvalue(), "application/zip")},
    )
    assert form.status_code == 200, form.text
    created = board.post(
        "/dashboard/launch",
        {"step": "create", "stack_name": "packaged", "source": source_of(form.text)},
    )
    stack_id = created.url.path.rsplit("/", 1)[-1]
    assert board.wait(stack_id) == "CREATE_COMPLETE"


def test_a_blueprint_package_is_compiled_and_launched(
    board: Board, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("OS_CLOUD", "OS_AUTH_URL"):  # scripts only: no cloud is asked
        monkeypatch.delenv(name, raising=False)
    board.login()
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as package:
        package.writestr(
            "blueprint.yaml",
            "name: scripts only\ncomponents:\n  setup:\n"
            "    type: com.example.script.ShellScript\n    content: setup.sh\n",
        )
        package.writestr("setup.sh", "#!/bin/sh\necho ready\n")
    form = board.client.post(
        "/dashboard/launch",
        data={"csrf_token": board.csrf, "step": "read", "stack_name": "bp"},
        files={"upload": ("blueprint.zip", data.getvalue(), "application/zip")},
    )
    assert form.status_code == 200, form.text
    created = board.post(
        "/dashboard/launch", {"step": "create", "stack_name": "bp", "source": source_of(form.text)}
    )
    stack_id = created.url.path.rsplit("/", 1)[-1]
    assert board.wait(stack_id) == "CREATE_COMPLETE"
    assert "Blueprint::Script::Shell" in board.get(f"/dashboard/stacks/{stack_id}").text


WAITING = (Path(__file__).parent / "data" / "waiting-site.yaml").read_text()


def test_cancel_stops_a_running_create(board: Board) -> None:
    board.login()
    form = board.post(
        "/dashboard/launch", {"step": "read", "stack_name": "held", "template_text": WAITING}
    )
    created = board.post(
        "/dashboard/launch",
        {
            "step": "create",
            "stack_name": "held",
            "source": source_of(form.text),
            "param.password": "long-enough",
        },
    )
    stack_id = created.url.path.rsplit("/", 1)[-1]
    page = board.get(f"/dashboard/stacks/{stack_id}").text
    assert "CREATE_IN_PROGRESS" in page and 'value="cancel_without_rollback"' in page
    assert 'value="cancel_update"' not in page  # Heat cancels a create only without rollback
    cancel = board.post(
        f"/dashboard/stacks/{stack_id}/action", {"action": "cancel_without_rollback"}
    )
    assert cancel.status_code == 200
    # the wait condition in flight finishes (signalled); nothing after it starts
    signal = board.client.post(
        f"/v1/demo/stacks/held/{stack_id}/resources/handle/signal", json={"status": "SUCCESS"}
    )
    assert signal.status_code == 200, signal.text
    assert board.wait(stack_id) == "CREATE_FAILED"
    assert "Stack CREATE cancelled" in board.get(f"/dashboard/stacks/{stack_id}").text
