"""Mutations of a parsed template or environment, in place; each returns what it did.

Keys dropped, renamed, copied and added; values of another type; function names swapped
for other functions' names; argument shapes changed; calls seen in the corpus injected;
nesting deepened; the version changed between HOT versions and CFN; subtrees grafted
from other corpus files; parameter declarations and resource types changed.
"""

from __future__ import annotations

import json
import random
from functools import cache
from typing import Any

from .seeds import (
    ODD_STRINGS,
    VERSION_VALUES,
    all_places,
    corpus,
    function_names,
    observed_calls,
    random_arguments,
    random_scalar,
    random_value,
    section_names,
    vocabulary,
)


def _function_places(data: Any) -> list[tuple[Any, Any]]:
    """Places whose value is a one-key mapping (a function call, or looks like one)."""
    return [
        (container, key)
        for container, key in all_places(data)
        if isinstance(container[key], dict) and len(container[key]) == 1
    ]


def _replace_key(mapping: dict[Any, Any], old: Any, new: Any) -> None:
    """Rename a key where it stands (order kept, as a user's edit would)."""
    items = [(new if key == old else key, value) for key, value in mapping.items()]
    mapping.clear()
    mapping.update(items)


def copy_data(data: Any) -> Any:
    return json.loads(json.dumps(data)) if jsonable(data) else _deep(data)


def jsonable(data: Any) -> bool:
    try:
        json.dumps(data, allow_nan=False)
    except (TypeError, ValueError):
        return False
    return True


def _deep(data: Any) -> Any:
    if isinstance(data, dict):
        return {key: _deep(value) for key, value in data.items()}
    if isinstance(data, list):
        return [_deep(value) for value in data]
    return data


def drop_key(rng: random.Random, data: Any) -> str:
    places = [(c, k) for c, k in all_places(data) if isinstance(c, dict)] or all_places(data)
    if not places:
        return "nothing to drop"
    container, key = rng.choice(places)
    del container[key]
    return f"dropped {key!r}"


def rename_key(rng: random.Random, data: Any) -> str:
    places = [(c, k) for c, k in all_places(data) if isinstance(c, dict)]
    if not places:
        return "nothing to rename"
    container, key = rng.choice(places)
    new = rng.choice(vocabulary()) if rng.random() < 0.8 else random_scalar(rng)
    if not isinstance(new, str | int | float | bool) or new in container:
        new = str(new) + "_"
    _replace_key(container, key, new)
    return f"renamed {key!r} to {new!r}"


def duplicate_key(rng: random.Random, data: Any) -> str:
    """Copy a value under another key of the same mapping (or into another list slot)."""
    places = all_places(data)
    if not places:
        return "nothing to copy"
    container, key = rng.choice(places)
    value = copy_data(container[key])
    if isinstance(container, dict):
        new = rng.choice(vocabulary())
        container[new] = value
        return f"copied {key!r} to {new!r}"
    container.insert(rng.randrange(len(container) + 1), value)
    return f"copied item {key}"


def swap_type(rng: random.Random, data: Any) -> str:
    places = all_places(data)
    if not places:
        return "nothing to swap"
    container, key = rng.choice(places)
    container[key] = random_value(rng)
    return f"value of {key!r} -> {type(container[key]).__name__}"


def swap_function(rng: random.Random, data: Any) -> str:
    places = _function_places(data)
    if not places:
        return "no function"
    container, key = rng.choice(places)
    call = container[key]
    old = next(iter(call))
    new = rng.choice(function_names())
    _replace_key(call, old, new)
    return f"function {old!r} -> {new!r}"


def reshape_arguments(rng: random.Random, data: Any) -> str:
    places = _function_places(data)
    if not places:
        return "no function"
    container, key = rng.choice(places)
    call = container[key]
    name = next(iter(call))
    args = call[name]
    choice = rng.randrange(7)
    if choice == 0:
        call[name] = [args]
    elif choice == 1 and isinstance(args, list) and args:
        call[name] = args[0]
    elif choice == 2 and isinstance(args, list):
        call[name] = args[: rng.randrange(len(args) + 1)]
    elif choice == 3 and isinstance(args, list):
        call[name] = [*args, random_value(rng)]
    elif choice == 4 and isinstance(args, dict):
        call[name] = list(args.values())
    elif choice == 5 and isinstance(args, list):
        call[name] = dict(enumerate(args)) if rng.random() < 0.3 else {"a": args}
    else:
        call[name] = random_arguments(rng)
    return f"arguments of {name!r} reshaped"


def inject_call(rng: random.Random, data: Any) -> str:
    """A value replaced by a call seen in the corpus (its arguments, or another call's),
    its names sometimes swapped for this template's parameter and resource names."""
    places = all_places(data)
    if not places:
        return "nowhere to call"
    calls = observed_calls()
    name = rng.choice(sorted(calls))
    source = name if rng.random() < 0.8 else rng.choice(sorted(calls))
    args = copy_data(rng.choice(calls[source]))
    names = section_names(data, "parameters") + section_names(data, "resources")
    if names and rng.random() < 0.7:
        args = _rename_strings(rng, args, names)
    container, key = rng.choice(places)
    container[key] = {name: args}
    return f"call {name!r} with arguments of {source!r} at {key!r}"


