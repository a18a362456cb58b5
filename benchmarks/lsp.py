"""The language server's diagnostics after a change, on a 1,000-resource template.

Prints figures; asserts nothing. Run:
.venv/bin/python benchmarks/lsp.py [--changes N] [--moves]

``stoker lsp`` is started as a subprocess and driven over stdio by pygls's client, as an
editor drives it. Each change edits one property of one resource (a different one each
time) and sends the whole buffer; with ``--moves`` it also inserts a line at the top of
the resources section, or takes it out again (so every resource below moves: Enter
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


def template(resources: int, edited: int = -1, moved: bool = False) -> str:
    """Half networks, half servers on them, each server reading parameters and a network;
    resource ``edited`` gets another name (the change); ``moved``: a comment line first in
    the first resource, which moves every other one a line down."""
    lines = [
        "heat_template_version: 2021-04-16",
        "parameters:",
        "  image: {type: string, default: cirros, description: the image}",
        "  flavor: {type: string, default: m1.small, description: the flavor}",
        "resources:",
    ]
    for index in range(resources):
        name = f"edited-{index}" if index == edited else f"net-{index}"
        if index % 2 == 0:
            lines += [
                f"  net{index}:",
                *(["    # moved"] if moved and index == 0 else []),
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
    lines += ["outputs:", "  first:", "    value: {get_attr: [server1, networks]}", ""]
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


async def measure(changes: int, moves: bool) -> None:
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
            text = template(RESOURCES, edited, moved=moves and number % 2 == 0)
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
    what = "a property edited and lines moved" if moves else "a property edited in place"
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
    arguments = parser.parse_args()
    asyncio.run(measure(arguments.changes, arguments.moves))


if __name__ == "__main__":
    main()
