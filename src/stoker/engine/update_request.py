"""What a stack update is asked to do, and the one way a request for it is assembled.

`UpdateRequest` is kept apart from the update's machinery so that nested stacks
(`stoker.engine.nested`), which the update runs, can ask for updates of their own
children. `prepare_update` is what ``stoker stack update`` and the REST API's PUT/PATCH
both call: load the new definition (keeping what ``--existing``/PATCH keeps), check it as
a create would be checked, and fill in the stack's own timeout, rollback and tags where
the caller gives none. Written once, so the two front ends cannot drift apart on what an
update keeps.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from stoker.definition import (
    CurrentInputs,
    LoadOptions,
    RequestInputs,
    StackDefinition,
    load_update_definition,
    load_update_request,
)
from stoker.diagnostics import Diagnostic
from stoker.template.nodes import plain

if TYPE_CHECKING:
    from stoker.engine.stacks import StackEngine
    from stoker.engine.state import StackRecord


@dataclass(slots=True)
class UpdateRequest:
    """A new definition for a stack (already merged with what ``--existing`` keeps)."""

    definition: StackDefinition  # validated with every parameter required
    template: dict[str, Any]  # the template as data (what is stored)
    environment: dict[str, Any]  # the merged environment as data
    parameters: dict[str, Any]  # as given (with --existing: the stored ones kept)
    template_file: str | None = None
    timeout_mins: int | None = None
    disable_rollback: bool = True
    tags: tuple[str, ...] = ()
    #: resources to compare with their records even where the template left them as
    #: they were (a drift repair's: their records hold what the cloud has now); a path
    #: ``child/name`` is a resource of the nested stack of ``child`` (`below`)
    revisit: frozenset[str] = frozenset()


def below(paths: Collection[str], name: str) -> frozenset[str]:
    """The paths of ``paths`` inside the nested stack of resource ``name``, as that
    stack names them (``name/a/b`` -> ``a/b``)."""
    prefix = f"{name}/"
    return frozenset(path[len(prefix) :] for path in paths if path.startswith(prefix))


@dataclass(frozen=True, slots=True)
class UpdateFiles:
    """An update read from paths on the caller's disk (the CLI's ``-t`` and ``-e``).

    ``template`` None keeps the stored template (``--existing`` only)."""

    template: str | None
    environments: Sequence[str] = ()
    parameters: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class UpdateChanges:
    """What an update may change beside the definition; None keeps the stack's own
    value, as Heat keeps it when the request leaves the field out."""

    timeout_mins: int | None = None
    disable_rollback: bool | None = None
    tags: tuple[str, ...] | None = None


@dataclass(slots=True)
class PreparedUpdate:
    """The request, or why there is none.

    The findings are kept in two lists because they come from two stages that a caller
    reports in order: ``loaded`` (reading the template, environment and parameters) and
    ``checked`` (the engine's pre-flight check, run only when loading succeeded)."""

    request: UpdateRequest | None
    loaded: list[Diagnostic]
    checked: list[Diagnostic] = field(default_factory=list)

    @property
    def load_failed(self) -> bool:
        """Whether the definition itself was refused (the check never ran)."""
        return self.request is None and not self.checked

    @property
    def errors(self) -> list[Diagnostic]:
        """The findings that refused the update (empty when there is a request)."""
        return [d for d in (*self.loaded, *self.checked) if d.is_error]


def prepare_update(
    engine: StackEngine,
    stack: StackRecord,
    source: RequestInputs | UpdateFiles,
    options: LoadOptions,
    *,
    existing: bool,
    clear: Collection[str] = (),
    changes: UpdateChanges | None = None,
    template_file: str | None = None,
    base_dir: str | None = None,
    absolute_paths: bool = False,
) -> PreparedUpdate:
    """Load, check and complete the update of ``stack``; nothing is written.

    ``source`` is a request's data (the API, or a package or blueprint the CLI read) or
    paths on disk. ``options`` gives the reading limits; every parameter is required and
    the stack's name, id and project are known, as they are when the update runs.
    A change ``changes`` leaves out keeps the stack's own value, but tags: a PUT
    (``existing`` false) without tags clears them, as Heat's ``update_stack``.
    ``template_file`` is what the stack records as its template file from now on (None:
    the one it has); ``base_dir`` is where a provider or ``get_file`` path is read from
    (None: only the files map). ``absolute_paths`` stores provider template paths so they
    resolve from anywhere, which only a definition read from the caller's disk needs (a
    package's registry names its members, and a server never reads its own disk).
    """
    changes = changes or UpdateChanges()
    options = replace(
        options,
        require_all_parameters=True,
        stack_name=stack.name,
        project_id=options.project_id or stack.project,
        stack_id=stack.id,
    )
    current = CurrentInputs(
        stack.template, stack.environment, stack.files, stack.parameters, stack.template_file
    )
    if isinstance(source, UpdateFiles):
        result, parameters = load_update_definition(
            source.template,
            source.environments,
            source.parameters,
            options,
            current=current,
            existing=existing,
            clear=clear,
        )
    else:
        result, parameters = load_update_request(
            source, options, current=current, existing=existing, clear=clear
        )
    definition = result.definition
    if not result.ok or definition is None:
        return PreparedUpdate(None, result.diagnostics)
    checked = engine.check(definition, base_dir)
    if any(d.is_error for d in checked):
        return PreparedUpdate(None, result.diagnostics, checked)
    request = UpdateRequest(
        definition=definition,
        template=plain(definition.template.document.data) or {},
        environment=definition.environment.to_data(absolute_paths=absolute_paths),
        parameters=parameters,
        template_file=template_file if template_file is not None else stack.template_file,
        timeout_mins=(
            changes.timeout_mins if changes.timeout_mins is not None else stack.timeout_mins
        ),
        disable_rollback=(
            stack.disable_rollback if changes.disable_rollback is None else changes.disable_rollback
        ),
        # a PATCH (``existing``) keeps the tags a request leaves out, a PUT clears them
        # (Heat's update_stack)
        tags=(stack.tags if existing else ()) if changes.tags is None else changes.tags,
    )
    return PreparedUpdate(request, result.diagnostics, checked)
