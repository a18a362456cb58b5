"""Environment files and files read by get_file."""

from __future__ import annotations

from stoker.diagnostics import Severity
from stoker.lint.rule import Source, SourceKind
from stoker.lint.rules.core.base import CodeRule

_ENVIRONMENT = Source(SourceKind.HEAT, "doc/source/template_guide/environment.rst")


class EnvironmentInvalid(CodeRule):
    id = "E1060"
    summary = "An environment file is invalid"
    explanation = (
        "An environment has only the sections Heat knows (parameters, parameter_defaults, "
        "encrypted_param_names, event_sinks, parameter_merge_strategies, resource_registry), "
        "each of the right shape; registry mappings must not loop. Heat answers many of "
        "these with a bare ValueError. Some findings are information, e.g. a value in "
        "parameter_defaults that no template declares and Heat drops (the templates "
        "stack create would send: the template, those it reads or names as providers, "
        "and those its environment files' registries name)."
    )
    source = _ENVIRONMENT


class EnvironmentNonPortable(CodeRule):
    id = "W1061"
    severity = Severity.WARNING
    summary = "An environment uses something stoker reads but Heat rejects"
    explanation = (
        "For instance the requires section (stoker's, from the capabilities spec): Heat "
        "rejects it ('environment has wrong section'), stoker uses it to choose among the "
        "templates a resource_registry list offers. Leave it out of environments that "
        "must also work with Heat."
    )
    source = _ENVIRONMENT


class FileOutsideTree(CodeRule):
    id = "E1070"
    summary = "get_file reaches outside the template's directory"
    explanation = (
        "A get_file path leaves the template's directory tree (through '..', an absolute "
        "path, a file:// URL or a symlink); such files are not read, so a template cannot "
        "pull arbitrary local files into a stack. In a package the archive is the limit."
    )
    source = Source(SourceKind.STOKER, "get_file reads only the template's own tree")


class FileNotFetched(CodeRule):
    id = "W1071"
    severity = Severity.WARNING
    summary = "get_file of a URL, whose content is not checked"
    explanation = (
        "URLs are never fetched, so whatever get_file would read from one is unknown to "
        "validation and to the linter."
    )
    source = Source(SourceKind.STOKER, "URLs are not fetched")
