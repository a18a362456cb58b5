"""Software configs and deployments as Heat's API keeps them (``/software_configs``,
``/software_deployments``), per project. A config's script and a deployment's input
and output values may carry secrets, so they are sealed at rest like a stack's hidden
values (`stoker.store.secrets`)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any

from sqlalchemy import delete, insert, select, update

from stoker.store.models import SoftwareConfig as ConfigRow
from stoker.store.models import SoftwareDeployment as DeploymentRow
from stoker.store.store import SqlStore

Table = type[ConfigRow] | type[DeploymentRow]


@dataclass(frozen=True, slots=True)
class ConfigRecord:
    id: str
    project: str
    name: str | None
    group: str
    config: dict[str, Any]  # config, inputs, outputs, options
    created_at: datetime


@dataclass(frozen=True, slots=True)
class DeploymentRecord:
    id: str
    project: str
    config_id: str
    server_id: str
    action: str
    status: str
    status_reason: str
    created_at: datetime
    input_values: dict[str, Any] = field(default_factory=dict)
    output_values: dict[str, Any] = field(default_factory=dict)
    updated_at: datetime | None = None


class SoftwareStore:
    """The two tables, over an open `SqlStore` (its connections and its sealer)."""

    def __init__(self, store: SqlStore) -> None:
        self.store = store

    # ------------------------------------------------------------------ either table
    def _row(self, table: Table, project: str, id: str) -> Any:
        """The project's row ``id`` of ``table``, None when it has none."""
        query = select(table).where(table.id == id, table.project == project)
        with self.store._sqlalchemy_reading() as connection:
            return connection.execute(query).first()

    def _rows(self, table: Table, project: str, *where: Any) -> list[Any]:
        """The project's rows of ``table`` (narrowed by ``where``), oldest first."""
        query = select(table).where(table.project == project, *where)
        query = query.order_by(table.created_at, table.id)
        with self.store._sqlalchemy_reading() as connection:
            return list(connection.execute(query).all())

    def _delete(self, table: Table, project: str, id: str) -> bool:
        with self.store._sqlalchemy_writing() as connection:
            gone = connection.execute(delete(table).where(table.id == id, table.project == project))
        return bool(gone.rowcount)

    # ------------------------------------------------------------------ configs
    def add_config(self, config: ConfigRecord) -> None:
        values = _values(config, config=self.store._sealer.seal(config.config))
        with self.store._sqlalchemy_writing() as connection:
            connection.execute(insert(ConfigRow).values(**values))

    def config(self, project: str, config_id: str) -> ConfigRecord | None:
        row = self._row(ConfigRow, project, config_id)
        return self._config(row) if row is not None else None

    def configs(self, project: str) -> list[ConfigRecord]:
        return [self._config(row) for row in self._rows(ConfigRow, project)]

    def delete_config(self, project: str, config_id: str) -> bool:
        return self._delete(ConfigRow, project, config_id)

    def _config(self, row: Any) -> ConfigRecord:
        return ConfigRecord(**{**row._asdict(), "config": self.store._sealer.unseal(row.config)})

    # ------------------------------------------------------------------ deployments
    def put_deployment(self, deployment: DeploymentRecord) -> None:
        """Insert or replace (by id) a deployment."""
        seal = self.store._sealer.seal
        values = _values(
            deployment,
            input_values=seal(deployment.input_values),
            output_values=seal(deployment.output_values),
        )
        del values["id"]
        with self.store._sqlalchemy_writing() as connection:
            changed = connection.execute(
                update(DeploymentRow).where(DeploymentRow.id == deployment.id).values(**values)
            )
            if changed.rowcount == 0:
                connection.execute(insert(DeploymentRow).values(id=deployment.id, **values))

    def deployment(self, project: str, deployment_id: str) -> DeploymentRecord | None:
        row = self._row(DeploymentRow, project, deployment_id)
        return self._deployment(row) if row is not None else None

    def deployments(self, project: str, server_id: str | None = None) -> list[DeploymentRecord]:
        where = () if server_id is None else (DeploymentRow.server_id == server_id,)
        return [self._deployment(row) for row in self._rows(DeploymentRow, project, *where)]

    def delete_deployment(self, project: str, deployment_id: str) -> bool:
        return self._delete(DeploymentRow, project, deployment_id)

    def _deployment(self, row: Any) -> DeploymentRecord:
        unseal = self.store._sealer.unseal
        return DeploymentRecord(
            **{
                **row._asdict(),
                "input_values": unseal(row.input_values) or {},
                "output_values": unseal(row.output_values) or {},
            }
        )


def _values(record: ConfigRecord | DeploymentRecord, **sealed: Any) -> dict[str, Any]:
    """A record's row values (its fields are the table's columns), ``sealed`` in place of
    the values the row keeps sealed."""
    return {item.name: getattr(record, item.name) for item in fields(record)} | sealed
