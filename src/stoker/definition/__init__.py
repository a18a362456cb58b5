"""Stack definitions: a template, its environment, parameters and files read into the
checked, resolved stack the engine runs and `template validate` reports on.

Other packages import these names from here, never from the modules (import-linter's
"protected" contract in pyproject.toml). Each is imported from its module on first use
(`stoker.lazy.names_from`): importing the package loads none of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stoker.lazy import names_from

if TYPE_CHECKING:
    from stoker.definition.archive import BLUEPRINT_ENTRY, ENTRY, StackPackage, read_package
    from stoker.definition.conditions import ConditionEvaluator
    from stoker.definition.context import (
        CFN_PSEUDO,
        HOT_PSEUDO,
        StaticContext,
        chosen_zones,
        partial_resolve,
        stack_arn,
        zones_from,
    )
    from stoker.definition.declared import TemplateReads, client_declared, declared_types
    from stoker.definition.edges import EdgeReason
    from stoker.definition.files import (
        CollectedFiles,
        FilesMap,
        Located,
        collect_files,
        collect_with,
        in_package,
        package_template_file,
    )
    from stoker.definition.loading import (
        CurrentInputs,
        LoadOptions,
        LoadResult,
        load_definition,
        load_update_definition,
    )
    from stoker.definition.relocation import Move
    from stoker.definition.requests import (
        RequestInputs,
        load_request,
        load_update_request,
        read_template,
    )
    from stoker.definition.reuse import Placed, Reuse, relocated
    from stoker.definition.sensitive import (
        NO_TAINT,
        SENSITIVE,
        ChildTaint,
        Taint,
        child_taint,
        handed_down,
        hidden_names,
        hidden_parameters,
        sensitive_outputs,
        sensitive_properties,
        sensitive_resources,
        shown_template,
        withheld_failure,
        withheld_messages,
        withhold,
        without_hidden,
    )
    from stoker.definition.stack import StackDefinition, define_stack
    from stoker.definition.template import Template
    from stoker.definition.template_parser import parse_sections_as, parse_template
    from stoker.definition.typos import share_misspelled

_WHERE = {
    "BLUEPRINT_ENTRY": "stoker.definition.archive",
    "CFN_PSEUDO": "stoker.definition.context",
    "ChildTaint": "stoker.definition.sensitive",
    "CollectedFiles": "stoker.definition.files",
    "ConditionEvaluator": "stoker.definition.conditions",
    "CurrentInputs": "stoker.definition.loading",
    "ENTRY": "stoker.definition.archive",
    "EdgeReason": "stoker.definition.edges",
    "FilesMap": "stoker.definition.files",
    "HOT_PSEUDO": "stoker.definition.context",
    "LoadOptions": "stoker.definition.loading",
    "LoadResult": "stoker.definition.loading",
    "NO_TAINT": "stoker.definition.sensitive",
    "RequestInputs": "stoker.definition.requests",
    "Reuse": "stoker.definition.reuse",
    "Move": "stoker.definition.relocation",
    "Placed": "stoker.definition.reuse",
    "relocated": "stoker.definition.reuse",
    "SENSITIVE": "stoker.definition.sensitive",
    "StackDefinition": "stoker.definition.stack",
    "StackPackage": "stoker.definition.archive",
    "StaticContext": "stoker.definition.context",
    "Taint": "stoker.definition.sensitive",
    "Template": "stoker.definition.template",
    "child_taint": "stoker.definition.sensitive",
    "client_declared": "stoker.definition.declared",
    "declared_types": "stoker.definition.declared",
    "TemplateReads": "stoker.definition.declared",
    "chosen_zones": "stoker.definition.context",
    "collect_files": "stoker.definition.files",
    "collect_with": "stoker.definition.files",
    "Located": "stoker.definition.files",
    "define_stack": "stoker.definition.stack",
    "handed_down": "stoker.definition.sensitive",
    "hidden_names": "stoker.definition.sensitive",
    "hidden_parameters": "stoker.definition.sensitive",
    "in_package": "stoker.definition.files",
    "load_definition": "stoker.definition.loading",
    "load_request": "stoker.definition.requests",
    "load_update_definition": "stoker.definition.loading",
    "load_update_request": "stoker.definition.requests",
    "package_template_file": "stoker.definition.files",
    "parse_sections_as": "stoker.definition.template_parser",
    "parse_template": "stoker.definition.template_parser",
    "partial_resolve": "stoker.definition.context",
    "read_package": "stoker.definition.archive",
    "read_template": "stoker.definition.requests",
    "sensitive_outputs": "stoker.definition.sensitive",
    "sensitive_properties": "stoker.definition.sensitive",
    "sensitive_resources": "stoker.definition.sensitive",
    "share_misspelled": "stoker.definition.typos",
    "shown_template": "stoker.definition.sensitive",
    "stack_arn": "stoker.definition.context",
    "withheld_failure": "stoker.definition.sensitive",
    "withheld_messages": "stoker.definition.sensitive",
    "withhold": "stoker.definition.sensitive",
    "without_hidden": "stoker.definition.sensitive",
    "zones_from": "stoker.definition.context",
}

__all__ = [
    "BLUEPRINT_ENTRY",
    "CFN_PSEUDO",
    "ChildTaint",
    "CollectedFiles",
    "ConditionEvaluator",
    "CurrentInputs",
    "ENTRY",
    "EdgeReason",
    "FilesMap",
    "HOT_PSEUDO",
    "LoadOptions",
    "LoadResult",
    "NO_TAINT",
    "RequestInputs",
    "Reuse",
    "Move",
    "Placed",
    "relocated",
    "SENSITIVE",
    "StackDefinition",
    "StackPackage",
    "StaticContext",
    "Taint",
    "Template",
    "child_taint",
    "client_declared",
    "declared_types",
    "TemplateReads",
    "chosen_zones",
    "collect_files",
    "collect_with",
    "Located",
    "define_stack",
    "handed_down",
    "hidden_names",
    "hidden_parameters",
    "in_package",
    "load_definition",
    "load_request",
    "load_update_definition",
    "load_update_request",
    "package_template_file",
    "parse_sections_as",
    "parse_template",
    "partial_resolve",
    "read_package",
    "read_template",
    "sensitive_outputs",
    "sensitive_properties",
    "sensitive_resources",
    "share_misspelled",
    "shown_template",
    "stack_arn",
    "withheld_failure",
    "withheld_messages",
    "withhold",
    "without_hidden",
    "zones_from",
]

__getattr__ = names_from(__name__, _WHERE)
