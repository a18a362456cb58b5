"""ONAP requirements on a template as a whole: sections, compliance with Heat."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import ClassVar

from stoker.diagnostics import Diagnostic
from stoker.lint.context import FileContext, TemplateContext
from stoker.lint.onap.base import FromRequirement
from stoker.lint.onap.compliance import heat_answer
from stoker.lint.onap.modules import ModuleRole
from stoker.lint.onap.requirements import requirement
from stoker.lint.rule import FileRule, TemplateRule
from stoker.template.nodes import key_span


class TemplateGuideCompliance(FromRequirement, FileRule):
    requirement = requirement("R-92635")
    summary = "Every error `stoker template validate` reports for the file with its environments"
    checks = (
        "each error `stoker template validate` reports for the file (a module with the "
        "environment files paired with it, as `-e` options; the tree below it followed "
        "as validate follows it) is reported again under this id, at the same position. "
        "A file whose version is missing or unknown gets that error alone, as Heat stops "
        "there. A duplicate key, which Heat's loader lets pass (the last one wins), is "
        "reported too, as ONAP's validation reports it under this id. The default "
        "profile's stricter catalog checks are not part of it."
    )

    def check(self, ctx: FileContext) -> Iterable[Diagnostic]:
        for error in heat_answer(ctx):
            yield replace(
                error,
                code=self.id,
                severity=self.severity,
                message=f"not compliant with the OpenStack Template Guide ({error.code}): "
                f"{error.message}",
            )


class _SectionRule(FromRequirement, TemplateRule):
    """A top-level section a template must have."""

    section: ClassVar[str]

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        data = ctx.data
        if not isinstance(data, dict) or self.section not in data:
            yield self.finding(
                f"the template has no {self.section} section", ctx.start, (self.section,)
            )


class VersionSection(_SectionRule):
    requirement = requirement("R-27078")
    summary = "The template has a heat_template_version section"
    checks = "the top-level key heat_template_version is present."
    section = "heat_template_version"


class DescriptionSection(_SectionRule):
    requirement = requirement("R-39402")
    summary = "The template has a description section"
    checks = "the top-level key description is present."
    section = "description"


class ParametersSection(FromRequirement, TemplateRule):
    requirement = requirement("R-35414")
    summary = "Incremental modules have a parameters section declaring at least one parameter"
    checks = (
        "each template classified as an incremental module has a parameters key that "
        "declares at least one parameter. Base modules, volume modules and nested files "
        "are not held to it: ONAP's validation checks only the modules that are neither "
        "base nor volume nor nested (a base module may take no input; a nested file's "
        "inputs are its parent's choice)."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        if ctx.role is not ModuleRole.INCREMENTAL:
            return
        data = ctx.data
        if not isinstance(data, dict) or "parameters" not in data:
            yield self.finding("the template has no parameters section", ctx.start)
        elif not isinstance(data["parameters"], dict) or not data["parameters"]:
            yield self.finding(
                "the parameters section declares no parameter",
                key_span(data, "parameters"),
                ("parameters",),
            )


class ModuleResourcesSection(FromRequirement, TemplateRule):
    requirement = requirement("R-23664")
    summary = "Incremental and volume modules have a resources section"
    checks = (
        "templates classified as incremental or volume modules (see docs/onap.md: by file "
        "name, and nested when another template uses them as a type) have a resources "
        "key. Base modules and nested files may omit it (R-23663, R-40551)."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        role = ctx.role
        if role not in (ModuleRole.INCREMENTAL, ModuleRole.VOLUME):
            return
        data = ctx.data
        if not isinstance(data, dict) or "resources" not in data:
            yield self.finding(
                f"this {role.value} module has no resources section", ctx.start, ("resources",)
            )


class ResourcesNotEmpty(FromRequirement, TemplateRule):
    requirement = requirement("R-90152")
    summary = "A resources section declares at least one resource"
    checks = "a resources key that is present holds at least one resource."

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        data = ctx.data
        if isinstance(data, dict) and "resources" in data:
            section = data["resources"]
            if not isinstance(section, dict) or not section:
                yield self.finding(
                    "the resources section declares no resource",
                    key_span(data, "resources"),
                    ("resources",),
                )
