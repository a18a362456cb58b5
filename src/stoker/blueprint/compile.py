"""From a resolved blueprint to HOT: one resource per component (named after its id), of
its library template's resource type, with the properties its requirements wire up; an
environment mapping those types to the library templates; and the templates as files.

The text is written with a comment above each resource saying what its type is and how
it was chosen, and, for each requirement, what fulfilled it and why; PyYAML writes no
comments, so each resource's YAML is dumped alone and the comments put around it.
"""

from __future__ import annotations

import base64
import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import yaml

from stoker.blueprint import codes
from stoker.blueprint.cloudfacts import (
    CloudFacts,
    choose_flavor,
    choose_image,
    choose_subnet,
    choose_zone,
    size_mb,
)
from stoker.blueprint.decisions import (
    CLOUD_TYPES,
    JURISDICTION,
    Decisions,
    Fulfilment,
    Rejection,
)
from stoker.blueprint.flow import flow_edges, output_source, resource_of
from stoker.blueprint.library import LibraryType
from stoker.blueprint.model import Component, Requirement, requirement_of
from stoker.diagnostics import Diagnostic, Span
from stoker.errors import RequirementUnmet

HOT_VERSION = "2018-08-31"
#: the environment's parameter_defaults entry that says where the cloud's zones are
LOCATIONS = "blueprint_locations"

ContentReader = Callable[[str], bytes]


@dataclass(slots=True)
class CloudChoice:
    """What the cloud answered for one component: parameter -> (value, why)."""

    values: dict[str, tuple[Any, str]] = field(default_factory=dict)
    rejected: dict[str, list[Rejection]] = field(default_factory=dict)


@dataclass(slots=True)
class Compiled:
    template: dict[str, Any]
    text: str
    environment: dict[str, Any]
    files: dict[str, str]
    cloud: dict[str, CloudChoice]
    diagnostics: list[Diagnostic]

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)

    def environment_text(self) -> str:
        return yaml.safe_dump(self.environment, sort_keys=False, default_flow_style=False)


