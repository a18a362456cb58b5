"""The template's structure: version, sections, resource and output definitions."""

from __future__ import annotations

from stoker.lint.rule import Source, SourceKind
from stoker.lint.rules.core.base import CodeRule

_HOT_SPEC = "doc/source/template_guide/hot_spec.rst"


class TemplateVersion(CodeRule):
    id = "E1001"
    summary = "The template version is missing, unknown or ambiguous"
    explanation = (
        "Exactly one version key (heat_template_version, AWSTemplateFormatVersion or "
        "HeatTemplateFormatVersion) must hold a version Heat knows, as a string. A file with "
        "none is not a template for Heat ('Template version was not provided'); two are "
        "'Ambiguous versions'. Add or correct the version key; quote it in JSON."
    )
    source = Source(SourceKind.HOT_SPEC, f"{_HOT_SPEC} (heat_template_version)")


class UnknownSection(CodeRule):
    id = "E1002"
    summary = "A top-level section the template version does not have"
    explanation = (
        "Each version accepts a fixed set of sections (HOT: description, parameter_groups, "
        "parameters, resources, outputs, and conditions from 2016-10-14 on). HOT names are "
        "lowercase; Heat rejects anything else with 'The template section is invalid'."
    )
    source = Source(SourceKind.HOT_SPEC, f"{_HOT_SPEC} (template structure)")


class SectionShape(CodeRule):
    id = "E1003"
    summary = "A section has the wrong type"
    explanation = (
        "parameters, resources, outputs and conditions are mappings, parameter_groups a "
        "list, description a string. A section of another type is ignored by the parse and "
        "rejected by Heat."
    )
    source = Source(SourceKind.HOT_SPEC, f"{_HOT_SPEC} (template structure)")


class ResourceDefinition(CodeRule):
    id = "E1010"
    summary = "A resource definition has bad keys or values"
    explanation = (
        "A resource is a mapping with a literal string type and only the keys its version "
        "allows (type, properties, metadata, depends_on, deletion_policy, update_policy, "
        "description; external_id and condition from 2016-10-14). properties, metadata and "
        "update_policy are mappings, depends_on a name or list of names, deletion_policy "
        "Delete, Retain or Snapshot. Heat: 'Invalid keyword(s) inside a resource "
        "definition', 'Each resource must contain a type key'."
    )
    source = Source(SourceKind.HOT_SPEC, f"{_HOT_SPEC} (resources section)")


class OutputDefinition(CodeRule):
    id = "E1011"
    summary = "An output definition has bad keys or no value"
    explanation = (
        "An output is a mapping with a value and optionally description (and condition from "
        "2016-10-14). Heat: 'Each output must contain a value key.'"
    )
    source = Source(SourceKind.HOT_SPEC, f"{_HOT_SPEC} (outputs section)")


class ResourceName(CodeRule):
    id = "E1012"
    summary = "A resource name Heat refuses"
    explanation = (
        "Resource names may not contain '/', and a parameter and a resource may not share a "
        "name (Heat: 'Duplicate names')."
    )
    source = Source(SourceKind.HEAT, "heat/engine/template_common.py (validate_resource names)")
