"""Nova's flavors, keypairs and server groups over `ComputeCatalog`: their REST handlers
and routes (the servers' are in `stoker.sandbox.compute.api`)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from stoker.sandbox.compute import views
from stoker.sandbox.compute.catalog import ComputeCatalog
from stoker.sandbox.http import base_url, boolean, no_content, paginate, read_json, reply
from stoker.sandbox.http_errors import BadRequest, NotFound, policy_refusal
from stoker.sandbox.service import Operation, RequestContext, routes
from stoker.sandbox.store import Document


class CatalogApi:
    def __init__(self, catalog: ComputeCatalog) -> None:
        self.catalog = catalog

    # -- flavors ----------------------------------------------------------------------

    def _listed_flavors(self, request: Request, ctx: RequestContext) -> list[Document]:
        query = request.query_params
        public = query.get("is_public", "true").lower()
        flavors = self.catalog.flavors()
        if public not in ("none", "") or not ctx.is_admin:
            wanted = boolean(public, "is_public") if public not in ("none", "") else True
            flavors = [f for f in flavors if f["os-flavor-access:is_public"] == wanted]
        for key, field in (("minRam", "ram"), ("minDisk", "disk")):
            if key in query:
                try:
                    least = int(query[key])
                except ValueError:
                    raise BadRequest(f"Invalid input for query parameters {key}.") from None
                flavors = [f for f in flavors if f[field] >= least]
        return paginate(request, flavors)

    async def list_flavors(self, request: Request, ctx: RequestContext) -> Response:
        """``/flavors`` and ``/flavors/detail``."""
        base, detail = base_url(request), request.url.path.endswith("/detail")
        flavors = self._listed_flavors(request, ctx)
        return reply({"flavors": [views.flavor(ctx, base, f, detail=detail) for f in flavors]})

    async def create_flavor(self, request: Request, ctx: RequestContext) -> Response:
        body = await read_json(request, required="flavor")
        flavor = self.catalog.create_flavor(ctx, body)
        return reply({"flavor": views.flavor(ctx, base_url(request), flavor, detail=True)})

    async def show_flavor(self, request: Request, ctx: RequestContext) -> Response:
        flavor = self.catalog.flavor(request.path_params["flavor_id"])
        return reply({"flavor": views.flavor(ctx, base_url(request), flavor, detail=True)})

    async def delete_flavor(self, request: Request, ctx: RequestContext) -> Response:
        self.catalog.delete_flavor(ctx, request.path_params["flavor_id"])
        return no_content(202)

    async def list_extra_specs(self, request: Request, ctx: RequestContext) -> Response:
        flavor = self.catalog.flavor(request.path_params["flavor_id"])
        return reply({"extra_specs": dict(flavor["extra_specs"])})

    async def set_extra_specs(self, request: Request, ctx: RequestContext) -> Response:
        body = await read_json(request)
        specs = self.catalog.set_extra_specs(
            ctx, request.path_params["flavor_id"], body.get("extra_specs")
        )
        return reply({"extra_specs": specs})

    async def show_extra_spec(self, request: Request, ctx: RequestContext) -> Response:
        flavor = self.catalog.flavor(request.path_params["flavor_id"])
        key = request.path_params["key"]
        if key not in flavor["extra_specs"]:
            raise NotFound(f"Flavor {flavor['id']} has no extra specs with key {key}.")
        return reply({key: flavor["extra_specs"][key]})

    async def delete_extra_spec(self, request: Request, ctx: RequestContext) -> Response:
        params = request.path_params
        self.catalog.delete_extra_spec(ctx, params["flavor_id"], params["key"])
        return no_content(202)

    # -- keypairs ---------------------------------------------------------------------

    def _keypair_user(self, request: Request, ctx: RequestContext) -> str:
        user_id = request.query_params.get("user_id")
        if user_id and user_id != ctx.user_id and not ctx.is_admin:
            raise policy_refusal("os_compute_api:os-keypairs:index")
        return user_id or ctx.user_id

    async def list_keypairs(self, request: Request, ctx: RequestContext) -> Response:
        keypairs = paginate(
            request,
            self.catalog.keypairs(self._keypair_user(request, ctx)),
            key=lambda k: str(k["name"]),
        )
        shown = [{"keypair": views.keypair(ctx, k, detail=False)} for k in keypairs]
        return reply({"keypairs": shown})

    async def create_keypair(self, request: Request, ctx: RequestContext) -> Response:
        body = await read_json(request, required="keypair")
        if body.get("user_id") and body["user_id"] != ctx.user_id and not ctx.is_admin:
            raise policy_refusal("os_compute_api:os-keypairs:create")
        keypair = self.catalog.create_keypair(ctx, body)
        shown = views.keypair(ctx, keypair, detail=False)
        if ctx.at_least(2, 10):
            shown["user_id"] = keypair["user_id"]
        return reply({"keypair": shown}, 201 if ctx.at_least(2, 2) else 200)

    async def show_keypair(self, request: Request, ctx: RequestContext) -> Response:
        keypair = self.catalog.keypair(
            self._keypair_user(request, ctx), request.path_params["name"]
        )
        return reply({"keypair": views.keypair(ctx, keypair, detail=True)})

    async def delete_keypair(self, request: Request, ctx: RequestContext) -> Response:
        self.catalog.delete_keypair(self._keypair_user(request, ctx), request.path_params["name"])
        return no_content(204 if ctx.at_least(2, 2) else 202)

    # -- server groups ----------------------------------------------------------------

    async def list_server_groups(self, request: Request, ctx: RequestContext) -> Response:
        every = boolean(request.query_params.get("all_projects"), "all_projects") or False
        groups = paginate(request, self.catalog.server_groups(ctx, every))
        return reply({"server_groups": [views.server_group(ctx, g) for g in groups]})

    async def create_server_group(self, request: Request, ctx: RequestContext) -> Response:
        body = await read_json(request, required="server_group")
        group = self.catalog.create_server_group(ctx, body)
        return reply({"server_group": views.server_group(ctx, group)})

    async def show_server_group(self, request: Request, ctx: RequestContext) -> Response:
        group = self.catalog.server_group(ctx, request.path_params["group_id"])
        return reply({"server_group": views.server_group(ctx, group)})

    async def delete_server_group(self, request: Request, ctx: RequestContext) -> Response:
        self.catalog.delete_server_group(ctx, request.path_params["group_id"])
        return no_content()

    def operations(self) -> list[Operation]:
        flavor = "/flavors/{flavor_id}"
        specs, groups = flavor + "/os-extra_specs", "/os-server-groups"
        table = [
            ("GET", "/flavors", "flavors.list", self.list_flavors),
            ("GET", "/flavors/detail", "flavors.list_detail", self.list_flavors),
            ("POST", "/flavors", "flavors.create", self.create_flavor),
            ("GET", flavor, "flavors.show", self.show_flavor),
            ("DELETE", flavor, "flavors.delete", self.delete_flavor),
            ("GET", specs, "extra_specs.list", self.list_extra_specs),
            ("POST", specs, "extra_specs.create", self.set_extra_specs),
            ("GET", specs + "/{key}", "extra_specs.show", self.show_extra_spec),
            ("DELETE", specs + "/{key}", "extra_specs.delete", self.delete_extra_spec),
            ("GET", "/os-keypairs", "keypairs.list", self.list_keypairs),
            ("POST", "/os-keypairs", "keypairs.create", self.create_keypair),
            ("GET", "/os-keypairs/{name}", "keypairs.show", self.show_keypair),
            ("DELETE", "/os-keypairs/{name}", "keypairs.delete", self.delete_keypair),
            ("GET", groups, "server_groups.list", self.list_server_groups),
            ("POST", groups, "server_groups.create", self.create_server_group),
            ("GET", groups + "/{group_id}", "server_groups.show", self.show_server_group),
            ("DELETE", groups + "/{group_id}", "server_groups.delete", self.delete_server_group),
        ]
        return routes("/v2.1", table)
