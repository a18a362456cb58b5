"""Validation speed: templates per second over the test corpus, and one big template.

Prints figures; asserts nothing. Run: .venv/bin/python benchmarks/validate_corpus.py
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml

from stoker.definition.loading import LoadOptions, load_definition
from stoker.definition.stack import define_stack
from stoker.definition.template_parser import parse_template
from stoker.environment import merge_environments
from stoker.template.loader import LoadLimits, load_document

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "corpus" / "data"


def corpus_templates() -> list[tuple[str, list[str]]]:
    """Every full template in the corpus, with its paired environment (``<name>_env.yaml``)."""
    records = json.loads((CORPUS / "index.json").read_text())
    result = []
    for record in records:
        if record["kind"] not in ("hot", "cfn"):
            continue
        path = CORPUS / record["path"]
        env = path.with_name(path.stem + "_env.yaml")
        result.append((str(path), [str(env)] if env.exists() else []))
    return result


def generated_template(resources: int = 1000) -> str:
    """A HOT template with many get_param / str_replace / get_attr / get_resource uses."""
    lines = [
        "heat_template_version: 2018-08-31",
        "description: generated benchmark template",
        "parameters:",
    ]
    for index in range(10):
        lines += [
            f"  p{index}:",
            "    type: string",
            f"    default: value{index}",
            "    constraints:",
            "      - length: {min: 1, max: 64}",
        ]
    lines += ["  settings:", "    type: json", '    default: {"zone": "a", "size": 3}']
    lines.append("resources:")
    for index in range(resources):
        previous = f"r{index - 1}" if index else None
        lines += [
            f"  r{index}:",
            "    type: OS::Heat::TestResource",
            "    properties:",
            "      value:",
            "        str_replace:",
            "          template: name-$A-$B-$C",
            "          params:",
            f"            $A: {{get_param: p{index % 10}}}",
            "            $B: {get_param: [settings, zone]}",
            (
                f"            $C: {{get_attr: [{previous}, output]}}"
                if previous
                else "            $C: first"
            ),
            "      client_name:",
            f"        list_join: ['-', [{{get_param: p{(index + 3) % 10}}}, "
            f"{{get_resource: r{index // 2}}}]]"
            if index
            else "        list_join: ['-', [a, b]]",
        ]
    lines.append("outputs:")
    for index in range(0, resources, 50):
        lines += [f"  o{index}:", f"    value: {{get_attr: [r{index}, output]}}"]
    return "\n".join(lines) + "\n"


def timed(function, repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return times


def main() -> int:
    options = LoadOptions(limits=LoadLimits(max_bytes=4 * 1024 * 1024))
    templates = corpus_templates()

    def validate_corpus() -> None:
        for path, envs in templates:
            load_definition(path, envs, {}, options)

    validate_corpus()  # warm up imports and caches
    corpus_times = timed(validate_corpus, 5)
    best = min(corpus_times)
    print(
        f"corpus: {len(templates)} templates, best of 5: {best:.3f} s "
        f"= {len(templates) / best:.0f} templates/s"
    )

    text = generated_template(1000)
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "big.yaml")
        Path(path).write_text(text)
        result = load_definition(path, [], {}, options)
        errors = [d.render() for d in result.diagnostics if d.is_error]
        if errors:
            print("generated template did not validate:", *errors[:5], sep="\n  ")
            return 1
        times = timed(lambda: load_definition(path, [], {}, options), 20)
        bare = timed(lambda: yaml.load(Path(path).read_text(), Loader=yaml.CSafeLoader), 20)
    print(
        f"generated: 1000 resources, {len(text) / 1024:.0f} KiB; load + validate "
        f"median {statistics.median(times) * 1000:.1f} ms, best {min(times) * 1000:.1f} ms "
        f"(20 runs)"
    )
    print(
        f"  a bare yaml.load(..., Loader=CSafeLoader) of the same file: median "
        f"{statistics.median(bare) * 1000:.1f} ms; validate / yaml.load = "
        f"{statistics.median(times) / statistics.median(bare):.2f} (aim: at most 3)"
    )
    print("  by stage (median of 20):", stage_times(text, options))
    return 0


def stage_times(text: str, options: LoadOptions) -> str:
    """Where the time goes: libyaml's events alone (the floor), load, parse, define."""
    limits = options.limits
    environment, _ = merge_environments([])
    document = load_document(text, "big.yaml", limits)
    template = parse_template(document)
    stages = {
        "libyaml events only": lambda: sum(1 for _ in yaml.parse(text, Loader=yaml.CSafeLoader)),
        "load": lambda: load_document(text, "big.yaml", limits),
        "parse": lambda: parse_template(document),
        "define": lambda: define_stack(template, environment, {}),
    }
    return ", ".join(
        f"{name} {statistics.median(timed(stage, 20)) * 1000:.1f} ms"
        for name, stage in stages.items()
    )


if __name__ == "__main__":
    sys.exit(main())
