"""Mutations of real templates and environments, for the fuzz tests and benchmarks/fuzz.py.

Every mutator takes a `random.Random`: the fuzz test hands it one Hypothesis drives
(``st.randoms()``, so failures shrink and replay), the benchmark a seeded one per input
(so input N of seed S is the same input on every machine, and fast to make).

A case starts from a corpus template (or a doc fragment), parsed into plain data, and
goes through a few mutations: structural ones on the tree (keys dropped, renamed, copied;
values swapped for another type; function names swapped for other functions' names;
argument shapes changed; nesting deepened; the version key changed between HOT versions
and CFN; subtrees grafted from other templates), then, sometimes, text ones on the
serialized file (truncation, byte flips, random or invalid UTF-8 bytes, lines duplicated
or dropped, YAML syntax thrown in). Its environment is a corpus environment or one made
for the template (parameters for its parameters, parameter_defaults, a resource_registry
mapping its resource names and types, event_sinks, merge strategies), mutated the same way.
"""

from __future__ import annotations

import json
import random
from typing import Any

import yaml

from stoker.template.versions import ALL_VERSIONS

from .seeds import CORPUS, ODD_STRINGS, Case, corpus, random_value, resource_types, section_names
from .text import TEXTUAL
from .tree import (
    STRUCTURAL,
    copy_data,
    graft,
    inject_call,
    jsonable,
    mutate_parameter,
    reshape_arguments,
    retype_resource,
    swap_function,
    swap_type,
)

__all__ = ["CORPUS", "Case", "FAMILIES", "make_case"]

# --- environments -------------------------------------------------------------------------


_TYPED = {
    "number": ("1", "0", "-3", "2.5", "1e3", "65536", 2, 1.5),
    "string": ("x", "m1.small", "10.0.0.0/24", "abc123", "a" * 64),
    "comma_delimited_list": ("a,b", "a", "", "1,2,3", ["a", "b"]),
    "json": ('{"a": 1}', "[1, 2]", "{}", {"a": [1]}, [{"a": 1}]),
    "boolean": ("true", "false", "1", "off", True, False),
}


def _parameter_type(template: Any, name: str) -> str:
    for key in ("parameters", "Parameters"):
        section = template.get(key) if isinstance(template, dict) else None
        if isinstance(section, dict) and isinstance(section.get(name), dict):
            declared = section[name].get("type", section[name].get("Type"))
            if isinstance(declared, str):
                return {
                    "String": "string",
                    "Number": "number",
                    "CommaDelimitedList": "comma_delimited_list",
                    "Json": "json",
                    "Boolean": "boolean",
                }.get(declared, declared.lower())
    return "string"


def parameter_value(rng: random.Random, template: Any, name: str, text: bool) -> Any:
    """A value that fits the parameter's declared type mostly, anything sometimes."""
    choice = rng.random()
    if choice < 0.75:
        value = rng.choice(_TYPED.get(_parameter_type(template, name), _TYPED["string"]))
    elif choice < 0.9 or text:
        value = rng.choice(ODD_STRINGS)
    else:
        value = random_value(rng)
    if text and not isinstance(value, str):
        value = json.dumps(value) if isinstance(value, dict | list) else str(value)
    return value


def made_environment(rng: random.Random, template: Any) -> dict[str, Any]:
    """An environment for ``template``: values for its parameters, a registry for its types."""
    parameters = section_names(template, "parameters")
    resources = section_names(template, "resources")
    types = resource_types(template)
    environment: dict[str, Any] = {}
    if parameters and rng.random() < 0.8:
        section = rng.choice(("parameters", "parameter_defaults"))
        given = 0.97 if rng.random() < 0.7 else 0.7  # all of them, mostly, so resolve goes on
        environment[section] = {
            name: parameter_value(rng, template, name, text=False)
            for name in parameters
            if rng.random() < given
        }
    if rng.random() < 0.5:
        registry: dict[str, Any] = {}
        for kind in rng.sample(types, min(len(types), rng.randrange(3))):
            registry[kind] = rng.choice(
                (
                    "OS::Heat::None",
                    "OS::Heat::Value",
                    "OS::Heat::RandomString",
                    kind,
                    "x.yaml",
                    "fuzz_input.yaml",
                    str(rng.choice(corpus()[0]).path),
                )
            )
        if rng.random() < 0.3:
            registry[rng.choice(("OS::*", "OS::Nova::*", "AWS::*"))] = rng.choice(
                ("OS::Heat::None", "OS::Heat::*")
            )
        if resources and rng.random() < 0.4:
            name = rng.choice(resources)
            registry["resources"] = {
                name: rng.choice(
                    (
                        {"hooks": rng.choice(("pre-create", ["pre-update", "pre-delete"], "x"))},
                        {"restricted_actions": rng.choice(("update", "replace", ["x"]))},
                        {rng.choice(types or ["OS::Heat::None"]): "OS::Heat::None"},
                        random_value(rng),
                    )
                )
            }
        environment["resource_registry"] = registry
    if rng.random() < 0.05:
        environment["event_sinks"] = rng.choice(
            (
                [{"type": "zaqar-queue", "target": "q", "ttl": rng.choice((1, -1, "x", None))}],
                [{"type": "other"}],
                random_value(rng),
            )
        )
    if parameters and rng.random() < 0.2:
        environment["parameter_merge_strategies"] = {
            rng.choice([*parameters, "default"]): rng.choice(
                ("overwrite", "merge", "deep_merge", "x", None, 1)
            )
        }
    if rng.random() < 0.02:
        environment["encrypted_param_names"] = parameters[:1]
    return environment


