"""The language server's diagnostics after a change, on a 1,000-resource template.

Prints figures; asserts nothing. Run:
.venv/bin/python benchmarks/lsp.py [--changes N] [--moves] [--where WHERE]

``stoker lsp`` is started as a subprocess and driven over stdio by pygls's client, as an
editor drives it. Each change edits one property of one resource (a different one each
time; with ``--where parameters``, ``description`` or ``outputs``: a parameter's default
that half the resources read, the template's description, an output's value) and sends
the whole buffer; with ``--moves`` it also inserts a comment line at the top of that
section, or takes it out again (above the resources, every resource moves: Enter
pressed, a line deleted). The figure is the time from sending the change to receiving
its published diagnostics (wall), and the CPU time the server process spent on it (user
+ system from /proc, so a busy machine's waiting does not count). The first check (the
catalog read, the rules imported) is reported apart.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

RESOURCES = 1000


#: where a change edits: a resource's property, a parameter's default, the template's
#: description, an output's value
WHERE = ("resources", "parameters", "description", "outputs")


def template(
    resources: int, edited: int = -1, moved: bool = False, where: str = "resources"
) -> str:
    """Half networks, half servers on them, each server reading parameters and a network.
    The change: ``edited`` (a number) written where ``where`` says (`WHERE`); ``moved``: a
    comment line inserted in that section (above the resources, every one of them moves a
    line down)."""
    edit = edited if edited >= 0 else None

    def mark(section: str, indent: str) -> list[str]:
        return [f"{indent}# moved"] if moved and where == section else []

    described = "a benchmark" if where != "description" or edit is None else f"edit {edit}"
    image = "cirros" if where != "parameters" or edit is None else f"cirros-{edit}"
    lines = [
        "heat_template_version: 2021-04-16",
        f"description: {described}",
        *mark("description", ""),
        "parameters:",
        *mark("parameters", "  "),
        f"  image: {{type: string, default: {image}, description: the image}}",
        "  flavor: {type: string, default: m1.small, description: the flavor}",
        "resources:",
    ]
    for index in range(resources):
        name = f"edited-{index}" if index == edited and where == "resources" else f"net-{index}"
        if index % 2 == 0:
            lines += [
                f"  net{index}:",
                *(mark("resources", "    ") if index == 0 else []),
                "    type: OS::Neutron::Net",
                "    properties:",
                f"      name: {{list_join: ['-', [{name}, '{index}']]}}",
            ]
        else:
            lines += [
                f"  server{index}:",
                "    type: OS::Nova::Server",
                "    properties:",
                f"      name: {name}",
                "      flavor: {get_param: flavor}",
                "      image: {get_param: image}",
                f"      networks: [{{network: {{get_resource: net{index - 1}}}}}]",
            ]
    # another server each change (never the first one, the template's own)
    shown = 1 if where != "outputs" or edit is None else 3 + 2 * (edit % (resources // 2 - 1))
    lines += [
        "outputs:",
        *mark("outputs", "  "),
        "  first:",
        f"    value: {{get_attr: [server{shown}, networks]}}",
        "",
    ]
    return "\n".join(lines)


def rss_of(pid: int) -> int:
    """Resident set size of a process in MB (Linux /proc)."""
    with open(f"/proc/{pid}/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) // 1024
    return 0


def cpu_of(pid: int) -> float:
    """User + system seconds of a process so far (Linux /proc)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


async def measure(changes: int, moves: bool, where: str) -> None:
    client = LanguageClient("benchmark", "1")
    published: asyncio.Queue[int] = asyncio.Queue()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(ls: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
        published.put_nowait(len(params.diagnostics))

    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "big.yaml"
        path.write_text(template(RESOURCES))
        uri = from_fs_path(str(path)) or ""
        await client.start_io(sys.executable, "-m", "stoker", "lsp")
        server = client._server  # noqa: SLF001 - the process, for its CPU time
        assert server is not None
        await client.initialize_async(
            types.InitializeParams(capabilities=types.ClientCapabilities(), process_id=None)
        )
        client.initialized(types.InitializedParams())
        before, start = cpu_of(server.pid), time.perf_counter()
        item = types.TextDocumentItem(uri, "yaml", 1, path.read_text())
        client.text_document_did_open(types.DidOpenTextDocumentParams(item))
        count = await published.get()
        first_wall, first_cpu = time.perf_counter() - start, cpu_of(server.pid) - before
        walls, cpus, rss = [], [], [rss_of(server.pid)]
        for number in range(changes):
            edited = (number * 37) % RESOURCES
            text = template(RESOURCES, edited, moves and number % 2 == 0, where)
            change = types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(number + 2, uri),
                [types.TextDocumentContentChangeWholeDocument(text)],
            )
            before, start = cpu_of(server.pid), time.perf_counter()
            client.text_document_did_change(change)
            count = await published.get()
            walls.append(time.perf_counter() - start)
            cpus.append(cpu_of(server.pid) - before)
            rss.append(rss_of(server.pid))
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
    what = f"{where} edited" + (", lines moved every other change" if moves else " in place")
    print(f"{RESOURCES} resources, {count} findings per check, load {os.getloadavg()[0]:.1f}")
    print(f"each change: {what}")
    print(
        f"first check (catalog and rules loaded): wall {first_wall * 1000:.0f} ms, "
        f"CPU {first_cpu * 1000:.0f} ms"
    )
    print(
        f"after a change ({changes} changes): wall median {statistics.median(walls) * 1000:.0f} ms"
        f" (best {min(walls) * 1000:.0f}); server CPU median "
        f"{statistics.median(cpus) * 1000:.0f} ms (best {min(cpus) * 1000:.0f})"
    )
    print(f"server RSS: {rss[0]} MB after the first check, {rss[-1]} MB after the last change")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=20)
    parser.add_argument("--moves", action="store_true", help="changes also move lines")
    parser.add_argument("--where", choices=WHERE, default="resources", help="what a change edits")
    arguments = parser.parse_args()
    asyncio.run(measure(arguments.changes, arguments.moves, arguments.where))


if __name__ == "__main__":
    main()
