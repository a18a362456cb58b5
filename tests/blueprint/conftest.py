"""Blueprint tests: the examples, the library, and the facts of the sandbox's own seed
catalog (its flavors and images), so choosing is tested in process."""

from __future__ import annotations

from pathlib import Path

import pytest

from stoker.blueprint.build import Analysis, analyse, compile_source, file_source
from stoker.blueprint.cloudfacts import CloudFacts, Flavor, Image
from stoker.blueprint.compile import Compiled
from stoker.sandbox.compute.catalog import SEED_FLAVORS
from stoker.sandbox.image.backend import SEED_IMAGES

EXAMPLES = Path(__file__).parents[2] / "examples" / "blueprints"
PAIRS = {
    "script": ("1-script-server.map.yaml", "1-script-server.list.json"),
    "war": ("2-war-jetty.map.yaml", "2-war-jetty.list.yaml"),
    "php": ("3-elastic-php.map.yaml", "3-elastic-php.list.yaml"),
    "camp": ("4-camp-cdi.map.yaml", "4-camp-cdi.list.yaml"),
}
US = {"blueprint_locations": [{"region": "RegionOne", "zone": "nova", "iso3166": "us"}]}


def sandbox_facts() -> CloudFacts:
    flavors = [Flavor(name, vcpus, ram, disk) for _, name, vcpus, ram, disk in SEED_FLAVORS]
    images = [
        Image(name, f"id-{index}", properties.get("os_distro"), properties.get("os_version"))
        for index, (name, properties, _) in enumerate(SEED_IMAGES)
    ]
    return CloudFacts(
        flavors, images, [("private-subnet", "subnet-1")], "RegionOne", ["nova"], "the sandbox"
    )


@pytest.fixture
def facts() -> CloudFacts:
    return sandbox_facts()


def example(name: str) -> str:
    return str(EXAMPLES / name)


def analysed(path: str, libraries: tuple[str, ...] = ()) -> Analysis:
    return analyse(file_source(path), libraries)


def compiled(
    path: str, facts: CloudFacts | None, defaults: dict | None = None
) -> tuple[Analysis, Compiled | None]:  # type: ignore[type-arg]
    return compile_source(
        file_source(path), facts, defaults=defaults if defaults is not None else US
    )