def merged_environment(rng: random.Random, template: Any) -> dict[str, Any]:
    """A second environment whose values meet the first one's: merge strategies for the
    template's parameters and values of every type, so merging has work to do."""
    environment = made_environment(rng, template)
    names = section_names(template, "parameters")
    if names:
        environment["parameter_merge_strategies"] = {
            name: rng.choice(("overwrite", "merge", "deep_merge"))
            for name in rng.sample(names, min(len(names), 3))
        }
        if rng.random() < 0.3:
            environment["parameter_merge_strategies"]["default"] = rng.choice(
                ("merge", "deep_merge")
            )
        section = environment.setdefault(rng.choice(("parameters", "parameter_defaults")), {})
        if isinstance(section, dict):
            for name in names:
                if rng.random() < 0.5:
                    section[name] = rng.choice(
                        (
                            parameter_value(rng, template, name, text=False),
                            {"a": {"b": [1]}},
                            [1, "x"],
                            "a,b",
                            random_value(rng),
                        )
                    )
    return environment


# --- cases --------------------------------------------------------------------------------


_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def dump(rng: random.Random, data: Any) -> tuple[bytes, str]:
    """The tree as a file: YAML mostly, JSON sometimes (as the corpus has both)."""
    if rng.random() < 0.2 and jsonable(data):
        return json.dumps(data, indent=rng.choice((None, 2))).encode(), ".json"
    try:
        text = yaml.dump(  # libyaml's emitter: the pure-Python one took most of a case's time
            data, Dumper=_DUMPER, sort_keys=False, allow_unicode=rng.random() < 0.5
        )
    except (yaml.YAMLError, RecursionError):
        text = json.dumps(data, default=str)
    return text.encode("utf-8", "surrogatepass"), ".yaml"


def mutate_tree(rng: random.Random, data: Any, steps: list[str], most: int = 4) -> None:
    for _ in range(rng.randrange(1, most + 1)):
        mutation = rng.choice(STRUCTURAL)
        steps.append(mutation(rng, data))


#: mutations of values only, for cases that should get past the structural checks
VALUES = (swap_function, reshape_arguments, inject_call, inject_call, swap_type, graft)
#: mutations of declarations (parameters, resource types), for the same kind of cases
DECLARATIONS = (mutate_parameter, retype_resource)


def _value_places(data: Any) -> list[tuple[Any, Any]]:
    """Where functions compute values: each resource, output and condition."""
    places: list[tuple[Any, Any]] = []
    for section in ("resources", "Resources", "outputs", "Outputs", "conditions", "Conditions"):
        entries = data.get(section) if isinstance(data, dict) else None
        if isinstance(entries, dict):
            places += [(entries, name) for name in entries]
    return places


def mutate_values(rng: random.Random, data: Any, steps: list[str]) -> None:
    """Calls swapped, reshaped or injected inside resources, outputs and conditions."""
    places = _value_places(data)
    for _ in range(rng.randrange(1, 3)):
        if not places:
            steps.append("no values")
            return
        if rng.random() < 0.3:
            steps.append(rng.choice(DECLARATIONS)(rng, data))
            continue
        container, key = rng.choice(places)
        wrapper = {key: container[key]}  # so the entry's whole value can be replaced too
        steps.append(rng.choice(VALUES)(rng, wrapper))
        container[key] = wrapper[key]


def mutate_text(rng: random.Random, text: bytes, steps: list[str]) -> bytes:
    for _ in range(rng.randrange(1, 3)):
        text, what = rng.choice(TEXTUAL)(rng, text)
        steps.append(what)
    return text


