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
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from stoker.functions.tables import table_for
from stoker.template.loader import load_document
from stoker.template.nodes import plain
from stoker.template.versions import ALL_VERSIONS

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"


@dataclass(frozen=True)
class Seed:
    """A corpus file as plain data: where it lives (its get_file neighbours) and its tree."""

    path: Path
    data: Any


@dataclass
class Case:
    """One fuzz input: the template's bytes, its environments' bytes, and what was done."""

    origin: Path
    template: bytes
    environments: list[bytes] = field(default_factory=list)
    parameters: dict[str, str] = field(default_factory=dict)
    steps: list[str] = field(default_factory=list)
    suffix: str = ".yaml"

    def describe(self) -> str:
        return f"{self.origin.relative_to(CORPUS)}: {'; '.join(self.steps)}"


def _load(path: Path) -> Any:
    try:
        return plain(load_document(path.read_bytes(), str(path)).data)
    except Exception:
        return None


@cache
def corpus() -> tuple[list[Seed], list[Seed], list[Seed]]:
    """Templates, environments and doc fragments of the shared corpus, parsed once."""
    records = json.loads((CORPUS / "index.json").read_text())
    templates, environments, fragments = [], [], []
    for record in records:
        kind = record["kind"]
        if kind not in ("hot", "cfn", "env", "fragment"):
            continue
        path = CORPUS / record["path"]
        data = _load(path)
        if not isinstance(data, dict):
            continue
        seed = Seed(path, data)
        {"env": environments, "fragment": fragments}.get(kind, templates).append(seed)
    return templates, environments, fragments


@cache
def function_names() -> tuple[str, ...]:
    names: set[str] = set()
    for version in ALL_VERSIONS:
        table = table_for(version)
        names.update(table.functions)
        names.update(table.conditions)
    return tuple(sorted(names))


@cache
def vocabulary() -> tuple[str, ...]:
    """Every mapping key seen in the corpus, every function and section name."""
    words: set[str] = set(function_names())
    for version in ALL_VERSIONS:
        words.update(version.sections)
        words.update(version.resource_keys)
        words.update(version.output_keys)
    words.update(
        (
            "parameters",
            "parameter_defaults",
            "resource_registry",
            "event_sinks",
            "parameter_merge_strategies",
            "encrypted_param_names",
            "resources",
            "hooks",
            "restricted_actions",
            "type",
            "default",
            "hidden",
            "constraints",
            "allowed_values",
            "allowed_pattern",
            "length",
            "range",
            "modulo",
            "custom_constraint",
            "immutable",
            "tags",
            "label",
            "condition",
            "value",
            "count",
            "resource_def",
            "index_var",
            "removal_policies",
            "for_each",
            "template",
            "permutations",
            "step",
            "offset",
        )
    )
    templates, environments, _ = corpus()
    for seed in (*templates, *environments):
        words.update(_keys(seed.data))
    return tuple(sorted(words))


@cache
def observed_calls() -> dict[str, tuple[Any, ...]]:
    """The arguments each function is called with in the corpus, by function name."""
    names = set(function_names())
    calls: dict[str, list[Any]] = {}
    templates, _, fragments = corpus()
    for seed in (*templates, *fragments):
        for container, key in _places(seed.data):
            value = container[key]
            if isinstance(value, dict) and len(value) == 1:
                name = next(iter(value))
                if name in names:
                    calls.setdefault(name, []).append(value[name])
    return {name: tuple(found) for name, found in calls.items()}


def _keys(data: Any) -> set[str]:
    found: set[str] = set()
    stack = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            found.update(k for k in node if isinstance(k, str))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


_VERSION_VALUES = tuple(
    {(v.key, v.value) for v in ALL_VERSIONS}
    | {(v.key, v.alias) for v in ALL_VERSIONS if v.alias}
    | {
        ("heat_template_version", "2012-12-12"),
        ("heat_template_version", "2099-01-01"),
        ("AWSTemplateFormatVersion", "2013-05-23"),
        ("HeatTemplateFormatVersion", "2010-09-09"),
    }
)