class _Dumper(yaml.SafeDumper):
    """Block style for text that spans lines (a script stays readable)."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _text)


def dump(data: Any, flow: bool | None = None) -> str:
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, default_flow_style=flow, width=100)


def _is_url(text: str) -> bool:
    return "://" in text


class _Compiler:
    def __init__(
        self,
        decisions: Decisions,
        facts: CloudFacts | None,
        read: ContentReader | None,
        parameter_defaults: dict[str, Any],
        how_to_choose: str,
    ) -> None:
        self.decisions = decisions
        self.blueprint = decisions.blueprint
        self.facts = facts
        self.read = read
        self.locations = parameter_defaults.get(LOCATIONS) or []
        self.how_to_choose = how_to_choose
        self.found: list[Diagnostic] = []
        self.cloud: dict[str, CloudChoice] = {}

    def error(self, code: str, message: str, subject: Component | Requirement) -> None:
        span = subject.span or Span(self.blueprint.file, 1, 1)
        self.found.append(Diagnostic(code, message, subject.path, span))

    # ------------------------------------------------------------------ ordering
    def order(self) -> list[str]:
        made = [
            c.id
            for c in self.blueprint.components.values()
            if c.id not in self.decisions.nested_in and self.decisions.type_of(c.id)
        ]
        after: dict[str, set[str]] = {name: set() for name in made}
        for before, then, _ in flow_edges(self.decisions):
            if then in after and before in after:
                after[then].add(before)
        ordered: list[str] = []
        while after:
            ready = [name for name in made if name in after and not after[name] - set(ordered)]
            if not ready:  # a cycle: fulfil reported it
                ordered.extend(name for name in made if name in after)
                break
            for name in ready:
                ordered.append(name)
                del after[name]
        return ordered

    # ------------------------------------------------------------------ properties
    def properties(self, component: Component, kind: LibraryType) -> dict[str, Any]:
        props: dict[str, Any] = {}
        for key, value in component.attributes.items():
            if key in kind.nest:
                type_param, properties_param = kind.nest[key]
                nested_type = self.decisions.type_of(str(value))
                nested = self.blueprint.components.get(str(value))
                if nested_type is None or nested is None:
                    continue
                props[type_param] = nested_type.resource_type
                props[properties_param] = self.properties(nested, nested_type)
            elif key in kind.parameters:
                props[key] = value
            else:
                known = ", ".join(p for p in kind.parameters) or "none"
                self.error(
                    codes.BLUEPRINT_SHAPE,
                    f'component "{component.id}": type {kind.primary} ({kind.implementation}) '
                    f'has no attribute "{key}"; its attributes are {known}',
                    component,
                )
        self.content(component, kind, props)
        self.requirement_attributes(component, kind, props)
        self.received(component, kind, props)
        self.cloud_values(component, kind, props)
        return props

    def content(self, component: Component, kind: LibraryType, props: dict[str, Any]) -> None:
        if kind.content is None:
            if component.content is not None:
                self.error(
                    codes.BLUEPRINT_SHAPE,
                    f'component "{component.id}": type {kind.primary} takes no content',
                    component,
                )
            return
        content = component.content
        if not isinstance(content, str) or not content:
            self.error(
                codes.BLUEPRINT_SHAPE,
                f'component "{component.id}": type {kind.primary} needs content (a URL, or a '
                "file beside the blueprint or in its package)",
                component,
            )
            return
        if kind.content == "script":
            if _is_url(content):
                props["script"] = (
                    "#!/bin/sh\nset -e\n"
                    f"curl -fsSL '{content}' -o /tmp/stoker-script\nsh /tmp/stoker-script\n"
                )
            else:
                data = self.read_content(component, content)
                if data is not None:
                    props["script"] = data.decode("utf-8", "replace")
            return
        props["filename"] = posixpath.basename(content.rstrip("/")) or "content"
        if _is_url(content):
            props["url"] = content
        else:
            data = self.read_content(component, content)
            if data is not None:
                props["data"] = base64.b64encode(data).decode("ascii")

    def read_content(self, component: Component, reference: str) -> bytes | None:
        if self.read is None:
            self.error(
                codes.BLUEPRINT_SHAPE,
                f'component "{component.id}": content "{reference}" is not a URL, and this '
                "blueprint has no directory or package to read it from",
                component,
            )
            return None
        try:
            return self.read(reference)
        except (OSError, KeyError, ValueError) as error:
            reason = getattr(error, "strerror", None) or str(error)
            self.error(
                codes.BLUEPRINT_SHAPE,
                f'component "{component.id}": cannot read content "{reference}": {reason}',
                component,
            )
            return None

    def involving(self, component_id: str) -> list[tuple[Fulfilment, str, bool]]:
        """(fulfilment, the other party, this component is the owner) for each component
        requirement this component takes part in."""
        found: list[tuple[Fulfilment, str, bool]] = []
        for fulfilment in self.decisions.fulfilments:
            if fulfilment.kind != "component":
                continue
            owner = fulfilment.requirement.owner
            if owner == component_id:
                found.extend((fulfilment, other, True) for other in fulfilment.fulfillers)
            elif component_id in fulfilment.fulfillers and owner is not None:
                found.append((fulfilment, owner, False))
        return found

    def requirement_attributes(
        self, component: Component, kind: LibraryType, props: dict[str, Any]
    ) -> None:
        for fulfilment, other, is_owner in self.involving(component.id):
            other_type = self.decisions.type_of(other)
            if other_type is None:
                continue
            owner_type = kind if is_owner else other_type
            for key, value in fulfilment.requirement.attributes.items():
                # an attribute goes to the owner when it has a parameter of that name,
                # else to the fulfiller
                goes_to_owner = key in owner_type.parameters
                if is_owner == goes_to_owner and key in kind.parameters:
                    props[key] = value

    def received(self, component: Component, kind: LibraryType, props: dict[str, Any]) -> None:
        lists: dict[str, list[Any]] = {}
        for fulfilment, other, _ in self.involving(component.id):
            requirement_type = fulfilment.requirement.type
            if requirement_type not in kind.receive:
                continue
            param, output, is_list = kind.receive[requirement_type]
            existing = self.decisions.existing.get(other)
            if existing is not None:
                try:
                    value: Any = existing.attribute(output)
                    if value is None:
                        raise LookupError("it has no value")
                except LookupError as error:
                    self.error(
                        codes.BLUEPRINT_UNFULFILLED,
                        f"{fulfilment.requirement.label}: {component.id} needs attribute "
                        f'"{output}" of {other}, the existing {existing.label}, which cannot '
                        f"be read: {error}",
                        fulfilment.requirement,
                    )
                    continue
            else:
                value = self.output_value(fulfilment, component, other, output)
                if value is None:
                    continue
            if is_list:
                lists.setdefault(param, []).append(value)
            elif kind.parameters.get(param) == "comma_delimited_list":
                props.setdefault(param, []).append(value)
            else:
                props[param] = value
        for param, values in lists.items():
            props[param] = values[0] if len(values) == 1 else {"list_concat": values}

    def output_value(
        self, fulfilment: Fulfilment, component: Component, other: str, output: str
    ) -> dict[str, Any] | None:
        """``get_attr`` of ``output`` of ``other`` (or of the component hosting it)."""
        source = output_source(self.decisions, other, output)
        if source is None:
            other_type = self.decisions.type_of(other)
            name = other_type.primary if other_type else "?"
            self.error(
                codes.BLUEPRINT_TYPE,
                f'{fulfilment.requirement.label}: {component.id} needs output "{output}" of '
                f"{other} ({name}), which neither it nor a component hosting it gives",
                fulfilment.requirement,
            )
            return None
        return {"get_attr": [resource_of(self.decisions, source), output]}

    # ------------------------------------------------------------------ the cloud
    def cloud_values(self, component: Component, kind: LibraryType, props: dict[str, Any]) -> None:
        if not kind.cloud:
            return
        choice = self.cloud.setdefault(component.id, CloudChoice())
        needs_cloud = [name for name in kind.cloud if name != "zone"]
        if needs_cloud and self.facts is None:
            self.error(
                codes.BLUEPRINT_CLOUD,
                f'component "{component.id}" ({kind.primary}) needs a cloud to choose its '
                f"{' and '.join(needs_cloud)}, and none is configured: {self.how_to_choose}",
                component,
            )
            return
        for name, param in kind.cloud.items():
            try:
                value, why = self.answer(component, kind, name)
            except RequirementUnmet as error:
                choice.rejected[param] = error.rejected
                subject = self.subject_of(component, name)
                tried = "; ".join(r.render() for r in error.rejected)
                self.error(
                    codes.BLUEPRINT_CLOUD,
                    f'component "{component.id}": {error}' + (f" ({tried})" if tried else ""),
                    subject,
                )
                continue
            if value is not None:
                props[param] = value
                choice.values[param] = (value, why)

    def subject_of(self, component: Component, name: str) -> Component | Requirement:
        kinds = {"flavor": CLOUD_TYPES[:3], "image": ("os",), "zone": (JURISDICTION,)}
        for kind in kinds.get(name, ()):
            found = requirement_of(component.requires, kind)
            if found is not None:
                return found
        if name == "zone":
            found = self.decisions.global_requirement(JURISDICTION)
            if found is not None:
                return found
        return component

    def value(self, component: Component, kind: LibraryType, requirement: str) -> Any:
        found = requirement_of(component.requires, requirement)
        if found is not None:
            attribute = kind.requirements.get(requirement, "")
            if attribute in found.attributes:
                return found.attributes[attribute]
        return kind.defaults.get(requirement)

    def answer(self, component: Component, kind: LibraryType, name: str) -> tuple[Any, str]:
        facts = self.facts
        if name == "zone":
            jurisdiction = self.decisions.global_requirement(JURISDICTION)
            if jurisdiction is None:
                return None, ""
            return choose_zone(facts or CloudFacts(), self.locations, jurisdiction.attributes)
        assert facts is not None
        if name == "flavor":
            ram = self.value(component, kind, "minRam")
            cpu = self.value(component, kind, "minCpu")
            disk = self.value(component, kind, "minDisk")
            flavor, why = choose_flavor(
                facts,
                size_mb(ram, "m", "minRam") if ram is not None else 0,
                int(cpu) if cpu is not None and str(cpu).isdigit() else 0,
                size_mb(disk, "g", "minDisk") // 1024 if disk is not None else 0,
            )
            return flavor.name, why
        if name == "image":
            distro = self.value(component, kind, "os")
            if distro is None:
                raise RequirementUnmet("it has no os requirement and its type names no default")
            image, why = choose_image(facts, str(distro))
            return image.name, why
        if name == "subnet":
            return choose_subnet(facts)
        raise RequirementUnmet(f"the library asks the cloud for {name}, which stoker does not know")

    # ------------------------------------------------------------------ text
    def comments(self, component: Component, kind: LibraryType) -> list[str]:
        choice = self.decisions.choices.get(component.id)
        how = choice.how if choice else ""
        lines = [f"{component.id}: {kind.primary}, {kind.implementation} ({how})"]
        if component.origin != "blueprint":
            lines[0] += f" [{component.origin}]"
        for fulfilment in self.decisions.for_component(component.id):
            requirement = fulfilment.requirement
            if fulfilment.kind == "cloud":
                continue
            who = ", ".join(fulfilment.fulfillers) or "-"
            lines.append(f"  {requirement.type}: {who} ({fulfilment.why})")
        for param, (value, why) in self.cloud.get(component.id, CloudChoice()).values.items():
            lines.append(f"  {param} {value}: {why}")
        for nested, owner in self.decisions.nested_in.items():
            nested_type = self.decisions.type_of(nested)
            if owner == component.id and nested_type is not None:
                inner = self.comments(self.blueprint.components[nested], nested_type)
                lines.extend(f"  {line}" for line in inner)
        return lines

    def compile(self) -> Compiled:
        resources: dict[str, Any] = {}
        texts: list[str] = []
        registry: dict[str, str] = {}
        files: dict[str, str] = {}
        outputs: dict[str, Any] = {}
        for name in self.order():
            component = self.blueprint.components[name]
            kind = self.decisions.type_of(name)
            assert kind is not None
            body: dict[str, Any] = {"type": kind.resource_type}
            props = self.properties(component, kind)
            if props:
                body["properties"] = props
            resources[name] = body
            registry[kind.resource_type] = kind.name
            files[kind.name] = kind.text
            files.update(kind.helpers)
            for nested, owner in self.decisions.nested_in.items():
                nested_type = self.decisions.type_of(nested)
                if owner == name and nested_type is not None:
                    registry[nested_type.resource_type] = nested_type.name
                    files[nested_type.name] = nested_type.text
            for output in kind.outputs:
                if output != "config":
                    outputs[f"{name}_{output}"] = {"value": {"get_attr": [name, output]}}
            dumped = dump({name: body})
            comment = "".join(f"  # {line}\n" for line in self.comments(component, kind))
            texts.append(comment + "".join(f"  {line}\n" for line in dumped.splitlines()))
        description = self.blueprint.name or "compiled from a blueprint"
        template: dict[str, Any] = {
            "heat_template_version": HOT_VERSION,
            "description": description,
            "resources": resources,
        }
        if outputs:
            template["outputs"] = outputs
        head = (
            f"# Compiled by stoker from the blueprint {self.blueprint.file}.\n"
            "# Each resource is a component; the comments say how its type was chosen and "
            "what\n# fulfilled each of its requirements.\n"
        )
        text = head + dump(
            {"heat_template_version": HOT_VERSION, "description": description}, False
        )
        text += "resources:\n" + "\n".join(texts)
        if outputs:
            text += "\n" + dump({"outputs": outputs}, False)
        environment = {"resource_registry": registry}
        return Compiled(template, text, environment, files, self.cloud, self.found)


def compile_blueprint(
    decisions: Decisions,
    facts: CloudFacts | None,
    *,
    read: ContentReader | None = None,
    parameter_defaults: dict[str, Any] | None = None,
    how_to_choose: str = "choose one with --os-cloud",
) -> Compiled:
    """The HOT template, environment and files of a resolved blueprint (its errors, each
    located at the component or requirement, in ``diagnostics``)."""
    compiler = _Compiler(decisions, facts, read, parameter_defaults or {}, how_to_choose)
    return compiler.compile()
