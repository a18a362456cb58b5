"""What a module's environment file enumerates, and the rules on what it must (not) hold.

ONAP supplies some parameters at instantiation (external networks, server names, their
metadata) and the VNF its own (images, flavors, internal addresses): the first must not
be in the environment file, the second must. A nested file has no environment file of
its own: its values are passed in by the module that uses it, from that module's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

from stoker.diagnostics import Diagnostic, Span
from stoker.lint.context import EnvironmentContext, TemplateContext
from stoker.lint.memo import memoized
from stoker.lint.onap.base import ParameterReaders
from stoker.lint.onap.modules import ModuleRole, type_users
from stoker.lint.onap.written import declared, section
from stoker.template.nodes import key_span


def environment_parameters(
    environments: Sequence[EnvironmentContext],
) -> dict[str, tuple[dict[Any, Any], Any]]:
    """Each parameter the environment files give a value, the first file's winning: the
    parameters mapping that holds it and its key as written (for the value and its
    positions)."""
    found: dict[str, tuple[dict[Any, Any], Any]] = {}
    for environment in environments:
        values = section(environment.data, "parameters")
        for name in values:
            found.setdefault(str(name), (values, name))
    return found


@memoized
def enumerated(ctx: TemplateContext) -> dict[str, Span | None] | None:
    """Parameter names the module's environment files give values, with where; None for a
    module without one. A nested file answers with the environment of the module that
    uses it (through any nested files between them), as ONAP's validation does: the
    values its parameters are passed come from there."""
    return _enumerated(ctx, set())


def _enumerated(ctx: TemplateContext, seen: set[str]) -> dict[str, Span | None] | None:
    if ctx.role is ModuleRole.NESTED:
        seen.add(ctx.name)
        for parent in _users(ctx):
            if parent.name not in seen:
                inherited = _enumerated(parent, seen)
                if inherited is not None:
                    return inherited
        return None
    environments = ctx.package.layout.environments_of(ctx)
    if not environments:
        return None
    given = environment_parameters(environments).items()
    return {name: key_span(values, key) for name, (values, key) in given}


def _users(ctx: TemplateContext) -> list[TemplateContext]:
    """The templates of the package that use ``ctx`` as a type, in path order."""
    return [user for user in type_users(ctx.package).get(ctx.name, []) if user is not ctx]


class EnumerationRule(ParameterReaders):
    """Declared parameters that must (``wanted``) or must not be in the module's
    environment file; each is reported once, as its first reader reads it."""

    wanted: ClassVar[bool]
    #: why a wanted parameter must be there, after "has no value in ... file"
    why: ClassVar[str] = ""

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        values = enumerated(ctx)
        if values is None:
            return
        seen: set[str] = set()
        for parameter, holder in self.readers(ctx):
            if parameter in seen or declared(ctx, parameter) is None:
                continue
            seen.add(parameter)
            if self.wanted and parameter not in values:
                yield self.finding(
                    f'parameter "{parameter}" ({self.reader(holder)}) has no value in the '
                    f"module's environment file{self.why}",
                    key_span(ctx.data["parameters"], parameter),
                    ("parameters", parameter),
                )
            elif not self.wanted and parameter in values:
                yield self.finding(
                    f'parameter "{parameter}" ({self.reader(holder)}) is supplied by ONAP; '
                    "remove it from the environment file",
                    values[parameter],
                )
