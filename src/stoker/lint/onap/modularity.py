"""ONAP's VNF modularity: what base and incremental modules hold (beyond the seed).

An incremental module adds servers or volumes to a VNF (itself or through the nested
files it invokes); when a VNF has incremental modules, its base module holds only what
they share, not servers (ONAP cannot replace a base module's servers).
"""

from __future__ import annotations

from collections.abc import Iterable

from stoker.diagnostics import Diagnostic
from stoker.lint.context import TemplateContext
from stoker.lint.onap.base import FromRequirement
from stoker.lint.onap.modules import ModuleRole
from stoker.lint.onap.nested import invocations
from stoker.lint.onap.requirements import requirement
from stoker.lint.onap.written import resources_of
from stoker.lint.rule import TemplateRule

SERVER, VOLUME = "OS::Nova::Server", "OS::Cinder::Volume"


def _declares(ctx: TemplateContext, *kinds: str, seen: frozenset[str] = frozenset()) -> bool:
    """Whether the template, or a nested file it invokes (at any depth), has one."""
    if next(resources_of(ctx, *kinds), None) is not None:
        return True
    return any(
        _declares(invocation.target, *kinds, seen=seen | {ctx.name})
        for invocation in invocations(ctx)
        if invocation.target.name not in seen
    )


class IncrementalModuleAddsSomething(FromRequirement, TemplateRule):
    requirement = requirement("R-610030")
    summary = "An incremental module declares servers or volumes, itself or nested"
    checks = (
        "each incremental module has an OS::Nova::Server or an OS::Cinder::Volume, itself "
        "or in a nested file it invokes."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        if ctx.role is ModuleRole.INCREMENTAL and not _declares(ctx, SERVER, VOLUME):
            yield self.finding(
                "this incremental module declares no OS::Nova::Server and no "
                "OS::Cinder::Volume (itself or in a nested file)",
                ctx.start,
            )


class BaseModuleWithoutServers(FromRequirement, TemplateRule):
    requirement = requirement("R-610015")
    summary = "With incremental modules, the base module declares no server"
    checks = (
        "where the package has incremental modules, the base module has no "
        "OS::Nova::Server of its own (a warning; ONAP cannot replace a base module's "
        "servers)."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        if ctx.role is not ModuleRole.BASE:
            return
        layout = ctx.package.layout
        if not any(layout.role(t) is ModuleRole.INCREMENTAL for t in ctx.package.templates):
            return
        for name, _, span in resources_of(ctx, SERVER):
            yield self.finding(
                f'server "{name}" is in the base module of a VNF with incremental modules; '
                "ONAP cannot replace it",
                span,
                ("resources", name),
            )


MODULARITY_RULES: list[type] = [IncrementalModuleAddsSomething, BaseModuleWithoutServers]
