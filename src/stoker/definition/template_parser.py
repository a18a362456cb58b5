"""Reading a template document into the `stoker.definition.template` model: its version
(`detect_version`), each section checked and typed with positions (`parse_template`), or
a document's sections read as a given version (`parse_sections_as`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from stoker import codes
from stoker.collector import collector_paused
from stoker.definition.relocation import Move
from stoker.definition.reuse import Reuse
from stoker.definition.template import (
    _DELETION_POLICIES,
    CFN_NAMES,
    HOT_NAMES,
    OutputDefinition,
    ResourceDefinition,
    Template,
)
from stoker.diagnostics import Diagnostic, Path, Severity, Span
from stoker.environment.capabilities import (
    CAPABILITIES,
    capabilities_section_hint,
    check_capability_values,
)
from stoker.functions.base import Function, Parser
from stoker.functions.tables import table_for
from stoker.limits import active_limits, exceeded
from stoker.parameters import parse_parameter_groups, parse_parameters
from stoker.template.loader import Document
from stoker.template.nodes import key_span, plain, span_of, value_span
from stoker.template.versions import (
    CFN_HEAT,
    VERSION_KEYS,
    Format,
    TemplateVersion,
    lookup,
    unknown_version,
)


class _VersionError(Exception):
    def __init__(self, diagnostic: Diagnostic) -> None:
        self.diagnostic = diagnostic


def detect_version(data: Any, file: str) -> TemplateVersion:
    """The template version, by the rules of heat-semantics §1.1 (raises _VersionError)."""
    if data is None or (isinstance(data, dict) and not data):
        return CFN_HEAT  # an empty document is the empty skeleton template
    if not isinstance(data, dict):
        raise _VersionError(
            Diagnostic(
                codes.NOT_A_MAPPING,
                "The template is not a JSON object or YAML mapping; a template starts with "
                "a version key such as 'heat_template_version: 2021-04-16'",
                span=span_of(data) or Span(file, 1, 1),
            )
        )
    present = [key for key in VERSION_KEYS if isinstance(data.get(key), str)]
    if len(present) > 1:
        raise _VersionError(
            Diagnostic(
                codes.VERSION,
                f"The template version is invalid: Ambiguous versions ({', '.join(present)}); "
                "keep only one version key",
                span=key_span(data, present[1]),
            )
        )
    if not present:
        wrong_type = [key for key in VERSION_KEYS if key in data]
        span = key_span(data, wrong_type[0]) if wrong_type else span_of(data)
        hint = (
            f"; quote the value of {wrong_type[0]} so it is a string"
            if wrong_type
            else "; add 'heat_template_version: 2021-04-16' (or another version) at the top"
        )
        raise _VersionError(
            Diagnostic(
                codes.VERSION,
                "The template version is invalid: Template version was not provided" + hint,
                span=span or Span(file, 1, 1),
            )
        )
    key = present[0]
    value = str(data[key])
    version = lookup(key, value)
    if version is None:
        raise _VersionError(unknown_version(key, value, value_span(data, key)))
    return version


#: the `Reuse` stage of a resource's entry parsed
_PARSED = "parsed"


def _relocate_parsed(kept: Any, move: Move) -> Any:
    """A moved resource's entry, its findings and calls, at its new lines."""
    return move.entry(kept)


def parse_template(document: Document, reuse: Reuse | None = None) -> Template:
    """Parse a loaded document into a `Template`; problems go to ``diagnostics``.

    ``reuse``: the previous check's resources, taken as they were parsed for those it
    says are unchanged (`stoker.definition.reuse`)."""
    try:
        version = detect_version(document.data, document.file)
    except _VersionError as error:
        return _parsed(document, CFN_HEAT, None, (*document.warnings, error.diagnostic))
    # the loader's warnings (duplicate keys) first
    return _parsed(document, version, reuse or Reuse(), document.warnings)


def _parsed(
    document: Document, version: TemplateVersion, reuse: Reuse | None, found: Iterable[Diagnostic]
) -> Template:
    """A template of ``version`` whose first findings are ``found``, its sections parsed
    when there is a ``reuse`` (none: the version is not known) and a mapping to parse."""
    names = HOT_NAMES if version.format is Format.HOT else CFN_NAMES
    template = Template(document, version, table_for(version), names)
    template.diagnostics.extend(found)
    if reuse is not None and isinstance(document.data, dict):
        with collector_paused():
            _TemplateParser(template, document.data, reuse).run()
    return template


