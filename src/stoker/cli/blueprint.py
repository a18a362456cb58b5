"""``stoker blueprint explain|compile|library``: blueprints (seed 004) read, resolved
against the library of provider templates, and compiled to HOT."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

from stoker.cli import clouds
from stoker.cli.options import environments_option
from stoker.cli.output import output_format, report
from stoker.engine import EngineSettings
from stoker.errors import Rejected
from stoker.errors import StokerError as StokerErrorBase

if TYPE_CHECKING:
    from stoker.blueprint.existing import ExistingLookup, ExistingResource, StackReference
    from stoker.definition import TemplateReads
    from stoker.engine import StackEngine


@dataclass(frozen=True, slots=True)
class BlueprintCloud:
    """A template file that is a blueprint, the cloud that answers its requirements, and
    where the stack resources its fulfillments may name are found (an
    `stoker.blueprint.existing.ExistingLookup`)."""

    os_cloud: str | None
    existing: ExistingLookup | None = None
    #: ``--library`` directories, after the built-in library
    libraries: tuple[str, ...] = ()

    def request(self, path: str, environments: tuple[str, ...], values: dict[str, str]) -> Any:
        """The blueprint at ``path`` compiled as a request's inputs (`blueprint_request`),
        as `stack create` and `stack update` load it."""
        return blueprint_request(
            path, environments, values, self.os_cloud, self.libraries, existing=self.existing
        )


def lazy_lookup(engine: Callable[[], StackEngine], project: str) -> ExistingLookup:
    """The stack resources a fulfillment names, found by ``engine()``'s store in
    ``project`` (`stoker.blueprint.existing.engine_lookup`); the engine is made when a
    fulfillment first names one, so a blueprint that names none never touches the store."""
    from stoker.blueprint.existing import engine_lookup

    made: list[ExistingLookup] = []

    def lookup(reference: StackReference) -> ExistingResource | str:
        if not made:
            made.append(engine_lookup(engine(), project))
        return made[0](reference)

    return lookup


def context_lookup(os_cloud: str | None) -> ExistingLookup:
    """`lazy_lookup` in the store of the global ``--db`` (or ``$STOKER_DB_URL``) and
    ``--project`` of this command."""
    obj = click.get_current_context().find_root().obj
    obj = obj if isinstance(obj, dict) else {}
    project = obj.get("project") or "default"

    def engine() -> StackEngine:
        # here, not at the top: the session's store and engine settings are loaded only
        # when a blueprint names a stack resource
        from stoker.cli.stack_session import Session

        return Session(obj.get("db"), EngineSettings(project=project), os_cloud).engine()

    return lazy_lookup(engine, project)


library_option = click.option(
    "--library",
    "libraries",
    multiple=True,
    type=click.Path(exists=True, file_okay=False),
    metavar="DIR",
    help="A directory of blueprint library templates, searched after the built-in "
    "library; repeat it, later ones win over earlier ones for the same implementation "
    "name (for a blueprint only).",
)
os_cloud_option = clouds.os_cloud_option(
    "The cloud that answers minRam/os/...: an entry of clouds.yaml (default: "
    "$OS_CLOUD; without either, the OS_* variables describe the cloud)."
)


def compile_file(
    path: str,
    environments: tuple[str, ...],
    libraries: tuple[str, ...],
    os_cloud: str | None,
    existing: ExistingLookup | None = None,
) -> Any:
    """Compile the blueprint at ``path``; report findings; raise `Rejected` on errors."""
    from stoker.blueprint.build import compile_source, file_source, parameter_defaults
    from stoker.blueprint.cloudfacts import CloudFacts
    from stoker.cloud import HOW_TO_CHOOSE

    source = file_source(path)
    facts = CloudFacts.from_cloud(os_cloud)
    analysis, compiled = compile_source(
        source,
        facts,
        libraries=libraries,
        defaults=parameter_defaults(environments),
        how_to_choose=HOW_TO_CHOOSE,
        existing=existing,
    )
    report(analysis.diagnostics, path)
    if compiled is None or not analysis.ok or not compiled.ok:
        errors = sum(1 for d in analysis.diagnostics if d.is_error)
        raise Rejected(f"{errors} error{'s' if errors != 1 else ''}: the blueprint was rejected")
    return source, compiled


@click.group()
def blueprint() -> None:
    """Explain and compile blueprints (components and requirements) to HOT."""


@blueprint.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@library_option
@environments_option
@os_cloud_option
@output_format(("text", "json"), "text")
def explain(
    file: str,
    libraries: tuple[str, ...],
    environments: tuple[str, ...],
    os_cloud: str | None,
    fmt: str,
) -> None:
    """Show each component of FILE (a blueprint or a ZIP package) with its type and how it
    was chosen, and each requirement with what fulfils it, why, and the candidates
    rejected. With a cloud chosen, also the flavors, images and zones it answers. A
    fulfillment naming a stack resource (stack:NAME/RES) is looked up in --db."""
    from stoker.blueprint.build import analyse, compile_source, file_source, parameter_defaults
    from stoker.blueprint.cloudfacts import CloudFacts
    from stoker.blueprint.explain import explain as explained
    from stoker.blueprint.explain import render

    source = file_source(file)
    facts = CloudFacts.from_cloud(os_cloud)
    existing = context_lookup(os_cloud)
    compiled = None
    if facts is not None:
        analysis, compiled = compile_source(
            source,
            facts,
            libraries=libraries,
            defaults=parameter_defaults(environments),
            existing=existing,
        )
    else:
        analysis = analyse(source, libraries, existing)
    report(analysis.diagnostics, file)
    if analysis.decisions is None:
        raise Rejected("the blueprint cannot be read")
    data = explained(analysis.decisions, compiled)
    click.echo(json.dumps(data, indent=2) if fmt == "json" else render(data), nl=fmt == "json")
    if not analysis.ok:
        raise Rejected("some requirements cannot be fulfilled (see above)")


@blueprint.command("compile")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@environments_option
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False),
    help="Write the template here, and beside it OUTPUT's name with .env.yaml (the "
    "environment) and the library templates it uses; without it the template is printed.",
)
@library_option
@os_cloud_option
def compile_command(
    file: str,
    environments: tuple[str, ...],
    output: str | None,
    libraries: tuple[str, ...],
    os_cloud: str | None,
) -> None:
    """Compile FILE (a blueprint, or a ZIP with heat.yaml or blueprint.yaml) to a HOT
    template, an environment and the library templates: `stoker template validate OUTPUT
    -e OUTPUT.env.yaml` accepts them. Choosing flavors and images needs a cloud; a
    fulfillment naming a stack resource (stack:NAME/RES) is looked up in --db."""
    _, compiled = compile_file(file, environments, libraries, os_cloud, context_lookup(os_cloud))
    if output is None:
        click.echo(compiled.text, nl=False)
        return
    directory = os.path.dirname(os.path.abspath(output))
    stem = os.path.splitext(output)[0]
    written = [output, f"{stem}.env.yaml"]
    os.makedirs(directory, exist_ok=True)  # -o out/stack.yaml makes out/, as -o means it
    with open(output, "w", encoding="utf-8") as handle:
        handle.write(compiled.text)
    with open(written[1], "w", encoding="utf-8") as handle:
        handle.write(compiled.environment_text())
    for name, text in compiled.files.items():
        target = os.path.join(directory, name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="utf-8") as handle:
            handle.write(text)
        written.append(os.path.join(os.path.dirname(output), name))
    click.echo("wrote " + ", ".join(written), err=True)


@blueprint.command("library")
@library_option
@output_format(("text", "json"), "text")
def library_command(libraries: tuple[str, ...], fmt: str) -> None:
    """List the component types of the library: each template's implementation name, the
    component types it implements, the requirements it understands and what it offers."""
    from stoker.blueprint.library import describe_library, load_library

    library, found = load_library(list(libraries))
    report(found)
    rows = describe_library(library)
    if fmt == "json":
        click.echo(json.dumps(rows, indent=2))
        return
    for row in rows:
        click.echo(
            f"{row['implementation']}: {', '.join(row['components'])} ({row['file']})\n"
            f"  understands: {', '.join(row['understands']) or '-'}\n"
            f"  offers: {', '.join(row['offers']) or '-'}"
        )


def looks_like_blueprint(path: str, reads: TemplateReads | None = None) -> bool:
    """Whether the template file of ``stack create`` is a blueprint (or a package holding
    one), by the test the API uses too. The blueprint compiler is imported only for a
    file that may be one (every ``stack create`` would import it otherwise).

    ``reads``: where the command's load will take the file from (`TemplateReads.top`): a
    template that merely mentions ``components`` (TripleO's overcloud.yaml) is then
    parsed once, for this test and the load, and the compiler is not imported. Its
    verdict is taken only when it says "a template": a file that does not load under the
    command's limits, or that looks like a blueprint, is tested as before (under the
    blueprint reader's own limits), so the answer is the same either way."""
    if not path.lower().endswith(".zip"):
        if not _mentions(path, b"components"):
            return False
        if reads is not None and not _blueprint_document(path, reads):
            return False
    from stoker.blueprint.build import file_source
    from stoker.blueprint.build import looks_like_blueprint as text_is_blueprint

    try:
        source = file_source(path)
    except (StokerErrorBase, OSError, UnicodeDecodeError):
        return False  # let the template path report it
    return text_is_blueprint(source.text, source.label)


def _blueprint_document(path: str, reads: TemplateReads) -> bool:
    """Whether the template file, loaded as the command loads it, may be a blueprint
    (True too when it does not load: the blueprint reader decides then)."""
    from stoker.blueprint import is_blueprint
    from stoker.limits import active_limits
    from stoker.template.loader import LoadLimits

    try:
        document = reads.top(path, LoadLimits.of(active_limits()))
    except (StokerErrorBase, OSError):
        return True
    return is_blueprint(document.data)


def _mentions(path: str, word: bytes) -> bool:
    """Whether the file holds ``word``, read a chunk at a time: a large template (a
    100 MB one with the size limit raised, say) is not held whole beside what the loader
    will make of it."""
    tail = b""
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            if word in tail + chunk[: len(word) - 1] or word in chunk:
                return True
            tail = chunk[-(len(word) - 1) :]
    return False


def blueprint_request(
    path: str,
    environments: tuple[str, ...],
    parameters: dict[str, str],
    os_cloud: str | None,
    libraries: tuple[str, ...] = (),
    existing: ExistingLookup | None = None,
) -> Any:
    """The compiled blueprint as a request's inputs (`stoker.definition.requests`): the
    template, with the library templates, the compiled environment and the blueprint
    among its files (`stoker.blueprint.build.stack_files`), and the user's environments
    after the compiled one."""
    from stoker.blueprint.build import ENVIRONMENT_FILE, stack_files
    from stoker.definition import RequestInputs

    source, compiled = compile_file(path, environments, libraries, os_cloud, existing)
    files = stack_files(source, compiled)
    for env_path in environments:
        with open(env_path, encoding="utf-8") as handle:
            files[env_path] = handle.read()
    return RequestInputs(
        template=compiled.text,
        files=files,
        environment_files=[ENVIRONMENT_FILE, *environments],
        parameters=parameters,
        label=f"{path} (compiled)",
    )
