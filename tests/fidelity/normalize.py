"""What varies between runs of the same case, replaced by stable markers on both sides."""

from __future__ import annotations

import re
from typing import Any

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
# the random part Heat (and stoker) append to generated names: ``<stack>-<resource>-<12>``
# a creation time (a software config's ``show``)
TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z?")
SUFFIX = re.compile(r"(?<=-)[a-z0-9]{12}(?=-|$)")
ARN_PROJECT = re.compile(r"^(arn:openstack:heat::)([^:]*)(:)")


def normalize(value: Any, stack_name: str) -> Any:
    """The value with every UUID (stack and resource ids) as ``<uuid>``, timestamps as
    ``<time>``, and the random
    suffixes of names generated from ``stack_name`` as ``<random>``.

    Only what follows the stack's own name is searched for suffixes, so a 12-letter word
    in the name itself (``fid-environments-...``) stays as it is.
    """
    if isinstance(value, float) and value != value:
        return "<nan>"  # NaN is not equal to itself (a number parameter given 'nan')
    if isinstance(value, str):
        value = TIMESTAMP.sub("<time>", UUID.sub("<uuid>", value))
        generated = re.compile(re.escape(stack_name) + r"(-[^/\s\"']*)")
        return generated.sub(lambda m: stack_name + SUFFIX.sub("<random>", m.group(1)), value)
    if isinstance(value, list):
        return [normalize(v, stack_name) for v in value]
    if isinstance(value, dict):
        return {normalize(k, stack_name): normalize(v, stack_name) for k, v in value.items()}
    return value


def project_of(parameters: dict[str, Any]) -> str | None:
    """The project a stack ran in, as its pseudo-parameters show it."""
    if "OS::project_id" in parameters:
        return str(parameters["OS::project_id"])
    found = ARN_PROJECT.match(str(parameters.get("AWS::StackId", "")))
    return found.group(2) if found else None


def without_project(value: Any, project: str | None) -> Any:
    """The value with the project the stack ran in as ``<project>``: a string that *is* the
    project, and the project field of ARNs. The recordings come from Heat's project
    ``admin``; stoker's project is a setting, not a semantic difference."""
    if project is None:
        return value
    if isinstance(value, str):
        if value == project:
            return "<project>"
        return ARN_PROJECT.sub(
            lambda m: m.group(1) + ("<project>" if m.group(2) == project else m.group(2)) + ":",
            value,
        )
    if isinstance(value, list):
        return [without_project(v, project) for v in value]
    if isinstance(value, dict):
        return {k: without_project(v, project) for k, v in value.items()}
    return value