_STRINGS = (
    "",
    " ",
    "0",
    "1",
    "-1",
    "1.5",
    "1e400",
    "nan",
    "inf",
    "-inf",
    "0x1f",
    "true",
    "false",
    "yes",
    "null",
    "~",
    "a,b,c",
    ",",
    "[1, 2]",
    '{"a": 1}',
    "{",
    "2024-02-30",
    "2024-01-01T00:00:00Z",
    "10.0.0.0/33",
    "256.1.1.1",
    "::1",
    "aa:bb:cc:dd:ee:ff",
    "* * * * *",
    "$x",
    "%s",
    "{{a}}",
    "<%a%>",
    "\\",
    "'",
    '"',
    "\u00e9\u2603",
    "a" * 300,
    "OS::Heat::None",
    "OS::Heat::RandomString",
    "OS::Heat::ResourceGroup",
    "OS::Heat::Value",
    "OS::Nova::Server",
    "AWS::EC2::Instance",
    "OS::Heat::*",
    "file:///etc/passwd",
    "nested.yaml",
    "../x.yaml",
    "http://127.0.0.1:1/x.yaml",
    "OS::stack_name",
    "OS::project_id",
    "AWS::Region",
    "$.data",
    "$.data.where($ > 1)",
    "%index%",
)


def random_scalar(rng: random.Random) -> Any:
    kind = rng.randrange(9)
    if kind == 0:
        return rng.choice((0, 1, -1, 2, 3, 7, 10**6, -(10**18), 2**63, 10**30))
    if kind == 1:
        return rng.choice((0.0, -0.5, 1.5, 1e300, float("inf"), float("-inf"), float("nan")))
    if kind == 2:
        return rng.choice((True, False, None))
    if kind == 3:
        return rng.choice(vocabulary())
    if kind == 4:
        return rng.choice(function_names())
    return rng.choice(_STRINGS)


def random_value(rng: random.Random, depth: int = 0) -> Any:
    """A value of any type: scalars, small lists and mappings, function calls."""
    kind = rng.randrange(10) if depth < 3 else 0
    if kind <= 4:
        return random_scalar(rng)
    if kind == 5:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if kind == 6:
        return {
            str(random_scalar(rng)): random_value(rng, depth + 1) for _ in range(rng.randrange(3))
        }
    if kind == 7:
        return {rng.choice(function_names()): random_arguments(rng, depth + 1)}
    if kind == 8:
        return {rng.choice(function_names()): random_value(rng, depth + 1)}
    return {rng.choice(vocabulary()): random_value(rng, depth + 1)}


def random_arguments(rng: random.Random, depth: int = 0) -> Any:
    """Argument shapes functions take: a name, a list of names and values, a mapping."""
    shape = rng.randrange(6)
    if shape == 0:
        return rng.choice(vocabulary())
    if shape == 1:
        return [rng.choice(vocabulary()) for _ in range(rng.randrange(5))]
    if shape == 2:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(5))]
    if shape == 3:
        return {rng.choice(vocabulary()): random_value(rng, depth + 1) for _ in range(3)}
    if shape == 4:
        return [rng.choice(_STRINGS), [random_value(rng, depth + 1) for _ in range(3)]]
    return random_value(rng, depth + 1)


# --- the tree -----------------------------------------------------------------------------


def _places(data: Any) -> list[tuple[Any, Any]]:
    """Every (container, key-or-index) of the tree, the root's children included."""
    found: list[tuple[Any, Any]] = []
    stack = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                found.append((node, key))
                stack.append(value)
        elif isinstance(node, list):
            for index, value in enumerate(node):
                found.append((node, index))
                stack.append(value)
    return found


def _function_places(data: Any) -> list[tuple[Any, Any]]:
    """Places whose value is a one-key mapping (a function call, or looks like one)."""
    return [
        (container, key)
        for container, key in _places(data)
        if isinstance(container[key], dict) and len(container[key]) == 1
    ]


def _replace_key(mapping: dict[Any, Any], old: Any, new: Any) -> None:
    """Rename a key where it stands (order kept, as a user's edit would)."""
    items = [(new if key == old else key, value) for key, value in mapping.items()]
    mapping.clear()
    mapping.update(items)


