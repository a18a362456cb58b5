"""What each resource's type resolves to: a catalog type, a provider template, or nothing.

The order is Heat's: the environment's resource registry (user entries, per-resource
blocks, and a list of templates chosen by the environment's ``requires``), a type named
like a template (``type: server.yaml``, relative to the template), then the stock
environment's aliases, then the catalog.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from stoker.diagnostics import Diagnostic
from stoker.environment.registry_section import is_template_name
from stoker.errors import TemplateError
from stoker.lint.catalog import LintCatalog, lint_catalog
from stoker.lint.providers import ProviderTemplate
from stoker.resolution import resolve_provider
from stoker.resources import TypeSchema, stock_alias

if TYPE_CHECKING:
    from stoker.lint.context import TemplateContext


class ResourceType(NamedTuple):
    """One resource's type after resolution.

    Exactly one of ``schema`` (a catalog type), ``provider`` (a provider template) holds,
    or ``choice`` is true (the registry offers several templates, chosen at run time), or
    none does and the type is unknown.
    """

    resource: str
    written: str
    final: str
    schema: TypeSchema | None = None
    provider: ProviderTemplate | None = None
    choice: bool = False
    via: str = ""  # the registry chain, for messages ("A -> B")
    #: why no single template of a registry list could be chosen (E1062)
    problems: tuple[Diagnostic, ...] = ()

    @property
    def known(self) -> bool:
        return self.schema is not None or self.provider is not None or self.choice


def resolve_resource_types(ctx: TemplateContext) -> dict[str, ResourceType]:
    catalog = lint_catalog()
    found: dict[str, ResourceType] = {}
    reuse = ctx.package.package.reuse.get(ctx.name)
    # the environment is the caller's to compare (stoker.definition.reuse)
    reusing = reuse is not None and reuse.start(_RESOLVED, None, own_text=True)
    for name, resource in ctx.parsed.resources.items():
        if not resource.type:
            continue
        kept = reuse.reused(_RESOLVED, name, _unmoved) if reuse is not None and reusing else None
        if isinstance(kept, ResourceType) and kept.written == resource.type:
            found[name] = kept
            continue
        resolved = found[name] = _resolve(ctx, catalog, name, resource.type)
        if reuse is not None and _reusable(resolved):
            reuse.keep(_RESOLVED, name, resolved)
    return found


#: the `Reuse` stage of a resource's type resolved
_RESOLVED = "type resolved"


def _unmoved(kept: ResourceType, move: object) -> ResourceType:
    return kept  # no position in it


def _reusable(resolved: ResourceType) -> bool:
    """A resolution that reads no file (a provider template may change on disk) and
    holds no finding (which has a position)."""
    return (
        resolved.provider is None
        and not resolved.choice
        and not resolved.problems
        and not is_template_name(resolved.written)
        and not is_template_name(resolved.final)
    )


def _resolve(ctx: TemplateContext, catalog: LintCatalog, name: str, written: str) -> ResourceType:
    if is_template_name(written):
        provider = ctx.package.providers.load(ctx.package.package, ctx.source, written)
        return ResourceType(name, written, written, provider=provider)
    environment = ctx.environment
    try:
        resolved, problems = resolve_provider(
            environment.resource_registry,
            environment.requires,
            written,
            name,
            read=ctx.package.providers.reader(ctx.package.package),
            known=catalog.knows,
        )
    except TemplateError:  # a registry loop: validation reports it (E1060)
        return ResourceType(name, written, written)
    via = resolved.describe() if resolved.chain else ""
    if resolved.candidates and resolved.template is None:
        # several templates offered and none chosen: the problems say why
        return ResourceType(
            name, written, resolved.type_name, choice=True, via=via, problems=tuple(problems)
        )
    if resolved.template is not None:
        referrer = ctx.source
        step_file = resolved.chain[-1].file if resolved.chain else None
        for paired in ctx.environments:
            if paired.source.name == step_file:
                referrer = paired.source
        provider = ctx.package.providers.load(ctx.package.package, referrer, resolved.template)
        return ResourceType(name, written, resolved.template, provider=provider, via=via)
    final = resolved.type_name
    schema = catalog.get(final)
    if schema is None:
        alias = stock_alias(final)
        if alias is not None:
            via = f"{via or final} -> {alias} (Heat's stock environment)"
            final = alias
            schema = catalog.get(final)
    return ResourceType(name, written, final, schema=schema, via=via)
