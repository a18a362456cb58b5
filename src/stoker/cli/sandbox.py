"""``stoker sandbox``: run the local OpenStack, and point clients at it.

Starlette and uvicorn are imported only when ``serve`` runs (``stoker --help`` stays fast).
"""

from __future__ import annotations

from pathlib import Path

import click

from stoker.cli.listening import listen, serve_on
from stoker.engine import long_running_process

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8788
DEFAULT_PASSWORD = "sandbox"


@click.group()
def sandbox() -> None:
    """Run a local OpenStack (Keystone, Nova, Glance ...) that the real clients accept.

    Start it with ``stoker sandbox serve``, write its clouds.yaml entry with ``stoker
    sandbox clouds-yaml > clouds.yaml``, then ``openstack --os-cloud sandbox server list``.
    """


@sandbox.command()
@click.option("--host", default=DEFAULT_HOST, show_default=True, help="Address to listen on.")
@click.option("--port", default=DEFAULT_PORT, show_default=True, type=click.IntRange(0, 65535))
@click.option(
    "--db",
    "db_url",
    metavar="URL",
    help="The sandbox's database (SQLAlchemy URL or SQLite file path; default: sandbox.db "
    "in stoker's data directory; sqlite:// keeps it in memory).",
)
@click.option(
    "--build-delay",
    default=1.0,
    show_default=True,
    type=click.FloatRange(0, 3600),
    help="Seconds a server stays in BUILD before it is ACTIVE.",
)
@click.option(
    "--password",
    default=DEFAULT_PASSWORD,
    show_default=True,
    help="Password of the seeded admin and demo users (used when the database is new).",
)
@click.option(
    "--faults",
    "faults_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A fault plan (YAML or JSON: latency, error rates, quotas, servers that fail); "
    "see docs/sandbox.md.",
)
@click.option(
    "--import-allow",
    "import_allow",
    metavar="HOST",
    multiple=True,
    help="A host Glance's web-download import may fetch images from (repeat it for "
    "more; none by default).",
)
@click.option("--access-log/--no-access-log", default=True, show_default=True)
def serve(
    host: str,
    port: int,
    db_url: str | None,
    build_delay: float,
    password: str,
    faults_file: Path | None,
    import_allow: tuple[str, ...],
    access_log: bool,
) -> None:
    """Serve the sandbox until interrupted."""
    import uvicorn

    from stoker.sandbox.app import KEEP_ALIVE, create_app
    from stoker.sandbox.faults import load_faults
    from stoker.sandbox.service import SandboxConfig
    from stoker.sandbox.store import default_url

    long_running_process()  # a server: the collector must see what requests leave
    faults = load_faults(faults_file) if faults_file is not None else None
    config = SandboxConfig(
        build_delay=build_delay,
        password=password,
        faults=faults,
        import_allow=tuple(host.strip().lower() for host in import_allow),
    )
    app = create_app(db_url or default_url(), config)
    listener, base = listen(host, port)
    click.echo(f"stoker sandbox: {base}/identity/v3 (Ctrl-C stops it)", err=True)
    server_config = uvicorn.Config(
        app,
        access_log=access_log,
        log_level="info",
        lifespan="off",
        timeout_keep_alive=KEEP_ALIVE,
    )
    serve_on(listener, server_config)


@sandbox.command("clouds-yaml")
@click.option("--host", default=DEFAULT_HOST, show_default=True)
@click.option("--port", default=DEFAULT_PORT, show_default=True, type=click.IntRange(1, 65535))
@click.option("--user", default="admin", show_default=True, help="admin or demo (or one made).")
@click.option("--project", help="The project to scope to (default: the user's).")
@click.option("--password", default=DEFAULT_PASSWORD, show_default=True)
def clouds_yaml_command(
    host: str, port: int, user: str, project: str | None, password: str
) -> None:
    """Print a clouds.yaml entry named ``sandbox`` for a sandbox at HOST:PORT."""
    from stoker.sandbox.clouds import clouds_yaml

    click.echo(clouds_yaml(host, port, user=user, project=project, password=password), nl=False)