def _copy(data: Any) -> Any:
    return json.loads(json.dumps(data)) if _jsonable(data) else _deep(data)


def _jsonable(data: Any) -> bool:
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
    places = [(c, k) for c, k in _places(data) if isinstance(c, dict)] or _places(data)
    if not places:
        return "nothing to drop"
    container, key = rng.choice(places)
    del container[key]
    return f"dropped {key!r}"


def rename_key(rng: random.Random, data: Any) -> str:
    places = [(c, k) for c, k in _places(data) if isinstance(c, dict)]
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
    places = _places(data)
    if not places:
        return "nothing to copy"
    container, key = rng.choice(places)
    value = _copy(container[key])
    if isinstance(container, dict):
        new = rng.choice(vocabulary())
        container[new] = value
        return f"copied {key!r} to {new!r}"
    container.insert(rng.randrange(len(container) + 1), value)
    return f"copied item {key}"


def swap_type(rng: random.Random, data: Any) -> str:
    places = _places(data)
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
    places = _places(data)
    if not places:
        return "nowhere to call"
    calls = observed_calls()
    name = rng.choice(sorted(calls))
    source = name if rng.random() < 0.8 else rng.choice(sorted(calls))
    args = _copy(rng.choice(calls[source]))
    names = _names(data, "parameters") + _names(data, "resources")
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
    places = _places(data)
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
    key, value = rng.choice(_VERSION_VALUES)
    data[key] = value if rng.random() < 0.9 else random_scalar(rng)
    return f"version {key}: {data[key]!r}"


def graft(rng: random.Random, data: Any) -> str:
    """A subtree of another corpus file put somewhere in this one."""
    templates, environments, fragments = corpus()
    donor = rng.choice(rng.choice((templates, fragments, environments)))
    places = _places(donor.data)
    targets = _places(data)
    if not places or not targets:
        return "nothing to graft"
    source, source_key = rng.choice(places)
    container, key = rng.choice(targets)
    container[key] = _copy(source[source_key])
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
            rng.choice(_STRINGS) if rng.random() < 0.6 else random_value(rng)
        )
    elif what == 2 and not cfn:
        chosen = [_copy(rng.choice(_CONSTRAINTS)) for _ in range(rng.randrange(1, 3))]
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
        resource[properties_key] = _copy(rng.choice(examples))
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
    mappings += [c[k] for c, k in _places(data) if isinstance(c[k], dict)]
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


# --- the text -----------------------------------------------------------------------------

_SYNTAX = (
    b"&a ",
    b"*a",
    b"<<: *a\n",
    b"!!python/object:os.system ",
    b"!!binary ",
    b"!!int ",
    b"!!float ",
    b"!!map ",
    b"!foo ",
    b"%YAML 1.1\n---\n",
    b"---\n",
    b"...\n",
    b"{",
    b"}",
    b"[",
    b"]",
    b": ",
    b"- ",
    b"? ",
    b"\t",
    b"\x00",
    b"\xef\xbb\xbf",
    b'"',
    b"'",
    b"|",
    b">",
    b"#",
    b"\\u0000",
    b"1e99999",
    b"9" * 5000,
)


def _position(rng: random.Random, text: bytes) -> int:
    return rng.randrange(len(text) + 1)


def truncate(rng: random.Random, text: bytes) -> tuple[bytes, str]:
    at = _position(rng, text)
    return text[:at], f"truncated at {at}"


def flip_bytes(rng: random.Random, text: bytes) -> tuple[bytes, str]:
    if not text:
        return text, "empty"
    data = bytearray(text)
    for _ in range(rng.randrange(1, 4)):
        at = rng.randrange(len(data))
        data[at] ^= 1 << rng.randrange(8)
    return bytes(data), "flipped bytes"


def random_bytes(rng: random.Random, text: bytes) -> tuple[bytes, str]:
    at = _position(rng, text)
    noise = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 9)))
    return text[:at] + noise + text[at:], f"random bytes at {at}"


