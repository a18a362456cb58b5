"""The dashboard's drift page: a stack's resources (and, to the depth asked, its nested
stacks') compared with the cloud, and an **Accept** per modified resource.

The comparison is `stoker.engine.drift`'s, the call behind ``stoker stack drift`` and the
API's ``GET .../drift`` (a cloud read, so it is a page of its own, asked for, never part
of the stack's page or its poll); Accept is ``stoker stack drift --accept`` and the API's
``POST .../drift``, under the same rule (``stacks:drift_accept``, a member's). Both read
the cloud as the API's requests do: with ``--cloud-credentials caller``, as the viewer
(their own token), else with the cloud's credentials.
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from stoker.api.context import api_of
from stoker.api.dashboard import session
from stoker.api.dashboard.render import ROOT, dashboard_page, page, read_form, text_field
from stoker.api.dashboard.session import Viewer
from stoker.api.dashboard.stacks import stack_of
from stoker.api.errors import bad_request
from stoker.cloud.acting import Acting, acting_as
from stoker.engine import accept_drift, detect_drift

#: the statuses' CSS classes (the stylesheet colours them as a stack's states)
STATUS_CLASS = {
    "IN_SYNC": "complete",
    "MODIFIED": "failed",
    "DELETED": "failed",
    "NOT_CHECKED": "init",
}


def _acting(request: Request, viewer: Viewer) -> Acting | None:
    """As whom the cloud is read: the viewer's token where each stack's owner acts
    (the API's gate makes a request's calls act so), else the cloud's own."""
    validator = session.keystone_of(request)
    if api_of(request).operations.credentials is None or viewer.grant is None:
        return None
    assert validator is not None, "a grant comes from a Keystone login"
    from stoker.api.trusts import caller

    return caller(viewer.grant.identity, validator.auth_url)


def _depth(raw: str) -> int:
    if not raw.isdigit():
        raise bad_request(f"nested_depth must be a whole number, not {raw!r}")
    return int(raw)


def _row(entry: dict[str, Any]) -> dict[str, Any]:
    path = "/".join(filter(None, (entry["parent_resource"], entry["resource_name"])))
    return {**entry, "path": path, "status_class": STATUS_CLASS[entry["drift_status"]]}


@dashboard_page("stacks:drift")
async def drift_page(request: Request, viewer: Viewer) -> Response:
    """GET: every resource's drift (``?nested_depth=N``); POST (a row's Accept): the
    cloud's values of the form's ``resource`` (a path) stored as the stack's, then
    back to the page, which says what was accepted."""
    stack = await asyncio.to_thread(stack_of, request, viewer, deleted=False)
    engine = api_of(request).operations.engine(viewer.project)
    acting = _acting(request, viewer)
    if request.method == "POST":
        viewer.require("stacks:drift_accept")
        form = await read_form(request)
        resource = text_field(form, "resource")
        depth = _depth(text_field(form, "nested_depth") or "0")
        with acting_as(acting):
            await accept_drift(engine, stack.id, resource)
        query = urlencode({"nested_depth": depth, "accepted": resource})
        return RedirectResponse(f"{ROOT}/stacks/{stack.id}/drift?{query}", status_code=303)
    depth = _depth(request.query_params.get("nested_depth", "0"))
    with acting_as(acting):
        found = await detect_drift(engine, stack.id, depth)
    context: dict[str, Any] = {
        "stack": {"id": stack.id, "stack_name": stack.name},
        "rows": [_row(entry.as_dict()) for entry in found],
        "nested_depth": depth,
        "accepted": request.query_params.get("accepted", ""),
        "may_accept": viewer.grant is None or viewer.grant.allows("stacks:drift_accept"),
    }
    context.update(viewer=viewer, title=f"Drift — {stack.name}")
    return page(request, "drift.html", context)