_HOT_SECTIONS = frozenset(
    section
    for version in ALL_VERSIONS
    if version.format.value == "hot"
    for section in version.sections
)


def _as_template(rng: random.Random, data: Any) -> Any:
    """A doc fragment made a template: given a version, or put in an output's value."""
    if any(key in data for key in ("heat_template_version", "AWSTemplateFormatVersion")):
        return data
    hot = [v for v in ALL_VERSIONS if v.format.value == "hot"]
    version = max(hot, key=lambda v: v.order) if rng.random() < 0.6 else rng.choice(hot)
    if not set(data) <= _HOT_SECTIONS:
        data = {"outputs": {"fragment": {"value": data}}}
    return {"heat_template_version": version.value, **data}


#: what a case mutates: values inside resources and outputs (and declarations), the tree
#: anywhere, the file's text, or the environment
FAMILIES = ("values", "tree", "text", "environment", "nested")

#: the provider template a case may carry, beside the template
NESTED = "fuzz_input_nested.yaml"


def make_case(rng: random.Random, family: str | None = None) -> Case:
    """One input: a corpus template (sometimes a doc fragment) mutated, with an
    environment; ``family`` picks the kind of mutation, else it is drawn too."""
    templates, environments, fragments = corpus()
    seed = rng.choice(fragments) if rng.random() < 0.15 else rng.choice(templates)
    data = _as_template(rng, copy_data(seed.data))
    steps: list[str] = []
    if family is None:
        draw = rng.random()
        family = (
            "values"
            if draw < 0.35
            else "tree"
            if draw < 0.75
            else "text"
            if draw < 0.9
            else "environment"
        )
    nested = _nested(rng, data, steps) if family == "nested" else None
    if family == "values":
        mutate_values(rng, data, steps)
    elif family == "tree" or rng.random() < 0.3:
        mutate_tree(rng, data, steps)
    text, suffix = dump(rng, data)
    environment: Any = None
    if family == "environment" or rng.random() < 0.6:
        environment = (
            copy_data(rng.choice(environments).data)
            if rng.random() < 0.2
            else made_environment(rng, data)
        )
        if family == "environment" and rng.random() < 0.6 or rng.random() < 0.1:
            mutate_tree(rng, environment, steps, most=2)
    env_texts = [dump(rng, environment)[0]] if environment is not None else []
    if family == "text":
        if env_texts and rng.random() < 0.2:
            env_texts[0] = mutate_text(rng, env_texts[0], steps)
        else:
            text = mutate_text(rng, text, steps)
    elif family == "environment" and env_texts and rng.random() < 0.2:
        env_texts[0] = mutate_text(rng, env_texts[0], steps)
    parameters = {}
    if not env_texts and rng.random() < 0.6 or rng.random() < 0.1:
        for name in section_names(data, "parameters"):
            if rng.random() < 0.95:
                parameters[name] = parameter_value(rng, data, name, text=True)
    if env_texts and (family == "environment" and rng.random() < 0.5 or rng.random() < 0.1):
        env_texts.append(dump(rng, merged_environment(rng, data))[0])
        steps.append("a second environment to merge")
    if family == "nested" and env_texts and rng.random() < 0.3:
        registry = {"OS::Fuzz::Nested": NESTED, rng.choice(resource_types(data) or ["X"]): NESTED}
        env_texts.append(dump(rng, {"resource_registry": registry})[0])
        steps.append("a registry mapping types to the provider")
    return Case(seed.path, text, env_texts, parameters, [family, *steps], suffix, nested)


def _nested(rng: random.Random, data: Any, steps: list[str]) -> bytes:
    """A provider template (another corpus template, mutated a little) that some of this
    template's resources use as their type, by path or through a registry name."""
    provider = copy_data(rng.choice(corpus()[0]).data)
    if rng.random() < 0.5:
        mutate_values(rng, provider, steps)
    elif rng.random() < 0.5:
        mutate_tree(rng, provider, steps, most=2)
    resources = data.get("resources", data.get("Resources")) if isinstance(data, dict) else None
    if isinstance(resources, dict):
        for name in rng.sample(list(resources), min(len(resources), rng.randrange(1, 3))):
            resource = resources[name]
            if isinstance(resource, dict):
                key = "Type" if "Type" in resource else "type"
                resource[key] = rng.choice((NESTED, NESTED, "OS::Fuzz::Nested"))
                steps.append(f"resource {name!r} is the provider")
    if rng.random() < 0.1 and isinstance(provider, dict):
        section = provider.setdefault("resources", {})
        if isinstance(section, dict):
            section["again"] = {"type": NESTED}  # a provider that includes itself
            steps.append("the provider includes itself")
    return dump(rng, provider)[0]
