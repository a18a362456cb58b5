"""ONAP's OS::Nova::Server metadata: vnf_id, vf_module_id and vnf_name (beyond the seed).

Each server's metadata carries the three keys, each from a get_param of the parameter of
the same name, declared a string without constraints, and never in the environment file
(ONAP supplies the values at instantiation).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from stoker.diagnostics import Diagnostic, Span
from stoker.lint.context import TemplateContext
from stoker.lint.onap.nova import NovaRule, Server, declared, enumerated, parameter_read, servers
from stoker.lint.onap.requirements import requirement
from stoker.template.nodes import key_span, span_of, value_span


def _metadata(server: Server) -> tuple[dict[Any, Any] | None, Span | None]:
    metadata = server.properties.get("metadata")
    return (metadata if isinstance(metadata, dict) else None), span_of(metadata)


class _MetadataPresent(NovaRule):
    key: ClassVar[str]

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for server in servers(ctx):
            metadata, _ = _metadata(server)
            if metadata is None or self.key not in metadata:
                yield self.finding(
                    f'server "{server.name}": metadata must have {self.key} '
                    f"({{get_param: {self.key}}})",
                    server.span,
                    server.path,
                )
            elif parameter_read(metadata[self.key]) is None:
                yield self.finding(
                    f'server "{server.name}": metadata {self.key} must be a get_param',
                    value_span(metadata, self.key),
                    (*server.path, "properties", "metadata", self.key),
                )


class _MetadataParameter(NovaRule):
    key: ClassVar[str]

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for server in servers(ctx):
            metadata, _ = _metadata(server)
            if metadata is None or self.key not in metadata:
                continue
            parameter = parameter_read(metadata[self.key])
            if parameter is None:
                continue
            where = value_span(metadata, self.key)
            definition = declared(ctx, parameter)
            if parameter != self.key:
                yield self.finding(
                    f'server "{server.name}": metadata {self.key} reads "{parameter}"; the '
                    f"parameter must be named {self.key}",
                    where,
                    (*server.path, "properties", "metadata", self.key),
                )
            elif definition is not None and definition.get("type", "string") != "string":
                yield self.finding(
                    f'parameter "{parameter}" has type {definition.get("type")!r}; it must '
                    "be string",
                    value_span(definition, "type"),
                    ("parameters", parameter, "type"),
                )


class _MetadataNoConstraints(NovaRule):
    key: ClassVar[str]

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        if not any(_reads(server, self.key) for server in servers(ctx)):
            return
        definition = declared(ctx, self.key)
        if definition is not None and "constraints" in definition:
            yield self.finding(
                f'parameter "{self.key}" (server metadata, supplied by ONAP) must have no '
                "constraints",
                key_span(definition, "constraints"),
                ("parameters", self.key, "constraints"),
            )


class _MetadataNotInEnvironment(NovaRule):
    key: ClassVar[str]

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        values = enumerated(ctx)
        if values is None or self.key not in values:
            return
        if any(_reads(server, self.key) for server in servers(ctx)):
            yield self.finding(
                f'parameter "{self.key}" is supplied by ONAP; remove it from the environment file',
                values[self.key],
            )


def _reads(server: Server, key: str) -> bool:
    metadata, _ = _metadata(server)
    return metadata is not None and parameter_read(metadata.get(key)) == key


def _metadata_rules(key: str, present: str, named: str, bare: str, absent: str) -> list[type]:
    rules: list[type] = []
    for base, rid, summary, checks in (
        (
            _MetadataPresent,
            present,
            f"A server's metadata has {key}, from a get_param",
            f"each OS::Nova::Server's metadata has the key {key}, its value a get_param.",
        ),
        (
            _MetadataParameter,
            named,
            f"The parameter of metadata {key} is {key}, a string",
            f"the get_param of metadata {key} reads the parameter {key}, declared as string.",
        ),
        (
            _MetadataNoConstraints,
            bare,
            f"The parameter {key} has no constraints",
            f"the parameter {key}, read by a server's metadata, declares no constraints.",
        ),
        (
            _MetadataNotInEnvironment,
            absent,
            f"The parameter {key} is not in the environment file",
            f"the parameter {key}, read by a server's metadata, is not a key of the module's "
            "environment parameters (ONAP supplies it).",
        ),
    ):
        name = f"{base.__name__.strip('_')}_{key}"
        rules.append(
            type(
                name,
                (base,),
                {
                    "requirement": requirement(rid),
                    "summary": summary,
                    "checks": checks,
                    "key": key,
                    "__module__": __name__,
                },
            )
        )
    return rules


METADATA_RULES: list[type] = [
    *_metadata_rules("vnf_id", "R-37437", "R-07507", "R-55218", "R-20856"),
    *_metadata_rules("vf_module_id", "R-71493", "R-82134", "R-98374", "R-72871"),
    *_metadata_rules("vnf_name", "R-72483", "R-62428", "R-44318", "R-36542"),
]
