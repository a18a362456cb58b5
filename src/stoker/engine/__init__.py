"""The stack engine: operations as traversals of the dependency graph, durable state first.

Other packages import these names from here, never from the modules (import-linter's
"protected" contract in pyproject.toml). Each is imported from its module on first use
(`stoker.lazy.names_from`): importing the package loads none of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stoker.lazy import names_from

if TYPE_CHECKING:
    from stoker.engine.adopt import load as load_adoption
    from stoker.engine.drift import Repair as DriftRepair
    from stoker.engine.drift import accept as accept_drift
    from stoker.engine.drift import drift as detect_drift
    from stoker.engine.drift import repair_records, write_repair
    from stoker.engine.event_views import api_event_row, event_row, failure_line, stack_events
    from stoker.engine.heap import loading_kept, long_running_process, one_command_process
    from stoker.engine.hooks import paused as paused_hooks
    from stoker.engine.leases import holder_is_dead, now_utc
    from stoker.engine.plan_views import update_preview
    from stoker.engine.preview import preview_document
    from stoker.engine.resource_views import (
        child_stacks,
        resource_document,
        resource_metadata,
        resource_rows,
    )
    from stoker.engine.settings import EngineSettings
    from stoker.engine.stack_views import (
        api_stack_row,
        mask_environment,
        masked_environment,
        output_list,
        snapshot_document,
        stack_document,
        stack_parameters,
        stack_row,
        stack_summary,
        table_outputs,
        template_document,
        time_text,
    )
    from stoker.engine.stacks import CreateRequest, StackEngine, StackNotFound
    from stoker.engine.state import (
        Action,
        DefinitionChange,
        EventRecord,
        Lease,
        LeaseToken,
        ResourceRecord,
        SnapshotRecord,
        StackExists,
        StackRecord,
        Status,
        Store,
        StoredDefinition,
        WriteBatch,
        live_child,
    )
    from stoker.engine.update_request import (
        UpdateChanges,
        UpdateFiles,
        UpdateRequest,
        prepare_update,
    )

_WHERE = {
    "Action": "stoker.engine.state",
    "CreateRequest": "stoker.engine.stacks",
    "DefinitionChange": "stoker.engine.state",
    "DriftRepair": "stoker.engine.drift:Repair",
    "EngineSettings": "stoker.engine.settings",
    "EventRecord": "stoker.engine.state",
    "Lease": "stoker.engine.state",
    "LeaseToken": "stoker.engine.state",
    "ResourceRecord": "stoker.engine.state",
    "SnapshotRecord": "stoker.engine.state",
    "StackEngine": "stoker.engine.stacks",
    "StackExists": "stoker.engine.state",
    "StackNotFound": "stoker.engine.stacks",
    "StackRecord": "stoker.engine.state",
    "Status": "stoker.engine.state",
    "Store": "stoker.engine.state",
    "StoredDefinition": "stoker.engine.state",
    "UpdateChanges": "stoker.engine.update_request",
    "UpdateFiles": "stoker.engine.update_request",
    "UpdateRequest": "stoker.engine.update_request",
    "WriteBatch": "stoker.engine.state",
    "accept_drift": "stoker.engine.drift:accept",
    "api_event_row": "stoker.engine.event_views",
    "api_stack_row": "stoker.engine.stack_views",
    "child_stacks": "stoker.engine.resource_views",
    "detect_drift": "stoker.engine.drift:drift",
    "event_row": "stoker.engine.event_views",
    "failure_line": "stoker.engine.event_views",
    "holder_is_dead": "stoker.engine.leases",
    "live_child": "stoker.engine.state",
    "load_adoption": "stoker.engine.adopt:load",
    "loading_kept": "stoker.engine.heap",
    "long_running_process": "stoker.engine.heap",
    "mask_environment": "stoker.engine.stack_views",
    "masked_environment": "stoker.engine.stack_views",
    "now_utc": "stoker.engine.leases",
    "one_command_process": "stoker.engine.heap",
    "output_list": "stoker.engine.stack_views",
    "paused_hooks": "stoker.engine.hooks:paused",
    "prepare_update": "stoker.engine.update_request",
    "preview_document": "stoker.engine.preview",
    "repair_records": "stoker.engine.drift",
    "resource_document": "stoker.engine.resource_views",
    "resource_metadata": "stoker.engine.resource_views",
    "resource_rows": "stoker.engine.resource_views",
    "snapshot_document": "stoker.engine.stack_views",
    "stack_document": "stoker.engine.stack_views",
    "stack_events": "stoker.engine.event_views",
    "stack_parameters": "stoker.engine.stack_views",
    "stack_row": "stoker.engine.stack_views",
    "stack_summary": "stoker.engine.stack_views",
    "table_outputs": "stoker.engine.stack_views",
    "template_document": "stoker.engine.stack_views",
    "time_text": "stoker.engine.stack_views",
    "update_preview": "stoker.engine.plan_views",
    "write_repair": "stoker.engine.drift",
}

__all__ = [
    "Action",
    "CreateRequest",
    "DefinitionChange",
    "DriftRepair",
    "EngineSettings",
    "EventRecord",
    "Lease",
    "LeaseToken",
    "ResourceRecord",
    "SnapshotRecord",
    "StackEngine",
    "StackExists",
    "StackNotFound",
    "StackRecord",
    "Status",
    "Store",
    "StoredDefinition",
    "UpdateChanges",
    "UpdateFiles",
    "UpdateRequest",
    "WriteBatch",
    "accept_drift",
    "api_event_row",
    "api_stack_row",
    "child_stacks",
    "detect_drift",
    "event_row",
    "failure_line",
    "holder_is_dead",
    "live_child",
    "load_adoption",
    "loading_kept",
    "long_running_process",
    "mask_environment",
    "masked_environment",
    "now_utc",
    "one_command_process",
    "output_list",
    "paused_hooks",
    "prepare_update",
    "preview_document",
    "repair_records",
    "resource_document",
    "resource_metadata",
    "resource_rows",
    "snapshot_document",
    "stack_document",
    "stack_events",
    "stack_parameters",
    "stack_row",
    "stack_summary",
    "table_outputs",
    "template_document",
    "time_text",
    "update_preview",
    "write_repair",
]

__getattr__ = names_from(__name__, _WHERE)