def invalid_utf8(rng: random.Random, text: bytes) -> tuple[bytes, str]:
    at = _position(rng, text)
    bad = rng.choice((b"\xff", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\xc0\xaf", b"\x80"))
    return text[:at] + bad + text[at:], f"invalid UTF-8 at {at}"


def yaml_syntax(rng: random.Random, text: bytes) -> tuple[bytes, str]:
    at = _position(rng, text)
    piece = rng.choice(_SYNTAX)
    return text[:at] + piece + text[at:], f"inserted {piece[:20]!r} at {at}"


def shuffle_lines(rng: random.Random, text: bytes) -> tuple[bytes, str]:
    lines = text.split(b"\n")
    if len(lines) < 2:
        return text, "one line"
    index = rng.randrange(len(lines))
    action = rng.randrange(4)
    if action == 0:
        lines.insert(index, lines[index])
        what = "duplicated"
    elif action == 1:
        del lines[index]
        what = "dropped"
    elif action == 2:
        lines[index] = b" " * rng.randrange(1, 4) + lines[index]
        what = "indented"
    else:
        lines[index] = lines[index].lstrip()
        what = "dedented"
    return b"\n".join(lines), f"{what} line {index + 1}"


TEXTUAL = (
    truncate,
    flip_bytes,
    random_bytes,
    invalid_utf8,
    yaml_syntax,
    yaml_syntax,
    shuffle_lines,
)


# --- environments -------------------------------------------------------------------------


def _names(data: Any, section: str) -> list[str]:
    if not isinstance(data, dict):
        return []
    for key in (section, section.capitalize()):
        value = data.get(key)
        if isinstance(value, dict):
            return [name for name in value if isinstance(name, str)]
    return []


def _types(data: Any) -> list[str]:
    found = []
    for key in ("resources", "Resources"):
        section = data.get(key) if isinstance(data, dict) else None
        if isinstance(section, dict):
            for resource in section.values():
                if isinstance(resource, dict):
                    kind = resource.get("type", resource.get("Type"))
                    if isinstance(kind, str):
                        found.append(kind)
    return found


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
        value = rng.choice(_STRINGS)
    else:
        value = random_value(rng)
    if text and not isinstance(value, str):
        value = json.dumps(value) if isinstance(value, dict | list) else str(value)
    return value


def made_environment(rng: random.Random, template: Any) -> dict[str, Any]:
    """An environment for ``template``: values for its parameters, a registry for its types."""
    parameters = _names(template, "parameters")
    resources = _names(template, "resources")
    types = _types(template)
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


# --- cases --------------------------------------------------------------------------------


def dump(rng: random.Random, data: Any) -> tuple[bytes, str]:
    """The tree as a file: YAML mostly, JSON sometimes (as the corpus has both)."""
    if rng.random() < 0.2 and _jsonable(data):
        return json.dumps(data, indent=rng.choice((None, 2))).encode(), ".json"
    try:
        text = yaml.safe_dump(data, sort_keys=False, allow_unicode=rng.random() < 0.5)
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
FAMILIES = ("values", "tree", "text", "environment")


def make_case(rng: random.Random, family: str | None = None) -> Case:
    """One input: a corpus template (sometimes a doc fragment) mutated, with an
    environment; ``family`` picks the kind of mutation, else it is drawn too."""
    templates, environments, fragments = corpus()
    seed = rng.choice(fragments) if rng.random() < 0.15 else rng.choice(templates)
    data = _as_template(rng, _copy(seed.data))
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
    if family == "values":
        mutate_values(rng, data, steps)
    elif family == "tree" or rng.random() < 0.3:
        mutate_tree(rng, data, steps)
    text, suffix = dump(rng, data)
    environment: Any = None
    if family == "environment" or rng.random() < 0.6:
        environment = (
            _copy(rng.choice(environments).data)
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
        for name in _names(data, "parameters"):
            if rng.random() < 0.95:
                parameters[name] = parameter_value(rng, data, name, text=True)
    return Case(seed.path, text, env_texts, parameters, [family, *steps], suffix)
