"""JSON Schema (draft 2020-12) of a HOT template of one version, and of environment files.

Generated from what stoker already knows: the version's sections and definition keys
(`stoker.template.versions`), its functions (`stoker.functions.tables`), the parameter
keys and types (`stoker.parameters`), and every resource type of Heat's catalog with its
properties (`stoker.resources.catalog`), chosen by the resource's ``type`` through
``if``/``then``. A type the catalog does not know (a provider template, a registry
mapping) is any string, its properties unchecked: only the environment says what it is.
"""

from __future__ import annotations

import json
import os
from typing import Any

from stoker.environment import SECTION_NAMES
from stoker.environment.environment import REQUIRES, MergeStrategy
from stoker.parameters import ConstraintKind, ParameterType
from stoker.resources import heat_catalog
from stoker.schema.functions import CALL_REF, CONDITION_REF, calls_schema, conditions_schema
from stoker.schema.properties import describe_type, resource_properties, value_defs
from stoker.template.versions import HOT_VERSIONS, Format, TemplateVersion

DRAFT = "https://json-schema.org/draft/2020-12/schema"
#: where the committed schemas are published (their ``$id``), relative to the repository
SCHEMA_DIRECTORY = "schemas"

_CALL: dict[str, Any] = {"$ref": CALL_REF}
_CONDITION: dict[str, Any] = {"$ref": CONDITION_REF}
_ANY_STRING: dict[str, Any] = {"anyOf": [{"type": "string"}, _CALL]}
_DELETION_POLICIES = ["Delete", "Retain", "Snapshot"]
_PARAMETER_TAGS_FROM = "2018-03-02"


def file_name(version: TemplateVersion) -> str:
    """The committed file of a version's schema: ``template-2021-04-16.json``."""
    return f"template-{version.value}.json"


ENVIRONMENT_FILE = "environment.json"


def template_schema(version: TemplateVersion) -> dict[str, Any]:
    """The schema of a HOT template of ``version``; ValueError for a CFN version."""
    if version.format is not Format.HOT:
        raise ValueError(f"{version} is a CFN version: the schemas describe HOT templates")
    sections: dict[str, Any] = {
        "heat_template_version": {
            "description": "The HOT version, which decides the sections and functions",
            "enum": [version.value, *([version.alias] if version.alias else [])],
        },
        "description": {"type": "string", "description": "What the template is for"},
        "parameter_groups": _parameter_groups(),
        "parameters": {
            "type": ["object", "null"],
            "description": "The inputs of the template, by name",
            "additionalProperties": _parameter(version),
        },
        "resources": {
            "type": ["object", "null"],
            "description": "The resources of the stack, by name",
            "additionalProperties": {"$ref": "#/$defs/resource"},
        },
        "outputs": {
            "type": ["object", "null"],
            "description": "The values the stack shows, by name",
            "additionalProperties": _output(version),
        },
    }
    if version.has_conditions:
        sections["conditions"] = {  # Heat refuses an empty one
            "type": "object",
            "description": "Named conditions resources and outputs are created under",
            "additionalProperties": _CONDITION,
        }
    if version.has_capabilities:
        sections["capabilities"] = {
            "type": ["object", "null"],
            "description": "stoker's capability annotations (the heat-specs proposal)",
        }
    assert set(sections) == set(version.sections), "a section of the version is not described"
    return {
        "$schema": DRAFT,
        "title": f"HOT template, heat_template_version {version.value}",
        "type": "object",
        "required": ["heat_template_version"],
        "properties": sections,
        "additionalProperties": False,
        "$defs": {
            "call": calls_schema(version),
            "condition": conditions_schema(version),
            "resource": _resource(version),
            **value_defs(),
        },
    }


def _parameter_groups() -> dict[str, Any]:
    return {
        "type": ["array", "null"],
        "description": "How a user interface groups and orders the parameters",
        "items": {
            "type": "object",
            "properties": {
                "label": {"type": "string"},
                "description": {"type": "string"},
                "parameters": {"type": "array", "items": {"type": "string"}},
            },
            "additionalProperties": False,
        },
    }


def _parameter(version: TemplateVersion) -> dict[str, Any]:
    constraint_keys = ["description", *(kind.value for kind in ConstraintKind)]
    keys: dict[str, Any] = {
        "type": {
            "description": "The parameter's type",
            "enum": [kind.value for kind in ParameterType],
        },
        "description": {"type": "string"},
        "label": {"type": "string"},
        "default": {"description": "The value when none is given"},
        "hidden": {"type": ["boolean", "string"], "description": "Whether the value is masked"},
        "immutable": {"type": ["boolean", "string"]},
        "schema": {"type": "object"},
        "constraints": {
            "type": "array",
            "items": {
                "type": "object",
                "propertyNames": {"enum": constraint_keys},
                "minProperties": 1,
            },
        },
    }
    if version.value >= _PARAMETER_TAGS_FROM:
        keys["tags"] = {"type": "array", "items": {"type": "string"}}
    return {
        "type": "object",
        "required": ["type"],
        "properties": keys,
        "additionalProperties": False,
    }


