"""The session of a ``stoker stack`` command: its store, engine settings, resource types
and cloud, each opened on first use, and the stack it names found in its project.

Every command of the group gets one (``stack``'s callback makes it; Click passes it on).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from stoker.cli.progress import Progress, StackInfo
from stoker.engine import EngineSettings, EventRecord, StackRecord, Store, child_stacks
from stoker.errors import Rejected, StackNotFound
from stoker.store import database_url

# The engine, the resource types and the cloud are imported on first use: ``stack list``
# reads rows and needs none of them.
if TYPE_CHECKING:
    from stoker.cli.blueprint import BlueprintCloud
    from stoker.cloud import Cloud
    from stoker.definition import StackDefinition, TemplateReads
    from stoker.engine import StackEngine
    from stoker.resources import ResourceTypeRegistry


class Session:
    """What every stack command needs: the store, the engine settings, the registry, and
    the cloud.

    The cloud, in order: ``--os-cloud`` (before or after the subcommand) or ``OS_CLOUD``;
    the cloud the stack was created in (`StackRecord.cloud`, once a command has found the
    stack it works on, `get_stack`); the ``OS_*`` variables. Once opened, the cloud also
    checks custom constraints and answers ``Fn::GetAZs`` (`stoker.cli.clouds`) for the
    rest of the command (``context``)."""

    def __init__(
        self,
        db: str | None,
        settings: EngineSettings,
        os_cloud: str | None = None,
        context: click.Context | None = None,
    ) -> None:
        self.url = database_url(db)
        self.settings = settings
        self._store: Store | None = None
        self._registry: ResourceTypeRegistry | None = None
        self._os_cloud = os_cloud
        self._stored_cloud: str | None = None
        self._cloud: Cloud | None = None
        self._context = context

    @property
    def os_cloud(self) -> str | None:
        """The cloud named by ``--os-cloud`` or ``OS_CLOUD``, else the one the stack was
        created in (None: the OS_* variables, if any)."""
        return self._os_cloud or self._stored_cloud

    def choose(self, name: str) -> None:
        """``--os-cloud NAME`` given after the subcommand: it wins over the group's."""
        if self._cloud is None:
            self._os_cloud = name

    @property
    def cloud_name(self) -> str | None:
        """The clouds.yaml entry in use, to keep with a new stack (None: no cloud, or the
        OS_* variables, which have no name)."""
        cloud = self.cloud
        return cloud.choice.name if cloud is not None else None

    @property
    def cloud(self) -> Cloud | None:
        """The chosen cloud, opened on first use."""
        if self._cloud is None:
            from stoker.cloud.choice import choose_cloud

            choice = choose_cloud(self.os_cloud)
            if choice is not None:
                from stoker.cloud import Cloud

                self._cloud = Cloud(choice, workers=max(8, self.settings.concurrency))
                if self._context is not None:
                    from stoker.cli.clouds import check_against

                    check_against(self._context, self._cloud)
        return self._cloud

    def get_stack(self, name: str) -> StackRecord | None:
        """The stack ``name`` (or id) of the session's project; the cloud it was created
        in becomes the session's unless one is chosen."""
        record = self.store.get_stack(name, self.settings.project)
        if record is not None and record.cloud and self._cloud is None:
            self._stored_cloud = record.cloud
        return record

    def refuse_without_cloud(self, record: StackRecord, doing: str) -> None:
        """Refuse ``doing`` (before anything is done) when the stack, or a stack nested in
        it, has resources of the OpenStack types and no cloud is chosen: as create refuses
        them, saying how to choose one."""
        if self.cloud is not None:
            return
        from stoker.cloud.choice import HOW_TO_CHOOSE
        from stoker.resolution import cloud_type_names

        kinds = cloud_type_names()
        found: list[str] = []
        stacks = [record]
        while stacks:
            current = stacks.pop()
            resources = self.store.resources(current.id)
            found.extend(f"{r.name} ({r.type})" for r in resources if r.type in kinds)
            stacks.extend(child_stacks(self.store, self.settings.project, resources))
        if found:
            shown = ", ".join(found[:3]) + (", ..." if len(found) > 3 else "")
            raise Rejected(
                f"{record.name}: not {doing}: its resources {shown} are in an OpenStack "
                f"cloud and none is chosen: {HOW_TO_CHOOSE}"
            )

    def close(self) -> None:
        """Close the store if it was opened (its connections, a SQLite file's WAL)."""
        if self._store is not None:
            store, self._store = self._store, None
            close = getattr(store, "close", None)  # `SqlStore.close` (not in `Store`)
            if close is not None:
                close()

    @property
    def store(self) -> Store:
        if self._store is None:
            from stoker.store import open_store

            self._store = open_store(self.url)
        return self._store

    @property
    def registry(self) -> ResourceTypeRegistry:
        if self._registry is None:
            from stoker.resources import default_registry

            self._registry = default_registry()
            if self.cloud is not None:
                from stoker.resources import register_openstack

                register_openstack(self._registry, self.cloud)
        return self._registry

    def open_cloud_for(self, definition: StackDefinition) -> None:
        """Open (and authenticate to) the chosen cloud now if the stack uses a cloud type:
        a cloud that cannot be used is refused before the stack is written, not found
        out by its first resource."""
        if self.cloud is None:
            return
        from stoker.resolution import cloud_type_names

        types = {resource.type for resource in definition.template.resources.values()}
        if types & cloud_type_names():
            self.cloud.connection()

    def stack_info(self, stack_id: str) -> StackInfo | None:
        """A stack's parent and size, for progress (which meets nested stacks by id)."""
        found = self.store.stack_summary(stack_id, self.settings.project)
        if found is None:
            return None
        # a count, not the rows: the top stack of a 10,000-resource create is looked up
        # too, and reading (and decoding) its rows was a quarter of a second
        count = self.store.count_resources(found.id)
        return StackInfo(found.parent_id, found.parent_resource, count)

    def engine(self, listener: Callable[[EventRecord], None] | None = None) -> StackEngine:
        from stoker.engine import StackEngine

        engine = StackEngine(self.store, self.registry, self.settings, listener=listener)
        if isinstance(listener, Progress):
            # it places each stack the engine writes as the engine tells it, rather than
            # reading it back (`stack_info`) when its first event arrives
            listener.follow(engine)
        return engine


def blueprint_of(
    session: Session,
    template_file: str,
    libraries: tuple[str, ...] = (),
    reads: TemplateReads | None = None,
) -> BlueprintCloud | None:
    """For a template file that is a blueprint (`stack create` and `stack update` compile it
    first): the cloud that answers its requirements, and the session's store and project
    for the stack resources its fulfillments name. ``reads``: where the command's load
    takes the template file from (`stoker.cli.blueprint.looks_like_blueprint`)."""
    from stoker.cli.blueprint import BlueprintCloud, lazy_lookup, looks_like_blueprint

    if not looks_like_blueprint(template_file, reads):
        return None
    existing = lazy_lookup(session.engine, session.settings.project)
    return BlueprintCloud(session.os_cloud, existing, libraries)


def find_stack(session: Session, name: str) -> StackRecord:
    record = session.get_stack(name)
    if record is None:
        raise StackNotFound(f"The Stack ({name}) could not be found.")
    return record