def _rename_strings(rng: random.Random, value: Any, names: list[str]) -> Any:
    if isinstance(value, str):
        return rng.choice(names) if rng.random() < 0.5 else value
    if isinstance(value, list):
        return [_rename_strings(rng, item, names) for item in value]
    if isinstance(value, dict):
        return {key: _rename_strings(rng, item, names) for key, item in value.items()}
    return value


def deepen(rng: random.Random, data: Any) -> str:
    places = all_places(data)
    if not places:
        return "nothing to nest"
    container, key = rng.choice(places)
    value = container[key]
    for _ in range(rng.choice((1, 2, 3, 10, 40))):
        wrap = rng.randrange(3)
        if wrap == 0:
            value = [value]
        elif wrap == 1:
            value = {rng.choice(function_names()): value}
        else:
            value = {rng.choice(vocabulary()): value}
    container[key] = value
    return f"nested {key!r} deeper"


def change_version(rng: random.Random, data: Any) -> str:
    if not isinstance(data, dict):
        return "not a mapping"
    for version_key in ("heat_template_version", "AWSTemplateFormatVersion"):
        if rng.random() < 0.8:
            data.pop(version_key, None)
    data.pop("HeatTemplateFormatVersion", None)
    key, value = rng.choice(VERSION_VALUES)
    data[key] = value if rng.random() < 0.9 else random_scalar(rng)
    return f"version {key}: {data[key]!r}"


def graft(rng: random.Random, data: Any) -> str:
    """A subtree of another corpus file put somewhere in this one."""
    templates, environments, fragments = corpus()
    donor = rng.choice(rng.choice((templates, fragments, environments)))
    places = all_places(donor.data)
    targets = all_places(data)
    if not places or not targets:
        return "nothing to graft"
    source, source_key = rng.choice(places)
    container, key = rng.choice(targets)
    container[key] = copy_data(source[source_key])
    return f"grafted {source_key!r} of {donor.path.name} at {key!r}"


_CONSTRAINTS = (
    {"range": {"min": "abc", "max": 1}},
    {"range": {"min": "1.5"}},
    {"range": {"min": 5, "max": 1}},
    {"range": {"min": float("nan")}},
    {"range": {}},
    {"range": "1-5"},
    {"length": {"min": "x"}},
    {"length": {"min": 1.5, "max": "2"}},
    {"length": {"max": -1}},
    {"modulo": {"step": 0, "offset": 1}},
    {"modulo": {"step": "2", "offset": "x"}},
    {"modulo": {"step": 2}},
    {"allowed_values": "x"},
    {"allowed_values": [1, "a", None, [1]]},
    {"allowed_values": []},
    {"allowed_pattern": "("},
    {"allowed_pattern": 5},
    {"allowed_pattern": "[a-z]+"},
    {"custom_constraint": "nova.flavor"},
    {"custom_constraint": "ip_addr"},
    {"custom_constraint": "cron_expression"},
    {"custom_constraint": "timezone"},
    {"custom_constraint": "iso_8601"},
    {"custom_constraint": "net_cidr"},
    {"custom_constraint": "mac_addr"},
    {"custom_constraint": "expiration"},
    {"custom_constraint": "no.such"},
    {"custom_constraint": ["x"]},
    {"description": "only a description"},
    {},
    "range",
    None,
)
_PARAMETER_TYPES = (
    "string",
    "number",
    "comma_delimited_list",
    "json",
    "boolean",
    "String",
    "Number",
    "CommaDelimitedList",
    "Json",
    "Boolean",
    "integer",
    "",
    None,
    5,
)


def mutate_parameter(rng: random.Random, data: Any) -> str:
    """A parameter's type, default, constraints or flags set to an odd value."""
    for key in ("parameters", "Parameters"):
        section = data.get(key) if isinstance(data, dict) else None
        if isinstance(section, dict) and section:
            break
    else:
        return "no parameters"
    name = rng.choice(list(section))
    definition = section[name]
    if not isinstance(definition, dict):
        section[name] = definition = {}
    cfn = key == "Parameters"
    what = rng.randrange(5)
    if what == 0:
        definition["Type" if cfn else "type"] = rng.choice(_PARAMETER_TYPES)
    elif what == 1:
        definition["Default" if cfn else "default"] = (
            rng.choice(ODD_STRINGS) if rng.random() < 0.6 else random_value(rng)
        )
    elif what == 2 and not cfn:
        chosen = [copy_data(rng.choice(_CONSTRAINTS)) for _ in range(rng.randrange(1, 3))]
        definition["constraints"] = chosen if rng.random() < 0.9 else chosen[0]
    elif what == 2:
        key, value = rng.choice(
            (
                ("MinValue", rng.choice(("x", "1.5", 3, None))),
                ("MaxValue", rng.choice(("x", "-1", 1e400, []))),
                ("MinLength", rng.choice(("x", "2", -1))),
                ("MaxLength", rng.choice(("x", "2", 1.5))),
                ("AllowedValues", rng.choice(("x", [1, 2], []))),
                ("AllowedPattern", rng.choice(("(", "[a-z]*", 1))),
            )
        )
        definition[key] = value
    elif what == 3:
        flag = rng.choice(("hidden", "immutable", "NoEcho", "label", "tags", "description"))
        definition[flag] = rng.choice((True, "true", "yes", "x", 1, None, ["a"], {"a": 1}))
    else:
        definition[rng.choice(vocabulary())] = random_value(rng)
    return f"parameter {name!r} changed"


