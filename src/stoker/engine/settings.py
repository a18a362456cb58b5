"""Engine settings (Heat's configuration defaults where Heat has one)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class EngineSettings:
    #: resources whose jobs may run at once (the bound on the traversal's parallelism)
    concurrency: int = 100
    #: Heat's max_resources_per_stack (-1: no limit)
    max_resources_per_stack: int = 1000
    #: Heat's max_stacks_per_tenant
    max_stacks_per_project: int = 512
    #: Heat's max_nested_stack_depth: a stack this deep cannot have children
    max_nested_depth: int = 5
    #: how long a claim on a stack lives without a heartbeat
    lease_seconds: float = 30.0
    #: Heat's stack_action_timeout, used when a stack sets no timeout
    default_timeout_seconds: float = 3600.0
    project: str = "default"
    #: when set, get_file in any template of a tree reads only below this directory
    files_root: str | None = None
    #: the API's engines: provider templates and get_file content come only from each
    #: stack's files map (what the request carried), never from the disk
    files_from_request: bool = False
