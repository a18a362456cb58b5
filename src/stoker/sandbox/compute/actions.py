"""Nova's server actions (``POST /servers/{id}/action``), each a change of the server
document `ComputeBackend.act` has checked the action is allowed on and saves after: a
transition on the sandbox's clock (resize, reboot, rebuild) or a new state at once."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from stoker.sandbox.http_errors import BadRequest, NotFound, OverQuota
from stoker.sandbox.interfaces import ImageProvider
from stoker.sandbox.service import RequestContext
from stoker.sandbox.store import Document

if TYPE_CHECKING:
    from stoker.sandbox.compute.backend import ComputeBackend

    #: an action: what it does to the server document `ComputeBackend.act` saves after
    Action = Callable[[ComputeBackend, RequestContext, Document, Any], None]


def _resize(backend: ComputeBackend, ctx: RequestContext, server: Document, args: Any) -> None:
    flavor_ref = str((args or {}).get("flavorRef") or "").rstrip("/").rsplit("/", 1)[-1]
    if not flavor_ref:
        raise BadRequest("Resize requests require 'flavorRef' attribute.")
    try:
        flavor = backend.catalog.flavor(flavor_ref)
    except NotFound:
        raise BadRequest(f"Flavor {flavor_ref} could not be found.") from None
    if flavor["id"] == server["flavor_id"]:
        raise BadRequest("When resizing, instances must change flavor!")
    old = backend.catalog.flavor(server["flavor_id"])
    for resource, key in (("cores", "vcpus"), ("ram", "ram")):
        limit = backend.quota(resource)
        grow = flavor[key] - old[key]
        if limit >= 0 and grow > 0 and backend.usage(ctx.project_id)[resource] + grow > limit:
            raise OverQuota(f"Quota exceeded for {resource}: Requested {grow}")
    server["_old_flavor_id"] = server["flavor_id"]
    server["flavor_id"] = flavor["id"]
    backend.transition(server, "RESIZE", "resize_prep", "VERIFY_RESIZE")


def _confirmresize(
    backend: ComputeBackend, ctx: RequestContext, server: Document, args: Any
) -> None:
    server.pop("_old_flavor_id", None)
    backend.enter(server, "ACTIVE")


def _revertresize(
    backend: ComputeBackend, ctx: RequestContext, server: Document, args: Any
) -> None:
    server["flavor_id"] = server.pop("_old_flavor_id", server["flavor_id"])
    backend.transition(server, "REVERT_RESIZE", "resize_reverting", "ACTIVE")


def _reboot(backend: ComputeBackend, ctx: RequestContext, server: Document, args: Any) -> None:
    kind = str((args or {}).get("type", "")).upper()
    if kind not in ("SOFT", "HARD"):
        raise BadRequest("Invalid input for field/attribute type.")
    status = "REBOOT" if kind == "SOFT" else "HARD_REBOOT"
    backend.transition(
        server, status, "rebooting" if kind == "SOFT" else "rebooting_hard", "ACTIVE"
    )


def _rebuild(backend: ComputeBackend, ctx: RequestContext, server: Document, args: Any) -> None:
    args = args or {}
    server["image_id"] = backend.image_of(ctx, {"imageRef": args.get("imageRef")})
    if "name" in args:
        server["name"] = str(args["name"])
    if isinstance(args.get("metadata"), dict):
        server["metadata"] = dict(args["metadata"])
    backend.transition(server, "REBUILD", "rebuilding", "ACTIVE")


def _createimage(backend: ComputeBackend, ctx: RequestContext, server: Document, args: Any) -> None:
    args = args or {}
    name = args.get("name")
    if not isinstance(name, str) or not name.strip():
        raise BadRequest("Invalid input for field/attribute name.")
    images = backend.hub.find(ImageProvider)
    if images is None:
        raise BadRequest("Image service is not available.")
    server["_snapshot_id"] = images.snapshot(
        ctx.project_id, name, server["id"], server["image_id"], args.get("metadata")
    )


def _entering(status: str) -> Action:
    """An action that puts the server in ``status`` at once (stop, start, suspend...)."""

    def enter(backend: ComputeBackend, ctx: RequestContext, server: Document, args: Any) -> None:
        backend.enter(server, status)

    return enter


def _locking(locked: bool) -> Action:
    """An action that locks or unlocks the server."""

    def lock(backend: ComputeBackend, ctx: RequestContext, server: Document, args: Any) -> None:
        server["locked"] = locked

    return lock


#: by the action's name, lower case with "-" as "_" (Nova's ``os-stop`` is ``os_stop``)
ACTIONS: dict[str, Action] = {
    "resize": _resize,
    "confirmresize": _confirmresize,
    "revertresize": _revertresize,
    "reboot": _reboot,
    "rebuild": _rebuild,
    "createimage": _createimage,
    "os_stop": _entering("SHUTOFF"),
    "os_start": _entering("ACTIVE"),
    "suspend": _entering("SUSPENDED"),
    "resume": _entering("ACTIVE"),
    "pause": _entering("PAUSED"),
    "unpause": _entering("ACTIVE"),
    "lock": _locking(True),
    "unlock": _locking(False),
}
