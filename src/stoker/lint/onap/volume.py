"""ONAP's volume modules feeding their module (beyond the seed's 5.2.2).

A volume module ``<module>_volume.yaml`` creates Cinder volumes for the module
``<module>.yaml`` beside it; ONAP hands the volume module's outputs to that module as
parameters of the same name. So the outputs must carry each volume's UUID, and the module
must declare each output as a parameter, of a type the value fits.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from stoker.diagnostics import Diagnostic
from stoker.lint.context import PackageContext, TemplateContext
from stoker.lint.onap.base import FromRequirement
from stoker.lint.onap.modules import VOLUME_NAME, ModuleRole
from stoker.lint.onap.nested import invocations
from stoker.lint.onap.requirements import requirement
from stoker.lint.onap.written import resources_of, section
from stoker.lint.rule import PackageRule, TemplateRule
from stoker.template.nodes import key_span

VOLUME = "OS::Cinder::Volume"


def _resources_read(value: Any) -> Iterator[str]:
    """Resource names a value reads with get_resource (anywhere inside it)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if len(item) == 1 and isinstance(item.get("get_resource"), str):
                yield str(item["get_resource"])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def volume_pairs(
    package: PackageContext,
) -> Iterator[tuple[TemplateContext, TemplateContext | None]]:
    """Each volume module with its module (None when the package has none beside it)."""
    by_place = {(t.source.directory, t.source.stem.lower()): t for t in package.templates}
    for template in package.templates:
        if template.role is not ModuleRole.VOLUME:
            continue
        stem = VOLUME_NAME.sub("", template.source.stem).lower()
        module = by_place.get((template.source.directory, stem))
        yield template, module


class VolumeOutputsCarryUuids(FromRequirement, TemplateRule):
    requirement = requirement("R-89913")
    summary = "A volume module outputs the UUID of each Cinder volume it creates"
    checks = (
        "in a volume module, each OS::Cinder::Volume resource is read by a get_resource "
        "in some output's value."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        if ctx.role is not ModuleRole.VOLUME:
            return
        outputs = section(ctx.data, "outputs")
        read = {name for output in outputs.values() for name in _resources_read(output)}
        for name, _, span in resources_of(ctx, VOLUME):
            if name not in read:
                yield self.finding(
                    f'volume "{name}": no output gives its UUID ({{get_resource: {name}}})',
                    span,
                    ("resources", name),
                )


class VolumeModuleHasModule(FromRequirement, PackageRule):
    requirement = requirement("R-82732")
    summary = "A volume module is named after its module: <module>_volume beside <module>"
    checks = (
        "for each volume module <module>_volume.yaml, the package holds the module "
        "<module>.yaml (or .yml) beside it, the module its outputs feed."
    )

    def check(self, ctx: PackageContext) -> Iterable[Diagnostic]:
        for volume, module in volume_pairs(ctx):
            if module is None:
                yield self.finding(
                    f"no module {VOLUME_NAME.sub('', volume.source.stem)}.yaml beside "
                    "this volume module: name it <module>_volume after the module it serves",
                    volume.start,
                )


class VolumeOutputsAreModuleParameters(FromRequirement, PackageRule):
    requirement = requirement("R-07443")
    summary = "Each output of a volume module is a parameter of its module, of a fitting type"
    checks = (
        "for each volume module <module>_volume.yaml, the module <module>.yaml beside it "
        "declares a parameter named after each of the volume module's outputs; where the "
        "output's value is a get_resource (a UUID) the parameter is a string. A volume "
        "module without its module is R-82732's finding (as in ONAP's validation, which "
        "skips it here)."
    )

    def check(self, ctx: PackageContext) -> Iterable[Diagnostic]:
        for volume, module in volume_pairs(ctx):
            if module is None:
                continue
            outputs = section(volume.data, "outputs")
            parameters = section(module.data, "parameters")
            for name, output in outputs.items():
                where = key_span(outputs, name)
                declared = parameters.get(name)
                if name not in parameters:
                    yield self.finding(
                        f'output "{name}" is not a parameter of {module.source.relpath}',
                        where,
                        ("outputs", str(name)),
                    )
                    continue
                value = output.get("value") if isinstance(output, dict) else None
                is_uuid = isinstance(value, dict) and "get_resource" in value
                kind = declared.get("type") if isinstance(declared, dict) else None
                if is_uuid and kind != "string":
                    yield self.finding(
                        f'output "{name}" is a volume UUID but parameter "{name}" of '
                        f"{module.source.relpath} has type {kind!r}; it must be string",
                        where,
                        ("outputs", str(name)),
                    )


class VolumeParametersUnconstrained(FromRequirement, PackageRule):
    requirement = requirement("R-20547")
    summary = "A module's parameter fed by its volume module declares no constraints"
    checks = (
        "a parameter of a module named after an output of the module's volume module "
        "declares no constraints."
    )

    def check(self, ctx: PackageContext) -> Iterable[Diagnostic]:
        for volume, module in volume_pairs(ctx):
            if module is None:
                continue
            parameters = section(module.data, "parameters")
            for name in section(volume.data, "outputs"):
                declared = parameters.get(name)
                if isinstance(declared, dict) and "constraints" in declared:
                    yield self.finding(
                        f'parameter "{name}" comes from the volume module\'s output; it '
                        "should declare no constraints",
                        key_span(declared, "constraints"),
                        ("parameters", str(name), "constraints"),
                    )


def _has_volume(ctx: TemplateContext) -> bool:
    return next(resources_of(ctx, VOLUME), None) is not None


class VolumeModuleHasVolume(FromRequirement, TemplateRule):
    requirement = requirement("R-270358")
    summary = "A volume module creates a Cinder volume, itself or through a nested file"
    checks = (
        "each volume module has an OS::Cinder::Volume resource, or a resource (a "
        "ResourceGroup's member, or a type naming a nested file of the package) whose "
        "nested file has one."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        if ctx.role is not ModuleRole.VOLUME or _has_volume(ctx):
            return
        if any(_has_volume(invocation.target) for invocation in invocations(ctx)):
            return
        yield self.finding(
            "this volume module creates no OS::Cinder::Volume (itself or in a nested file)",
            ctx.start,
        )


class VolumeWithoutZone(FromRequirement, TemplateRule):
    requirement = requirement("R-25190")
    summary = "An OS::Cinder::Volume declares no availability_zone"
    checks = "no OS::Cinder::Volume sets the availability_zone property."

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for name, definition, _ in resources_of(ctx, VOLUME):
            properties = definition.get("properties")
            if isinstance(properties, dict) and "availability_zone" in properties:
                yield self.finding(
                    f'volume "{name}" sets availability_zone; ONAP volumes should use the '
                    "default zone",
                    key_span(properties, "availability_zone"),
                    ("resources", name, "properties", "availability_zone"),
                )
