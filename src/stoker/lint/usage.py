"""Which parameters a template reads, from the function calls the parser recorded.

``get_param`` (HOT) and ``Ref`` to a parameter (CFN) read parameters, anywhere: resources,
outputs, conditions. A name computed by a function (``get_param: {get_param: which}``)
could read any parameter, so nothing can then be said to be unused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from stoker.functions.base import Function

if TYPE_CHECKING:
    from stoker.lint.context import TemplateContext

READERS = ("get_param", "Ref")


def parameter_name(call: Function) -> Any:
    """The parameter a get_param/Ref call reads: a str, a Function (computed), or None."""
    args = call.args
    if call.name == "get_param" and isinstance(args, list):
        return args[0] if args else None
    return args


def used_parameters(ctx: TemplateContext) -> frozenset[str] | None:
    used: set[str] = set()
    for call in ctx.calls(*READERS):
        name = parameter_name(call)
        if isinstance(name, Function):
            return None
        if isinstance(name, str):
            used.add(str(name))
    return frozenset(used)