def _output(version: TemplateVersion) -> dict[str, Any]:
    keys: dict[str, Any] = {
        "description": {"type": "string"},
        "value": {"description": "The output's value (functions allowed)"},
    }
    if "condition" in version.output_keys:
        keys["condition"] = _CONDITION
    return {"type": ["object", "null"], "properties": keys, "additionalProperties": False}


def _resource(version: TemplateVersion) -> dict[str, Any]:
    catalog = heat_catalog()
    names = catalog.names()
    keys: dict[str, Any] = {
        "type": {
            "description": "The resource type: one of the catalog, a provider template "
            "(a file name) or a name the environment's resource_registry maps",
            "anyOf": [{"enum": names}, {"type": "string"}],
        },
        "properties": {"description": "The resource's properties, as its type declares"},
        "metadata": {"anyOf": [{"type": ["object", "null"]}, _CALL]},
        "depends_on": {
            "description": "Resources created before this one",
            "anyOf": [{"type": "string"}, {"type": "array", "items": _ANY_STRING}, _CALL],
        },
        "deletion_policy": {"anyOf": [{"enum": _DELETION_POLICIES}, _CALL]},
        "update_policy": {"anyOf": [{"type": ["object", "null"]}, _CALL]},
        "description": {"type": "string"},
    }
    if "condition" in version.resource_keys:
        keys["condition"] = _CONDITION
    if "external_id" in version.resource_keys:
        keys["external_id"] = _ANY_STRING
    assert set(keys) == set(version.resource_keys), "a resource key is not described"
    by_type = [
        {
            "if": {"properties": {"type": {"const": name}}, "required": ["type"]},
            "then": {
                "description": describe_type(catalog.types[name]),
                "properties": {"properties": resource_properties(catalog.types[name])},
            },
        }
        for name in names
    ]
    return {
        "type": "object",
        "required": ["type"],
        "properties": keys,
        "additionalProperties": False,
        "allOf": by_type,
    }


def environment_schema() -> dict[str, Any]:
    """The schema of an environment file (``stack create -e``): its six sections, and
    stoker's ``requires``, read with a warning."""
    strategies = [strategy.value for strategy in MergeStrategy]
    registry_entry: dict[str, Any] = {"anyOf": [{"type": "string"}, {"type": "object"}]}
    sections: dict[str, Any] = {
        "parameters": {"type": ["object", "null"], "description": "Parameter values, by name"},
        "parameter_defaults": {
            "type": ["object", "null"],
            "description": "Defaults for parameters of this and nested templates",
        },
        "encrypted_param_names": {"type": ["array", "null"], "items": {"type": "string"}},
        "event_sinks": {
            "type": ["array", "null"],
            "items": {
                "type": "object",
                "properties": {"type": {"type": "string"}, "target": {}, "ttl": {}},
                "additionalProperties": False,
            },
        },
        "parameter_merge_strategies": {
            "type": ["object", "null"],
            "additionalProperties": {"enum": strategies},
        },
        "resource_registry": {
            "type": ["object", "null"],
            "description": "Type names mapped to other types or template files; "
            "'resources' holds per-resource mappings and hooks",
            "additionalProperties": registry_entry,
        },
        REQUIRES: {"description": "stoker's capability requirements"},
    }
    assert set(SECTION_NAMES) <= set(sections), "an environment section is not described"
    return {
        "$schema": DRAFT,
        "title": "Heat environment file",
        "type": ["object", "null"],
        "properties": sections,
        "additionalProperties": False,
    }


def committed_schemas() -> dict[str, dict[str, Any]]:
    """Every schema committed under ``schemas/``, by file name."""
    files = {file_name(version): template_schema(version) for version in HOT_VERSIONS}
    files[ENVIRONMENT_FILE] = environment_schema()
    return files


def render(schema: dict[str, Any]) -> str:
    """A schema as the committed files hold it: JSON, one value per line (diffable),
    unindented (an indent would double the size of files this deep)."""
    return json.dumps(schema, indent=0, ensure_ascii=False) + "\n"


def write_schemas(directory: str) -> list[str]:
    """Write `committed_schemas` into ``directory``; the paths written."""
    os.makedirs(directory, exist_ok=True)
    written = []
    for name, schema in committed_schemas().items():
        path = os.path.join(directory, name)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(render(schema))
        written.append(path)
    return written
