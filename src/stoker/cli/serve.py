"""``stoker serve``: Heat's REST API v1 (`stoker.api`) under uvicorn."""

from __future__ import annotations

import os
import subprocess
import sys

import click

from stoker.cli.listening import log_level_option
from stoker.cli.options import engine_options
from stoker.engine import long_running_process
from stoker.errors import UsageError

#: seconds an idle keep-alive connection stays open. uvicorn's default (5) is
#: python-heatclient's poll period for `--wait`: the client reused its pooled connection
#: just as the server closed it and failed with "Remote end closed connection without
#: response" (seen in CI). Heat's own API keeps idle client sockets for 900 s.
KEEP_ALIVE = 75


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
    help="Keystone's URL for --auth keystone (default: $OS_AUTH_URL).",
)
@click.option(
    "--policy-file",
    type=click.Path(exists=True, dir_okay=False),
    help="With --auth keystone: a policy.yaml (oslo.policy format) whose rules override "
    "Heat's defaults of the same names (stacks:create, actions:check, ...).",
)
@click.option(
    "--service-cloud",
    metavar="NAME",
    help="With --auth keystone: validate tokens as the service user of this clouds.yaml "
    "entry (keystonemiddleware's [keystone_authtoken]), not by the token itself.",
)
@click.option("--service-user", help="The service user's name (see --service-cloud).")
@click.option(
    "--service-password",
    envvar="STOKER_SERVICE_PASSWORD",
    help="The service user's password (default: $STOKER_SERVICE_PASSWORD).",
)
@click.option("--service-project", help="The service user's project.")
@click.option(
    "--service-domain",
    default="Default",
    show_default=True,
    help="The domain of the service user and of its project.",
)
@click.option(
    "--os-cloud",
    envvar="OS_CLOUD",
    metavar="NAME",
    help="The cloud the stacks' OpenStack resources are made in, and Fn::GetAZs asks: an "
    "entry of clouds.yaml (default: $OS_CLOUD; without either, the OS_* variables "
    "describe the cloud, as for stoker stack).",
)
@click.option(
    "--cloud-credentials",
    type=click.Choice(["caller", "server"]),
    help="Whose identity the stacks' cloud work uses. caller (the default with --auth "
    "keystone): each request's caller's token, and for work outliving the request a "
    "Keystone trust from the stack's owner to the service user (--service-cloud). "
    "server (the default with --auth noauth): the --os-cloud credentials, for one "
    "project only.",
)
@click.option(
    "--allow-shared-credentials",
    is_flag=True,
    help="Let --auth keystone run with --cloud-credentials server: every project's "
    "stacks then act in the cloud as the server's one identity.",
)
@click.option(
    "--trusts-delegated-roles",
    metavar="ROLE[,ROLE...]",
    help="The roles a stack's owner delegates in its trust (Heat's "
    "trusts_delegated_roles; default: all the owner's roles on the project).",
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
@engine_options("lease_seconds", "max_resources_per_stack", "max_stacks_per_project")
@click.option(
    "--public-url",
    metavar="URL",
    help="The URL clients reach this server at (behind a proxy, say), which every link "
    "and redirect starts with (Heat's public_endpoint; default: the listening address).",
)
@log_level_option
@click.pass_obj
def serve(
    obj: dict[str, object],
    host: str,
    port: int,
    auth: str,
    auth_url: str | None,
    policy_file: str | None,
    service_cloud: str | None,
    service_user: str | None,
    service_password: str | None,
    service_project: str | None,
    service_domain: str,
    os_cloud: str | None,
    cloud_credentials: str | None,
    allow_shared_credentials: bool,
    trusts_delegated_roles: str | None,
    token_cache_seconds: float,
    workers: int,
    lease_seconds: float,
    max_resources_per_stack: int,
    max_stacks_per_project: int,
    public_url: str | None,
    log_level: str,
) -> None:
    """Serve Heat's REST API v1 (http://HOST:PORT/v1/{project_id}).

    Prints a start line (the URL, the auth mode, the store, the workers) and, at --log-level
    info, a line per request, as heat-api does.
    """
    import uvicorn

    from stoker.api.links import public_url as checked_url
    from stoker.api.serve_settings import PASSWORD_VARIABLE, ServeSettings
    from stoker.cli import listening
    from stoker.store import database_url, redacted

    long_running_process()  # a server: the collector must see what operations leave

    # everything is checked before the environment the workers read is written
    if auth == "keystone":
        _keystone(auth_url, service_cloud, service_user, service_password, service_project)
        if policy_file is not None:
            from stoker.api.policy import load_policy

            load_policy(policy_file)  # a broken file stops here, with its line
    elif policy_file is not None or service_cloud is not None or service_user is not None:
        raise UsageError("--policy-file and --service-* apply to --auth keystone only")
    _check_cloud(os_cloud)
    mode = _credentials_mode(
        auth,
        cloud_credentials,
        allow_shared_credentials,
        has_service=service_cloud is not None or service_user is not None,
        os_cloud=os_cloud,
    )
    if auth == "keystone" and service_password is not None:
        os.environ[PASSWORD_VARIABLE] = service_password
    if auth == "noauth" and host not in ("127.0.0.1", "localhost", "::1"):
        click.echo(
            f"warning: --auth noauth on {host}: anyone who can reach it acts on every project",
            err=True,
        )
    db = obj.get("db") if isinstance(obj, dict) else None
    url = database_url(db if isinstance(db, str) else None)
    _migrate(url)
    keystone = auth == "keystone"
    ServeSettings(
        db=url,
        migrated=True,
        lease_seconds=lease_seconds,
        max_resources_per_stack=max_resources_per_stack,
        max_stacks_per_project=max_stacks_per_project,
        auth=auth,
        auth_url=auth_url if keystone else None,
        token_ttl=token_cache_seconds,
        service_cloud=service_cloud if keystone else None,
        service_user=service_user if keystone else None,
        service_project=service_project if keystone else None,
        service_domain=service_domain,
        policy_file=os.path.abspath(policy_file) if keystone and policy_file else None,
        os_cloud=os_cloud or None,
        cloud_credentials=mode,
        delegated_roles=tuple(r for r in (trusts_delegated_roles or "").split(",") if r),
        public_url=checked_url(public_url) if public_url is not None else None,
    ).export()
    listener, base = listening.listen(host, port)
    plural = "s" if workers != 1 else ""
    store = redacted(url)  # password masked
    click.echo(
        f"stoker serve: {base}/v1/{{project_id}} (auth {auth}, store {store}, "
        f"{workers} worker{plural}; Ctrl-C stops it)",
        err=True,
    )
    config = uvicorn.Config(
        "stoker.api.server:app",
        factory=True,
        workers=workers,
        log_level=log_level,
        access_log=True,
        timeout_keep_alive=KEEP_ALIVE,
    )
    listening.serve_on(listener, config)


def _keystone(
    auth_url: str | None,
    cloud: str | None,
    user: str | None,
    password: str | None,
    project: str | None,
) -> None:
    """Refuse a Keystone setup that cannot work before serving anything: no URL, half
    the service credentials, or a service user Keystone does not let in."""
    if cloud is None and user is None:
        if not auth_url:
            raise UsageError("--auth keystone needs --auth-url (or OS_AUTH_URL)")
        return
    from keystoneauth1.exceptions import ClientException

    from stoker.api.auth import ServiceCredentials, service_session

    if cloud is None and not (password and project):
        raise UsageError("--service-user needs --service-password and --service-project")
    credentials = ServiceCredentials(
        username=user or "", password=password or "", project_name=project or "", cloud=cloud
    )
    url, session = service_session(auth_url, credentials)
    try:
        session.get_token()
    except ClientException as error:
        raise UsageError(f"cannot log in to {url} as the service user: {error}") from None


def _credentials_mode(
    auth: str, asked: str | None, allow_shared: bool, *, has_service: bool, os_cloud: str | None
) -> str:
    """Whose identity acts in the cloud (docs/api.md, "Credentials"): the caller's with
    Keystone, the server's own otherwise; the server's own with Keystone only when the
    operator says every project may share it."""
    mode = asked or ("caller" if auth == "keystone" else "server")
    if mode == "caller" and auth != "keystone":
        raise UsageError(
            "--cloud-credentials caller needs --auth keystone: the callers' tokens are "
            "what acts in the cloud"
        )
    if mode == "server" and auth == "keystone" and not allow_shared:
        raise UsageError(
            "--cloud-credentials server with --auth keystone makes every project's cloud "
            "work act as the server's own identity (a user of one project could reach "
            "another's resources); give --allow-shared-credentials if this server serves "
            "a single project"
        )
    if mode == "caller" and not has_service:
        from stoker.cloud import choose_cloud

        if choose_cloud(os_cloud) is not None:  # no cloud: nothing acts in one
            raise UsageError(
                "--cloud-credentials caller needs the service user the stacks' owners "
                "delegate to (their Keystone trusts): --service-cloud NAME or "
                "--service-user with --service-password and --service-project"
            )
    return mode


def _check_cloud(option: str | None) -> None:
    """A named cloud clouds.yaml lacks is a usage error now, not every stack's failure."""
    from stoker.cloud import choose_cloud

    choice = choose_cloud(option)
    if choice is None or choice.name is None:
        return
    from openstack import config as os_config
    from openstack import exceptions as os_exceptions

    try:
        os_config.OpenStackConfig().get_one(cloud=choice.name)
    except os_exceptions.OpenStackCloudException as error:
        raise UsageError(f"--os-cloud {choice.name}: {error}") from None


def _migrate(url: str) -> None:
    """Create or upgrade the schema once, before any worker starts, in a short-lived
    process: the server then opens the store without loading Alembic."""
    probe = "import sys\nfrom stoker.store import open_store\nopen_store(sys.argv[1])"
    done = subprocess.run(
        [sys.executable, "-c", probe, url], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        from stoker.store import open_store

        open_store(url)  # raises the store's own one-line error
        raise UsageError(done.stderr.strip().splitlines()[-1] if done.stderr else url)
