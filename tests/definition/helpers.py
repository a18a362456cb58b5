"""Shared helpers for definition tests: build templates and definitions from text."""

from __future__ import annotations

import textwrap

from stoker.definition.stack import StackDefinition, define_stack
from stoker.definition.template import Template
from stoker.definition.template_parser import parse_template
from stoker.environment import merge_environments, parse_environment
from stoker.template.loader import load_document


def template_from(text: str, file: str = "t.yaml") -> Template:
    return parse_template(load_document(textwrap.dedent(text), file))


def definition_from(
    text: str,
    env: str | None = None,
    *,
    files: dict[str, str] | None = None,
    require_all: bool = False,
    parameters: dict[str, str] | None = None,
) -> StackDefinition:
    template = template_from(text)
    environments = []
    if env is not None:
        environment, found = parse_environment(load_document(textwrap.dedent(env), "env.yaml"))
        assert not [d for d in found if d.is_error], found
        environments.append(environment)
    environment, found = merge_environments(environments, explicit_parameters=parameters or {})
    assert not [d for d in found if d.is_error], found
    return define_stack(template, environment, files, require_all_parameters=require_all)


def rendered(diagnostics) -> list[str]:
    return [d.render() for d in diagnostics]


def errors(definition: StackDefinition) -> list[str]:
    return rendered(definition.errors)
