"""One image and one flavor parameter per vm-type (beyond the seed).

ONAP inventories a VNF's images and flavors per vm-type, so two vm-types never read one
parameter for their image (or flavor), even when they boot the same image: each has its
own ``{vm-type}_image_name`` with the same value. The vm-type of a server is the one its
resource id names (``{vm-type}_server_{index}``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from stoker.diagnostics import Diagnostic
from stoker.lint.context import TemplateContext
from stoker.lint.onap.nova import SERVER_ID, NovaRule, reading
from stoker.lint.onap.requirements import requirement
from stoker.lint.onap.written import property_at


class _OnePerVmType(NovaRule):
    prop: ClassVar[str]

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        first: dict[str, tuple[str, str]] = {}  # parameter -> (vm-type, server) first seen
        for server, parameter in reading(ctx, self.prop):
            match = SERVER_ID.match(server.name)
            if match is None:
                continue
            vm_type = match["vm"]
            seen = first.setdefault(parameter, (vm_type, server.name))
            if seen[0] != vm_type:
                yield self.finding(
                    f'server "{server.name}" (vm-type {vm_type}) reads {self.prop} from '
                    f'"{parameter}", which server "{seen[1]}" (vm-type {seen[0]}) reads too; '
                    f"each vm-type has its own {self.prop} parameter",
                    *property_at(server, self.prop),
                )


class ImagePerVmType(_OnePerVmType):
    requirement = requirement("R-57282")
    summary = "Each vm-type has its own image parameter"
    checks = "no image parameter is read by servers of two vm-types (by their resource ids)."
    prop = "image"


class FlavorPerVmType(_OnePerVmType):
    requirement = requirement("R-40499")
    summary = "Each vm-type has its own flavor parameter"
    checks = "no flavor parameter is read by servers of two vm-types (by their resource ids)."
    prop = "flavor"


SERVER_IMAGE_RULES: list[type] = [ImagePerVmType, FlavorPerVmType]
