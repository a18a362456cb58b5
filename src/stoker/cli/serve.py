"""``stoker serve``: Heat's REST API v1 (`stoker.api`) under uvicorn."""

from __future__ import annotations

import click

from stoker.errors import UsageError


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8004,
    show_default=True,
    help="Port to listen on (Heat's is 8004).",
)
@click.option(
    "--auth",
    type=click.Choice(["noauth", "keystone"]),
    default="noauth",
    show_default=True,
    help="noauth: any token, the project from the URL. keystone: tokens validated "
    "against Keystone (--auth-url), the project and roles checked as Heat's policy.",
)
@click.option(
    "--auth-url",
    envvar="OS_AUTH_URL",
    default=None,
    help="Keystone's URL for --auth keystone (default: $OS_AUTH_URL).",
)
@click.option(
    "--token-cache-seconds",
    type=click.FloatRange(min=0),
    default=60.0,
    show_default=True,
    help="How long a validated token is trusted before Keystone is asked again.",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Server processes; they share the work through the database's leases.",
)
@click.option(
    "--lease-seconds",
    type=click.FloatRange(min=0.1),
    default=30.0,
    show_default=True,
    help="How long an operation's claim lives without a heartbeat; dead servers' "
    "operations are taken over after it.",
)
@click.option(
    "--max-resources-per-stack",
    type=int,
    default=1000,
    show_default=True,
    help="Heat's max_resources_per_stack (-1: no limit).",
)
@click.option(
    "--max-stacks-per-project",
    type=click.IntRange(min=1),
    default=512,
    show_default=True,
    help="Heat's max_stacks_per_project.",
)
@click.pass_obj
def serve(
    obj: dict[str, object],
    host: str,
    port: int,
    auth: str,
    auth_url: str | None,
    token_cache_seconds: float,
    workers: int,
    lease_seconds: float,
    max_resources_per_stack: int,
    max_stacks_per_project: int,
) -> None:
    """Serve Heat's REST API v1 (http://HOST:PORT/v1/{project_id})."""
    import os

    import uvicorn

    from stoker.engine.heap import long_running_process
    from stoker.store.urls import database_url

    long_running_process()  # a server: the collector must see what operations leave

    if auth == "keystone":
        if not auth_url:
            raise UsageError("--auth keystone needs --auth-url (or OS_AUTH_URL)")
        os.environ["STOKER_SERVE_AUTH_URL"] = auth_url
        os.environ["STOKER_SERVE_TOKEN_TTL"] = str(token_cache_seconds)
    else:
        os.environ.pop("STOKER_SERVE_AUTH_URL", None)
    if auth == "noauth" and host not in ("127.0.0.1", "localhost", "::1"):
        click.echo(
            f"warning: --auth noauth on {host}: anyone who can reach it acts on every project",
            err=True,
        )
    db = obj.get("db") if isinstance(obj, dict) else None
    url = database_url(db if isinstance(db, str) else None)
    os.environ["STOKER_SERVE_DB"] = url
    os.environ["STOKER_SERVE_LEASE_SECONDS"] = str(lease_seconds)
    os.environ["STOKER_SERVE_MAX_RESOURCES"] = str(max_resources_per_stack)
    os.environ["STOKER_SERVE_MAX_STACKS"] = str(max_stacks_per_project)
    _migrate(url)
    os.environ["STOKER_SERVE_MIGRATED"] = "1"
    uvicorn.run(
        "stoker.api.server:app",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level="warning",
    )


def _migrate(url: str) -> None:
    """Create or upgrade the schema once, before any worker starts, in a short-lived
    process: the server then opens the store without loading Alembic."""
    import subprocess
    import sys

    probe = "import sys\nfrom stoker.store import open_store\nopen_store(sys.argv[1])"
    done = subprocess.run(
        [sys.executable, "-c", probe, url], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        from stoker.store import open_store

        open_store(url)  # raises the store's own one-line error
        raise UsageError(done.stderr.strip().splitlines()[-1] if done.stderr else url)