_BUILTIN_TYPES = (
    "OS::Heat::None",
    "OS::Heat::Value",
    "OS::Heat::RandomString",
    "OS::Heat::TestResource",
    "OS::Heat::Delay",
    "OS::Heat::MultipartMime",
    "OS::Heat::SoftwareConfig",
    "OS::Heat::StructuredConfig",
    "OS::Heat::CloudConfig",
    "OS::Heat::SoftwareDeployment",
    "OS::Heat::WaitCondition",
    "OS::Heat::WaitConditionHandle",
    "OS::Heat::ResourceGroup",
    "OS::Heat::ResourceChain",
    "OS::Heat::Stack",
    "OS::Heat::AutoScalingGroup",
    "AWS::CloudFormation::WaitCondition",
    "AWS::CloudFormation::Stack",
)


def retype_resource(rng: random.Random, data: Any) -> str:
    """A resource made one of the built-in (or nested-stack) types, with its properties
    kept, dropped, or taken from a resource of that type elsewhere in the corpus."""
    for key in ("resources", "Resources"):
        section = data.get(key) if isinstance(data, dict) else None
        if isinstance(section, dict) and section:
            break
    else:
        return "no resources"
    name = rng.choice(list(section))
    resource = section[name]
    if not isinstance(resource, dict):
        return "not a resource"
    kind = rng.choice(_BUILTIN_TYPES)
    type_key, properties_key = (
        ("Type", "Properties") if key == "Resources" else ("type", "properties")
    )
    resource[type_key] = kind
    examples = _properties_by_type().get(kind)
    choice = rng.random()
    if examples and choice < 0.6:
        resource[properties_key] = copy_data(rng.choice(examples))
    elif choice < 0.8:
        resource[properties_key] = {
            rng.choice(_PROPERTY_NAMES): random_value(rng) for _ in range(rng.randrange(1, 4))
        }
    return f"resource {name!r} is a {kind}"


_PROPERTY_NAMES = (
    "count",
    "resource_def",
    "index_var",
    "removal_policies",
    "length",
    "sequence",
    "character_classes",
    "character_sequences",
    "salt",
    "value",
    "type",
    "wait_secs",
    "fail",
    "action_wait_secs",
    "attr_wait_secs",
    "client_name",
    "entity_name",
    "update_replace",
    "parts",
    "group",
    "config",
    "inputs",
    "outputs",
    "options",
    "server",
    "signal_transport",
    "actions",
    "input_values",
    "handle",
    "timeout",
    "resources",
    "concurrent",
    "template",
    "parameters",
    "min_wait",
    "max_wait",
    "max_jitter",
    "actions",
    "min_size",
    "max_size",
    "desired_capacity",
    "cloud_config",
)


@cache
def _properties_by_type() -> dict[str, list[Any]]:
    found: dict[str, list[Any]] = {}
    templates, _, fragments = corpus()
    for seed in (*templates, *fragments):
        for resource in _resources(seed.data):
            kind = resource.get("type", resource.get("Type"))
            properties = resource.get("properties", resource.get("Properties"))
            if isinstance(kind, str) and properties is not None:
                found.setdefault(kind, []).append(properties)
    return found


def _resources(data: Any) -> list[dict[str, Any]]:
    for key in ("resources", "Resources"):
        section = data.get(key) if isinstance(data, dict) else None
        if isinstance(section, dict):
            return [value for value in section.values() if isinstance(value, dict)]
    return []


def add_key(rng: random.Random, data: Any) -> str:
    mappings = [data] if isinstance(data, dict) else []
    mappings += [c[k] for c, k in all_places(data) if isinstance(c[k], dict)]
    if not mappings:
        return "no mapping"
    mapping = rng.choice(mappings)
    key = rng.choice(vocabulary())
    mapping[key] = random_value(rng)
    return f"added {key!r}"


STRUCTURAL = (
    drop_key,
    rename_key,
    duplicate_key,
    swap_type,
    swap_function,
    swap_function,
    reshape_arguments,
    reshape_arguments,
    inject_call,
    inject_call,
    inject_call,
    mutate_parameter,
    mutate_parameter,
    retype_resource,
    retype_resource,
    deepen,
    change_version,
    graft,
    add_key,
)
