"""Linter speed: the whole shared corpus, and a generated 50-template VNF package (ONAP).

Prints figures; asserts nothing. Run: .venv/bin/python benchmarks/lint.py
The first run in a process also loads Heat's resource catalog (shared afterwards);
"warm" is the best of the following runs. For scale, the package's files are also only
loaded with PyYAML's CSafeLoader (no positions, no checks): the ONAP lint aims at well
within 3x that bare load, in one process.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

import yaml

from stoker.lint import LintConfig, LintOptions, LintReport, Profile, lint

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
MODULES = 45  # base + incremental modules, each with its environment file
NESTED = 5  # nested templates used by the modules' resource groups
RUNS = 7


def module(name: str, index: int) -> str:
    """One ONAP-style module: parameters for two servers, their ports, a resource group."""
    vm = f"vm{index}"
    lines = [
        "heat_template_version: 2015-04-30",
        f"description: module {name}",
        "parameters:",
        "  vnf_name:\n    type: string\n    description: VNF name",
        "  vnf_id:\n    type: string\n    description: VNF id",
        "  vf_module_id:\n    type: string\n    description: module id",
        f"  {vm}_names:\n    type: comma_delimited_list\n    description: server names",
        f"  {vm}_image_name:\n    type: string\n    description: image",
        f"  {vm}_flavor_name:\n    type: string\n    description: flavor",
        "  oam_net_id:\n    type: string\n    description: OAM network",
        f"  {vm}_oam_ips:\n    type: comma_delimited_list\n    description: OAM addresses",
        "  availability_zone_0:\n    type: string\n    description: zone",
        "  index:\n    type: number\n    description: server index",
        "resources:",
    ]
    for server in range(2):
        lines += [
            f"  {vm}_server_{server}_oam_port_0:",
            "    type: OS::Neutron::Port",
            "    properties:",
            "      network: {get_param: oam_net_id}",
            f"      fixed_ips: [{{ip_address: {{get_param: [{vm}_oam_ips, {server}]}}}}]",
            f"  {vm}_server_{server}:",
            "    type: OS::Nova::Server",
            "    properties:",
            f"      name: {{get_param: [{vm}_names, {{get_param: index}}]}}",
            f"      image: {{get_param: {vm}_image_name}}",
            f"      flavor: {{get_param: {vm}_flavor_name}}",
            "      availability_zone: {get_param: availability_zone_0}",
            f"      networks: [{{port: {{get_resource: {vm}_server_{server}_oam_port_0}}}}]",
            "      metadata:",
            "        vnf_name: {get_param: vnf_name}",
            "        vnf_id: {get_param: vnf_id}",
            "        vf_module_id: {get_param: vf_module_id}",
        ]
    lines += [
        f"  {vm}_group:",
        "    type: OS::Heat::ResourceGroup",
        "    properties:",
        "      count: 2",
        "      resource_def:",
        f"        type: nested_{index % NESTED}.yaml",
        "        properties:",
        "          vnf_name: {get_param: vnf_name}",
        "outputs:",
        f"  {vm}_server_0_id:",
        f"    value: {{get_resource: {vm}_server_0}}",
        f"  {vm}_group_refs:",
        f"    value: {{get_attr: [{vm}_group, refs]}}",
    ]
    return "\n".join(lines) + "\n"


def nested(index: int) -> str:
    return (
        "heat_template_version: 2015-04-30\n"
        f"description: nested {index}\n"
        "parameters:\n  vnf_name:\n    type: string\n    description: VNF name\n"
        "resources:\n"
        f"  nested_{index}_value:\n    type: OS::Heat::Value\n"
        "    properties:\n      value: {get_param: vnf_name}\n"
        f"outputs:\n  nested_{index}_out:\n    value: {{get_attr: [nested_{index}_value, value]}}\n"
    )


def environment(index: int) -> str:
    """What the vendor supplies: images, flavors, networks, addresses; not the names,
    zones and ids ONAP supplies at instantiation (R-22838, R-59568, R-20856 ...)."""
    vm = f"vm{index}"
    return (
        f"parameters:\n  {vm}_image_name: img\n  {vm}_flavor_name: m1.small\n"
        f"  oam_net_id: oam\n  {vm}_oam_ips: 10.0.0.1,10.0.0.2\n  index: 0\n"
    )


def write_package(directory: Path) -> int:
    names = ["base_vnf"] + [f"module_{i}" for i in range(1, MODULES)]
    for index, name in enumerate(names):
        (directory / f"{name}.yaml").write_text(module(name, index))
        (directory / f"{name}.env").write_text(environment(index))
    for index in range(NESTED):
        (directory / f"nested_{index}.yaml").write_text(nested(index))
    return len(names) + NESTED


def against_bare_load(directory: Path, options: LintOptions) -> tuple[float, float]:
    """Best CPU times of a bare CSafeLoader load of the package's files and of the lint,
    runs interleaved so that a busy machine slows both alike."""
    paths = sorted(directory.iterdir())
    bare, linted = float("inf"), float("inf")
    for _ in range(RUNS * 4):
        start = time.process_time()
        for path in paths:
            with open(path, "rb") as handle:
                yaml.load(handle, Loader=yaml.CSafeLoader)
        bare = min(bare, time.process_time() - start)
        start = time.process_time()
        lint([str(directory)], options)
        linted = min(linted, time.process_time() - start)
    return bare, linted


def timed(action: Callable[[], LintReport]) -> tuple[float, list[float], LintReport]:
    """The first run's time, the following runs' times, and the last report."""
    start = time.perf_counter()
    report = action()
    first = time.perf_counter() - start
    warm = []
    for _ in range(RUNS):
        start = time.perf_counter()
        report = action()
        warm.append(time.perf_counter() - start)
    return first, warm, report


def show(label: str, first: float, warm: list[float], report: LintReport) -> None:
    print(
        f"{label}: first run {first * 1000:.0f} ms, warm best {min(warm) * 1000:.0f} ms "
        f"(median {statistics.median(warm) * 1000:.0f} ms); {len(report.files)} files, "
        f"{report.summary()}"
    )


def main() -> None:
    onap = LintOptions(config=LintConfig(profiles=(Profile.ONAP,)))
    with tempfile.TemporaryDirectory() as tmp:
        package = Path(tmp) / "vnf"
        package.mkdir()
        templates = write_package(package)
        archive = Path(tmp) / "vnf.zip"
        with zipfile.ZipFile(archive, "w") as handle:
            for path in sorted(package.iterdir()):
                handle.write(path, path.name)
        # the package first, in a fresh process: its first run pays for the catalog
        first, warm, report = timed(lambda: lint([str(package)], onap))
        show(
            f"ONAP profile, generated package ({templates} templates + envs, dir)",
            first,
            warm,
            report,
        )
        bare, linted = against_bare_load(package, onap)
        print(
            f"bare CSafeLoader load of the same {len(list(package.iterdir()))} files: best "
            f"{bare * 1000:.0f} ms CPU; ONAP lint, interleaved with it: best "
            f"{linted * 1000:.0f} ms CPU = {linted / bare:.1f}x"
        )
        first, warm, report = timed(lambda: lint([str(archive)], onap))
        show("ONAP profile, the same package as a .zip", first, warm, report)
        both = LintOptions(config=LintConfig(profiles=(Profile.DEFAULT, Profile.ONAP)))
        first, warm, report = timed(lambda: lint([str(package)], both))
        show("default + ONAP profiles, same package (dir)", first, warm, report)
    if not (CORPUS / "index.json").exists():
        print("shared corpus not found; skipping", file=sys.stderr)
        return
    first, warm, report = timed(lambda: lint([str(CORPUS)]))
    show("default profile, the whole shared corpus", first, warm, report)


if __name__ == "__main__":
    main()
