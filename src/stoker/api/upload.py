"""``POST /stacks`` with a raw template (``application/x-yaml``, ``text/yaml``) or a
package (``application/zip``, see `stoker.definition.archive`) as the body; the stack's
name and parameters come from the query string (``stack_name``, repeated
``parameter=KEY=VALUE``, ``timeout_mins``, ``disable_rollback``, ``tags``)."""

from __future__ import annotations

from starlette.requests import Request

from stoker.api.context import Api, read_body
from stoker.api.errors import bad_request
from stoker.api.inputs import Payload, payload_from
from stoker.definition.archive import read_package
from stoker.errors import PackageError

YAML_TYPES = ("application/x-yaml", "text/yaml", "application/yaml")
ZIP_TYPES = ("application/zip", "application/x-zip-compressed")


async def upload_payload(request: Request, api: Api) -> Payload | None:
    """The payload of an upload, or None for an ordinary JSON body."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind not in YAML_TYPES + ZIP_TYPES:
        return None
    if kind in YAML_TYPES:
        raw = await read_body(request, api.limits.max_json_body_size, "template")
    else:
        raw = await read_body(request, api.limits.max_package_size, "package")
    query = request.query_params
    parameters: dict[str, str] = {}
    for item in query.getlist("parameter"):
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise bad_request(f'Invalid parameter "{item}": use parameter=KEY=VALUE')
        parameters[key] = value
    body: dict[str, object] = {
        "stack_name": query.get("stack_name", ""),
        "parameters": parameters,
        "timeout_mins": query.get("timeout_mins"),
        "disable_rollback": query.get("disable_rollback"),
        "tags": query.get("tags"),
    }
    if kind in YAML_TYPES:
        try:
            body["template"] = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise bad_request("The template is not UTF-8 text") from None
    else:
        try:
            package = read_package(raw, "upload.zip")
        except PackageError as error:
            raise bad_request(str(error), "HTTPBadRequest") from None
        body["template"] = package.template
        body["files"] = package.files
        body["environment_files"] = package.environment_files
    return payload_from(body, api)
