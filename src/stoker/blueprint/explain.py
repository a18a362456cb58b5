"""The model as ``stoker blueprint explain`` shows it: each component with its type and
how it was chosen, each requirement with what fulfils it and why, and the candidates that
were rejected with their reasons (seed 003's "introspection", for blueprints)."""

from __future__ import annotations

from typing import Any

from stoker.blueprint.compile import Compiled
from stoker.blueprint.decisions import Decisions, Fulfilment
from stoker.blueprint.model import Requirement


def _requirement(
    requirement: Requirement, fulfilment: Fulfilment | None, decisions: Decisions
) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "type": requirement.type,
        "type_from": requirement.type_from,
        "attributes": dict(requirement.attributes),
        "where": str(requirement.span) if requirement.span else None,
    }
    if fulfilment is not None:
        entry["kind"] = fulfilment.kind
        entry["fulfilled_by"] = list(fulfilment.fulfillers)
        entry["why"] = fulfilment.why
        entry["rejected"] = [
            {"candidate": r.candidate, "reason": r.reason} for r in fulfilment.rejected
        ]
        existing = [decisions.existing[f] for f in fulfilment.fulfillers if f in decisions.existing]
        if existing:
            entry["existing"] = [
                {
                    "reference": found.reference.text,
                    "stack": found.stack_name,
                    "stack_id": found.stack_id,
                    "resource": found.reference.resource,
                    "resource_type": found.type,
                    "physical_id": found.physical_id,
                    "status": found.status,
                    "implementation": kind.implementation if kind else None,
                }
                for found in existing
                for kind in [decisions.type_of(found.reference.text)]
            ]
    return entry


def explain(decisions: Decisions, compiled: Compiled | None = None) -> dict[str, Any]:
    """The explanation as data (what ``-f json`` prints)."""
    by_requirement = {id(f.requirement): f for f in decisions.fulfilments}
    blueprint = decisions.blueprint
    components = []
    for component in blueprint.components.values():
        choice = decisions.choices.get(component.id)
        kind = choice.chosen if choice else None
        entry: dict[str, Any] = {
            "id": component.id,
            "origin": component.origin,
            "type": component.type,
            "type_from": component.type_from or (choice.how if choice else ""),
            "implementation": kind.implementation if kind else None,
            "template": kind.file if kind else None,
            "resource_type": kind.resource_type if kind else None,
            "where": str(component.span) if component.span else None,
            "rejected_types": [
                {"candidate": r.candidate, "reason": r.reason}
                for r in (choice.rejected if choice else [])
            ],
            "requirements": [
                _requirement(r, by_requirement.get(id(r)), decisions) for r in component.requires
            ],
        }
        if component.id in decisions.nested_in:
            entry["made_inside"] = decisions.nested_in[component.id]
        if compiled is not None and component.id in compiled.cloud:
            cloud = compiled.cloud[component.id]
            entry["cloud"] = {
                param: {"value": value, "why": why} for param, (value, why) in cloud.values.items()
            }
        components.append(entry)
    return {
        "name": blueprint.name,
        "file": blueprint.file,
        "requires": [
            _requirement(r, by_requirement.get(id(r)), decisions) for r in blueprint.requires
        ],
        "components": components,
    }


def _attributes(attributes: dict[str, Any]) -> str:
    if not attributes:
        return ""
    return " {" + ", ".join(f"{k}: {v}" for k, v in attributes.items()) + "}"


def render(explained: dict[str, Any]) -> str:
    """The explanation as text, one line per fact, indented by what it belongs to."""
    lines = [f"blueprint {explained['name'] or '(unnamed)'} ({explained['file']})"]
    for requirement in explained["requires"]:
        lines.append(
            f"  global requirement {requirement['type']}"
            f"{_attributes(requirement['attributes'])}: {requirement.get('why', '')}"
        )
    for component in explained["components"]:
        origin = "" if component["origin"] == "blueprint" else f" [{component['origin']}]"
        lines.append(
            f"component {component['id']}{origin}: {component['type']} -> "
            f"{component['implementation']} ({component['type_from']})"
        )
        if "made_inside" in component:
            lines.append(f"  made inside {component['made_inside']} (not a resource of its own)")
        for rejected in component["rejected_types"]:
            lines.append(f"  rejected type {rejected['candidate']}: {rejected['reason']}")
        for requirement in component["requirements"]:
            head = (
                f"  requires {requirement['type']}{_attributes(requirement['attributes'])}"
                f" (type from {requirement['type_from']})"
            )
            if requirement.get("kind") == "component":
                who = ", ".join(requirement["fulfilled_by"]) or "nothing"
                why = requirement["why"]
                head += f": fulfilled by {who}" + (f": {why}" if why else "")
            elif requirement.get("kind") == "cloud":
                head += ": answered by the cloud"
            lines.append(head)
            for rejected in requirement.get("rejected", []):
                lines.append(f"    rejected {rejected['candidate']}: {rejected['reason']}")
        for param, answer in component.get("cloud", {}).items():
            lines.append(f"  {param} = {answer['value']}: {answer['why']}")
    return "\n".join(lines) + "\n"
