"""What the cloud answers for the cloud requirements: the smallest flavor that fits
(minRam, minCpu, minDisk), an image by its ``os_distro`` (os), a subnet for a load
balancer, and the zone the jurisdiction requirement allows.

`CloudFacts` is plain data, read once from a cloud through openstacksdk (`from_cloud`),
so choosing is a pure function of it and the requirements, and says why it chose.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from stoker.blueprint.decisions import Rejection
from stoker.errors import RequirementUnmet

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]i?b?)?\s*$", re.IGNORECASE)
_UNIT_MB = {"k": 1 / 1024, "m": 1, "g": 1024, "t": 1024 * 1024}


@dataclass(frozen=True, slots=True)
class Flavor:
    name: str
    vcpus: int
    ram: int  # MB
    disk: int  # GB

    def describe(self) -> str:
        return f"{self.name} ({self.ram} MB RAM, {self.vcpus} vCPU, {self.disk} GB disk)"


@dataclass(frozen=True, slots=True)
class Image:
    name: str
    id: str
    os_distro: str | None
    os_version: str | None = None


@dataclass(slots=True)
class CloudFacts:
    flavors: list[Flavor] = field(default_factory=list)
    images: list[Image] = field(default_factory=list)
    #: (name, id) of each subnet of a network that is not external
    subnets: list[tuple[str, str]] = field(default_factory=list)
    region: str | None = None
    zones: list[str] = field(default_factory=list)
    source: str = "the cloud"

    @classmethod
    def from_cloud(cls, os_cloud: str | None) -> CloudFacts | None:
        """What the cloud ``os_cloud`` (or OS_CLOUD, or the OS_* variables: see
        `stoker.cloud.choose_cloud`) offers; None when no cloud is chosen."""
        from stoker.cloud import Cloud, choose_cloud

        choice = choose_cloud(os_cloud)
        if choice is None:
            return None
        cloud = Cloud(choice)
        try:
            return cloud.run(
                "read flavors, images and subnets",
                lambda connection: cls.from_connection(connection, choice.describe()),
            )
        finally:
            cloud.close()

    @classmethod
    def from_connection(cls, connection: Any, source: str) -> CloudFacts:
        """Read what choosing needs from an openstacksdk connection."""
        flavors = [
            Flavor(str(f.name), int(f.vcpus or 0), int(f.ram or 0), int(f.disk or 0))
            for f in connection.compute.flavors()
        ]
        images = []
        for image in connection.image.images():
            properties = dict(getattr(image, "properties", None) or {})
            distro = getattr(image, "os_distro", None) or properties.get("os_distro")
            version = getattr(image, "os_version", None) or properties.get("os_version")
            images.append(Image(str(image.name), str(image.id), distro, version))
        external = {n.id for n in connection.network.networks() if n.is_router_external}
        subnets = [
            (str(s.name), str(s.id))
            for s in connection.network.subnets()
            if s.network_id not in external
        ]
        try:
            zones = [str(z.name) for z in connection.compute.availability_zones()]
        except Exception:  # noqa: BLE001 - a cloud that hides its zones has none to choose
            zones = []
        region = getattr(connection.config, "region_name", None)
        return cls(flavors, images, subnets, region, zones, source)


def size_mb(value: Any, default_unit: str, what: str) -> int:
    """``4gb``, ``512 MB``, ``2GiB`` or a bare number (in ``default_unit``) as MB."""
    if isinstance(value, bool):
        raise RequirementUnmet(f"{what} must be a size such as 4gb (got {value!r})")
    match = _SIZE.match(str(value))
    if match is None:
        raise RequirementUnmet(f"{what} must be a size such as 4gb or 512mb (got {value!r})")
    unit = (match.group(2) or default_unit)[0].lower()
    return int(float(match.group(1)) * _UNIT_MB[unit])


def choose_flavor(facts: CloudFacts, ram: int, vcpus: int, disk: int) -> tuple[Flavor, str]:
    """The smallest flavor (by RAM, then vCPUs, then disk) that meets all three."""
    fitting: list[Flavor] = []
    rejected: list[Rejection] = []
    for flavor in facts.flavors:
        if flavor.ram < ram:
            rejected.append(Rejection(flavor.name, f"{flavor.ram} MB RAM < {ram} MB"))
        elif flavor.vcpus < vcpus:
            rejected.append(Rejection(flavor.name, f"{flavor.vcpus} vCPU < {vcpus}"))
        elif flavor.disk < disk:
            rejected.append(Rejection(flavor.name, f"{flavor.disk} GB disk < {disk} GB"))
        else:
            fitting.append(flavor)
    wanted = f"RAM >= {ram} MB, vCPU >= {vcpus}, disk >= {disk} GB"
    if not fitting:
        raise RequirementUnmet(f"no flavor of {facts.source} has {wanted}", rejected)
    fitting.sort(key=lambda f: (f.ram, f.vcpus, f.disk, f.name))
    chosen = fitting[0]
    why = (
        f"{chosen.describe()}: the smallest of the {len(fitting)} of {len(facts.flavors)} "
        f"flavors with {wanted}"
    )
    return chosen, why


def _version_key(version: str | None) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version or ""))


def choose_image(facts: CloudFacts, distro: str) -> tuple[Image, str]:
    """The image whose os_distro is ``distro``; of several, the highest os_version."""
    matching = [i for i in facts.images if (i.os_distro or "").lower() == distro.lower()]
    if not matching:
        rejected = [
            Rejection(i.name, f"os_distro is {i.os_distro or '(unset)'}") for i in facts.images
        ]
        raise RequirementUnmet(f'no image of {facts.source} has os_distro "{distro}"', rejected)
    matching.sort(key=lambda i: (_version_key(i.os_version), i.name), reverse=True)
    chosen = matching[0]
    why = f'{chosen.name}: os_distro "{distro}"'
    if len(matching) > 1:
        why += f", the highest os_version ({chosen.os_version}) of {len(matching)}"
    return chosen, why


def choose_subnet(facts: CloudFacts) -> tuple[str, str]:
    """The one subnet of a network that is not external (a load balancer's address)."""
    if len(facts.subnets) == 1:
        name, ident = facts.subnets[0]
        return ident, f"subnet {name}: the one subnet of {facts.source} not on an external network"
    if not facts.subnets:
        raise RequirementUnmet(
            f"{facts.source} has no subnet outside external networks for a load balancer's "
            "address; create a network and a subnet"
        )
    names = ", ".join(name for name, _ in facts.subnets)
    raise RequirementUnmet(
        f"{facts.source} has {len(facts.subnets)} subnets ({names}) and a load balancer needs "
        "one; keep only one, or give the load balancer component a subnet attribute"
    )


def choose_zone(
    facts: CloudFacts, locations: Sequence[Mapping[str, Any]], wanted: Mapping[str, Any]
) -> tuple[str | None, str]:
    """The zone, among the locations an environment declares, that meets the jurisdiction
    requirement and is in this cloud (its region, its zones). None when the one that
    qualifies names a region only."""
    if not locations:
        raise RequirementUnmet(
            "the jurisdiction requirement needs to know where the cloud is: declare its "
            "regions and zones in an environment (-e) under parameter_defaults: "
            "blueprint_locations: [{region: RegionOne, zone: nova, iso3166: us}]"
        )
    chosen: list[Mapping[str, Any]] = []
    rejected: list[Rejection] = []
    for location in locations:
        label = "/".join(str(location.get(k)) for k in ("region", "zone") if location.get(k))
        reason = _location_reason(facts, location, wanted)
        if reason is None:
            chosen.append(location)
        else:
            rejected.append(Rejection(label or "(unnamed)", reason))
    described = ", ".join(f"{k}: {v}" for k, v in wanted.items())
    if len(chosen) != 1:
        what = "none" if not chosen else f"{len(chosen)}"
        raise RequirementUnmet(
            f"{what} of the {len(locations)} declared locations meets jurisdiction {{{described}}}"
            + ("" if not chosen else "; declare fewer, or add an attribute that tells them apart"),
            rejected,
        )
    zone = chosen[0].get("zone")
    where = "/".join(str(chosen[0].get(k)) for k in ("region", "zone") if chosen[0].get(k))
    return (str(zone) if zone else None), f"{where}: the one declared location with {described}"


def _location_reason(
    facts: CloudFacts, location: Mapping[str, Any], wanted: Mapping[str, Any]
) -> str | None:
    region = location.get("region")
    if region and facts.region and str(region) != facts.region:
        return f"region {region} is not this cloud's ({facts.region})"
    zone = location.get("zone")
    if zone and facts.zones and str(zone) not in facts.zones:
        return f"zone {zone} is not one of this cloud's ({', '.join(facts.zones)})"
    for key, value in wanted.items():
        offered = location.get(key)
        values = offered if isinstance(offered, list) else [offered]
        if offered is None:
            return f"it declares no {key}"
        if str(value).lower() not in [str(v).lower() for v in values]:
            return f"its {key} is {offered}, not {value}"
    return None
