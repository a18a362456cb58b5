"""ONAP requirements on resources: names, where definitions come from, get_param nesting."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any
from urllib.parse import urlparse

from stoker.diagnostics import Diagnostic
from stoker.functions.base import Function
from stoker.lint.context import TemplateContext
from stoker.lint.onap.base import FromRequirement
from stoker.lint.onap.modules import references
from stoker.lint.onap.requirements import requirement
from stoker.lint.onap.written import NAME_CHARACTERS, section
from stoker.lint.rule import TemplateRule
from stoker.template.nodes import value_span

#: schemes by which a definition would be fetched from elsewhere (ONAP's validator's list)
REMOTE_SCHEMES = ("http", "https", "ftp", "ftps", "file")


def is_remote(reference: str) -> bool:
    # most references have no "://", and are answered without parsing
    return "://" in reference and urlparse(reference).scheme.lower() in REMOTE_SCHEMES


class ResourceIdCharacters(FromRequirement, TemplateRule):
    requirement = requirement("R-75141")
    summary = "Resource names contain only letters, digits and underscores"
    checks = "each resource name matches [A-Za-z0-9_]+."

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for name, resource in ctx.parsed.resources.items():
            if not NAME_CHARACTERS.match(name):
                yield self.finding_at(
                    f'resource name "{name}" may contain only letters, digits and "_"',
                    resource,
                )


class NoRemoteDefinitions(FromRequirement, TemplateRule):
    requirement = requirement("R-53952")
    summary = "No resource's type is a URL (a definition fetched over HTTP)"
    checks = (
        "no resource's own type is a URL (http, https, ftp, ftps, file): its definition "
        "would be fetched from outside the package. This is how ONAP's validation reads "
        "it (the same check as R-71699's, on the resource's type); a get_file of a URL "
        "is R-41888's, and a group's member type R-71699's."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for reference in references(ctx):
            if not reference.member and is_remote(reference.type):
                yield self.finding_at(
                    f'resource "{reference.resource}" takes its definition from '
                    f"{reference.type}; ship it in the package and name it by relative path",
                    reference,
                )


class NoRemoteNestedTemplates(FromRequirement, TemplateRule):
    requirement = requirement("R-71699")
    summary = "No resource type (or group member type) is a URL"
    checks = (
        "no resource type, and no member type of a ResourceGroup, AutoScalingGroup or "
        "ResourceChain, is a URL (http, https, ftp, ftps, file): nested templates ship in "
        "the package."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for reference in references(ctx):
            if is_remote(reference.type):
                yield self.finding_at(
                    f'resource "{reference.resource}" uses {reference.type} as a nested '
                    "template; ship it in the package and name it by relative path",
                    reference,
                )


def _get_params_in(value: Any) -> Iterator[Function]:
    """The get_param calls directly inside ``value`` (not inside another get_param)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Function):
            if item.name == "get_param":
                yield item
                continue
            stack.extend(item.children(None))
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


class GetParamNesting(FromRequirement, TemplateRule):
    requirement = requirement("R-10834")
    summary = "At most two levels of get_param, the inner one taking a plain name"
    checks = (
        "in resource properties, a get_param nested in another get_param takes a parameter "
        "name only: {get_param: [names, {get_param: index}]} is fine; an inner get_param "
        "with a list argument ({get_param: [list, 0]}, a list inside the outer list) or "
        "with a get_param of its own (a third level) is reported at the inner call."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        template = ctx.parsed
        properties = template.names.properties
        for call in ctx.calls("get_param"):
            path = call.path
            if len(path) < 3 or path[0] != template.names.resources or path[2] != properties:
                continue
            for inner in _get_params_in(call.args):
                nested = next(_get_params_in(inner.args), None)
                if isinstance(inner.args, list) or nested is not None:
                    what = "a third get_param" if nested is not None else "a list argument"
                    yield self.finding_at(
                        f"a get_param nested in another get_param must take a plain "
                        f"parameter name, not {what} (SDC cannot derive the value)",
                        inner,
                    )


class MetadataIsMap(FromRequirement, TemplateRule):
    requirement = requirement("R-67386")
    summary = "A resource's metadata, where declared, is a map of values"
    checks = (
        "a permission, so only its form is checked: metadata, where a resource declares "
        "it, is a mapping (or a function that computes one); ONAP reads it as key/value "
        "pairs. Reported at the metadata value."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        template = ctx.parsed
        key = template.names.metadata
        for name, body in section(ctx.data, template.names.resources).items():
            if not isinstance(body, dict) or body.get(key) is None:
                continue
            if not isinstance(body[key], dict):
                yield self.finding(
                    f'metadata of resource "{name}" is not a map of values',
                    value_span(body, key),
                    (template.names.resources, str(name), key),
                )