class _TemplateParser:
    def __init__(self, template: Template, data: dict[Any, Any], reuse: Reuse) -> None:
        self.template = template
        self.reuse = reuse
        self.data = data
        self.names = template.names
        self.version = template.version
        self.diagnostics = template.diagnostics
        self.parser = Parser(template.table, self.diagnostics)
        template.calls = self.parser.calls

    def report(
        self,
        code: str,
        message: str,
        path: Path,
        span: Span | None,
        severity: Severity = Severity.ERROR,
    ) -> None:
        self.diagnostics.append(Diagnostic(code, message, path, span, severity))

    def section(self, name: str | None, kind: type[Any], default: Any) -> Any:
        """A section's value, ``default`` when absent or null; reports a wrong type."""
        if name is None or self.data.get(name) is None:
            return default
        value = self.data[name]
        if not isinstance(value, kind):
            names: dict[type[Any], str] = {dict: "a mapping", list: "a list", str: "a string"}
            expected = names[kind]
            self.report(
                codes.SECTION_SHAPE,
                f'The "{name}" section must be {expected}, not {type(value).__name__}',
                (name,),
                value_span(self.data, name),
            )
            return default
        return value

    def run(self) -> None:
        template, names = self.template, self.names
        for key in self.data:
            if key not in self.version.sections:
                hint = _section_hint(str(key), self.version)
                self.report(
                    codes.SECTION,
                    f"The template section is invalid: {key}{hint}",
                    (str(key),),
                    key_span(self.data, key),
                )
        self.non_string_names()
        description = self.data.get(names.description)
        if description is not None:
            # Heat keeps a description of any type as it is (and shows it so).
            template.description = plain(description)
        # Heat reads Mappings only when Fn::FindInMap does (a list is accepted; the call
        # then fails when the output is read): not a mapping is no mapping here
        mappings = self.data.get(names.mappings) if names.mappings else None
        template.mappings = mappings if isinstance(mappings, dict) else {}
        if CAPABILITIES in self.data and self.version.has_capabilities:
            self.capabilities()

        parameters_section = self.section(names.parameters, dict, {})
        template.parameters, found = parse_parameters(
            parameters_section, self.version, (names.parameters,)
        )
        self.diagnostics.extend(found)
        if names.parameter_groups is not None:
            groups = self.data.get(names.parameter_groups)
            if groups is not None:
                template.parameter_groups, found = parse_parameter_groups(
                    groups, template.parameters, self.version, (names.parameter_groups,)
                )
                self.diagnostics.extend(found)

        has_section = self.version.has_conditions and names.conditions in self.data
        if has_section and self.data[names.conditions] is None:
            self.report(
                codes.SECTION_SHAPE,
                "Condition definitions must be a map. Found a NoneType instead",
                (names.conditions,),
                key_span(self.data, names.conditions),
            )
        if self.version.has_conditions:
            for name, expression in self.section(names.conditions, dict, {}).items():
                path = (names.conditions, str(name))
                template.conditions[str(name)] = self.parser.parse_condition(expression, path)
                template.condition_spans[str(name)] = key_span(self.data[names.conditions], name)

        resources = self.section(names.resources, dict, {})
        if len(resources) > active_limits().resources:
            raise exceeded(
                "resources",
                f"the template declares {len(resources):,} resources",
                path=(names.resources,),
                span=key_span(self.data, names.resources),
            )
        # a resource is parsed from its own entry alone, in this version's terms
        reusing = self.reuse.start(_PARSED, str(self.version), own_text=True)
        for name, body in resources.items():
            kept = (
                self.reuse.reused(_PARSED, name, _relocate_parsed)
                if reusing and isinstance(name, str)
                else None
            )
            if kept is None:
                kept = self.parse_resource(str(name), body, self.data[names.resources])
                self.reuse.keep(_PARSED, str(name), kept)
            resource, found, calls = kept
            self.diagnostics.extend(found)
            self.parser.calls.extend(calls)
            if resource is not None:
                template.resources[resource.name] = resource

        for name, body in self.section(names.outputs, dict, {}).items():
            output = self.output(str(name), body, self.data[names.outputs])
            if output is not None:
                template.outputs[output.name] = output

    def non_string_names(self) -> None:
        """Heat refuses a template whose parameter, resource, output or condition name is
        not a string (YAML reads ``no:`` as false and ``null:`` as null)."""
        names = self.names
        for section_name in (names.parameters, names.resources, names.outputs, names.conditions):
            section = self.data.get(section_name) if section_name else None
            if not isinstance(section, dict):
                continue
            for key in section:
                if isinstance(key, str):
                    continue
                shown = (
                    "null" if key is None else str(key).lower() if isinstance(key, bool) else key
                )
                self.report(
                    codes.SECTION_SHAPE,
                    f'The name {shown} in "{section_name}" is not a string (YAML reads it as '
                    f"{type(key).__name__}); quote it",
                    (section_name, str(key)),
                    key_span(section, key),
                )

    def capabilities(self) -> None:
        """Read the annotation, and warn that it does not travel: Heat rejects the section."""
        span = key_span(self.data, CAPABILITIES)
        mapping, found = check_capability_values(self.data[CAPABILITIES], span=span)
        self.template.capabilities = mapping
        self.diagnostics.extend(found)
        self.report(
            codes.CAPABILITIES_NONPORTABLE,
            "Heat itself rejects the capabilities section (The template section is invalid: "
            "capabilities); stoker reads it to choose among the templates a resource_registry "
            "list offers. Leave it out of templates that must also run on Heat",
            (CAPABILITIES,),
            span,
            Severity.WARNING,
        )

    def parse_resource(
        self, name: str, body: Any, section: Any
    ) -> tuple[ResourceDefinition | None, list[Diagnostic], list[Function]]:
        """`resource`, and what parsing it added to the template's findings and calls."""
        found, calls = len(self.diagnostics), len(self.parser.calls)
        resource = self.resource(name, body, section)
        parsed = (resource, self.diagnostics[found:], self.parser.calls[calls:])
        del self.diagnostics[found:], self.parser.calls[calls:]
        return parsed

    def resource(self, name: str, body: Any, section: Any) -> ResourceDefinition | None:
        names = self.names
        path: Path = (names.resources, name)
        span = key_span(section, name)
        if "/" in name:
            self.report(
                codes.RESOURCE_NAME, f'Resource name "{name}" may not contain "/"', path, span
            )
        if "\0" in name:  # no store can keep it (PostgreSQL's text cannot hold a NUL)
            shown = name.replace("\0", "\\0")
            message = f'Resource name "{shown}" may not contain a NUL character'
            self.report(codes.RESOURCE_NAME, message, path, span)
        if not isinstance(body, dict):
            self.report(
                codes.RESOURCE_DEFINITION,
                f'Resource "{name}" must be a mapping with at least a "{names.type}" key',
                path,
                value_span(section, name) or span,
            )
            return None
        # the keys themselves, not their text: a key that is a number (``3``, ``.nan``)
        # is found again, and located, only as the object it is
        unknown = [k for k in body if k not in self.version.resource_keys]
        if unknown and self.version.format is Format.HOT:
            self.report(
                codes.RESOURCE_DEFINITION,
                "Invalid keyword(s) inside a resource definition: "
                f"{', '.join(map(str, unknown))}; "
                f"allowed in {self.version}: {', '.join(sorted(self.version.resource_keys))}",
                (*path, str(unknown[0])),
                key_span(body, unknown[0]) or span_of(body) or span,
            )
        self.null_keys(name, body, path)
        type_name = body.get(names.type)
        if type_name is None:
            self.report(
                codes.RESOURCE_DEFINITION,
                f'Each resource must contain a {names.type} key ("{name}" has none).',
                path,
                span,
            )
            type_name = ""
        elif not isinstance(type_name, str):
            self.report(
                codes.RESOURCE_DEFINITION,
                f"Resource {name} type type must be string (functions are not allowed here)",
                (*path, names.type),
                value_span(body, names.type),
            )
            type_name = ""

        def parsed(key: str, kind: type | None = None) -> Any:
            if key not in body or body[key] is None:
                return None
            tree = self.parser.parse(body[key], (*path, key))
            if kind is not None and not isinstance(tree, kind | Function):
                expected = "a mapping" if kind is dict else "a string"
                self.report(
                    codes.RESOURCE_DEFINITION,
                    f'"{key}" of resource "{name}" must be {expected}',
                    (*path, key),
                    value_span(body, key),
                )
                return None
            return tree

        depends_on, depends_spans = self.depends_on(name, body, path)
        description = body.get(names.description)
        if description is not None and not isinstance(description, str):
            self.report(
                codes.RESOURCE_DEFINITION,
                f'The description of resource "{name}" must be a string',
                (*path, "description"),
                value_span(body, "description"),
            )
            description = None
        deletion_policy = parsed(names.deletion_policy)
        self.check_deletion_policy(deletion_policy, body, path)
        condition = None
        if names.condition in body and names.condition in self.version.resource_keys:
            condition = self.parser.parse_condition(body[names.condition], (*path, names.condition))
        return ResourceDefinition(
            name=name,
            type=str(type_name),
            properties=parsed(names.properties, dict) or {},
            metadata=parsed(names.metadata, dict) or {},
            depends_on=depends_on,
            deletion_policy=deletion_policy,
            update_policy=parsed(names.update_policy, dict),
            description=str(description or ""),
            condition=condition,
            external_id=parsed("external_id") if names is HOT_NAMES else None,
            path=path,
            span=span,
            depends_on_spans=depends_spans,
        )

    def null_keys(self, name: str, body: dict[Any, Any], path: Path) -> None:
        """A resource key given as null: Heat checks each key's type, and null is none of
        them ("Resource r properties type must be object"; measured on 24.1.2)."""
        names = self.names
        expected = {
            names.properties: "object",
            names.metadata: "object",
            names.update_policy: "object",
            names.deletion_policy: "string",
            names.description: "string",
            names.depends_on: "list or string",
        }
        for key, typename in expected.items():
            if key in body and body[key] is None:
                self.report(
                    codes.RESOURCE_DEFINITION,
                    f"Resource {name} {key} type must be {typename}",
                    (*path, key),
                    value_span(body, key) or key_span(body, key),
                )

    def depends_on(
        self, name: str, body: dict[Any, Any], path: Path
    ) -> tuple[tuple[str, ...], tuple[Span | None, ...]]:
        key = self.names.depends_on
        value = body.get(key)
        if value is None:
            return (), ()
        items = value if isinstance(value, list) else [value]
        spans = [
            (value.item_spans[i] if hasattr(value, "item_spans") else None)
            if isinstance(value, list)
            else value_span(body, key)
            for i in range(len(items))
        ]
        if not all(isinstance(item, str) for item in items):
            self.report(
                codes.RESOURCE_DEFINITION,
                f'"{key}" of resource "{name}" must be a resource name or a list of resource names',
                (*path, key),
                value_span(body, key),
            )
            return (), ()
        return tuple(str(item) for item in items), tuple(spans)

    def check_deletion_policy(self, policy: Any, body: dict[Any, Any], path: Path) -> None:
        if policy is None or isinstance(policy, Function):
            return
        allowed = list(_DELETION_POLICIES)
        if self.version.format is Format.HOT and self.version.has_conditions:
            allowed += [p.lower() for p in _DELETION_POLICIES]
        if policy not in allowed:
            key = self.names.deletion_policy
            self.report(
                codes.RESOURCE_DEFINITION,
                f'Invalid deletion policy "{policy}"; use one of {", ".join(allowed)}',
                (*path, key),
                value_span(body, key),
            )

    def output(self, name: str, body: Any, section: Any) -> OutputDefinition | None:
        names = self.names
        path: Path = (names.outputs, name)
        span = key_span(section, name)
        if not isinstance(body, dict) or names.value not in body:
            self.report(
                codes.OUTPUT_DEFINITION,
                f'Each output must contain a {names.value} key ("{name}" has none).',
                path,
                span,
            )
            return None
        unknown = [k for k in body if k not in self.version.output_keys]  # keys as they are
        if unknown and self.version.format is Format.HOT:
            # Heat 24.1.2 ignores them (``condition`` before 2016-10-14 included: the
            # output is always shown); a misspelt key loses its value, hence a warning
            self.report(
                codes.OUTPUT_DEFINITION,
                f"Invalid keyword(s) inside an output definition: {', '.join(map(str, unknown))} "
                "(Heat ignores them)",
                (*path, str(unknown[0])),
                key_span(body, unknown[0]) or span_of(body) or span,
                Severity.WARNING,
            )
        condition = None
        if names.condition in body and names.condition in self.version.output_keys:
            condition = self.parser.parse_condition(body[names.condition], (*path, names.condition))
        description = body.get(names.description)
        return OutputDefinition(
            name=name,
            value=self.parser.parse(body[names.value], (*path, names.value)),
            description=str(description) if description is not None else "No description given",
            condition=condition,
            path=path,
            span=span,
        )


def _section_hint(key: str, version: TemplateVersion) -> str:
    allowed = ", ".join(sorted(version.sections))
    lower = key.lower()
    if version.format is Format.HOT and lower in version.sections:
        return f' (HOT section names are lowercase: "{lower}")'
    if key in ("conditions", "Conditions") and not version.has_conditions:
        return f" (conditions need heat_template_version 2016-10-14 or later; this is {version})"
    if key == CAPABILITIES:
        return capabilities_section_hint(version)
    return f"; the sections of {version} are: {allowed}"


def parse_sections_as(document: Document, version: TemplateVersion) -> Template:
    """The sections of a template without a usable version key, read as ``version``.

    Heat rejects such a template at its version; a linter reading a package by file name
    (ONAP's profile) still has rules about its parameters and resources to apply. The
    returned template's diagnostics are the parser's for that reading, not Heat's answer.
    """
    return _parsed(document, version, Reuse(), ())
